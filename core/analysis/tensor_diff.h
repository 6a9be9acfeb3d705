/* tensor_diff.h — one recorded tensor against another (a reference run's,
 * a .npy file's, its own before-value): element-wise when both keep values,
 * else by their statistics. Pure functions over the model; no allocation.
 * Strings point into the session (valid while it lives). */
#ifndef AOTIDBG_TENSOR_DIFF_H
#define AOTIDBG_TENSOR_DIFF_H
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

typedef struct {
    int by_values;        /* 1: element values compared; 0: statistics only */
    int sampled;          /* values were a sample, not every element */
    int shape_differs;
    int complex_differs;  /* one is complex, the other not: nothing compared */
    size_t compared;      /* values compared */
    size_t differing;     /* values beyond the tolerance */
    double max_abs, max_rel;
    int64_t first_diff;   /* flat index of the first value beyond tol; -1 none */
} tensor_diff;

/* Compares t against r element-wise when both hold values (over the common
 * prefix), else their statistics. A value differs when
 * |t - r| > tol + tol * |r| (NaN vs a number differs; NaN vs NaN does not). */
void tensor_compare(const tensor_rec *t, const tensor_rec *r, double tol, tensor_diff *d);
/* One line, as the inspector shows it: "vs LABEL: first diff at [i, j] (n/m
 * differ), max abs err A, max rel err R", "identical (n values)", or why
 * nothing was compared (statistics only, complex, shapes differ). */
void tensor_compare_line(const char *label, const tensor_rec *t, const tensor_rec *r, strbuf *sb);
/* The tensor with this name and phase in kernel k of s; NULL when absent. */
const tensor_rec *session_find_tensor(const session *s, int64_t k, const char *name, tensor_phase ph);
/* Flat index of the first non-finite value, -1 when none or no values. */
int64_t tensor_first_nonfinite(const tensor_rec *t);
/* "[i, j, k]" of a flat row-major index. */
void fmt_index(strbuf *sb, const tensor_rec *t, int64_t flat);

#endif
