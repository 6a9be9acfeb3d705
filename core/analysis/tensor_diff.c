/* tensor_diff.c — one tensor against another (see tensor_diff.h). */
#include "tensor_diff.h"
#include <math.h>
#include <string.h>
#include "numfmt.h"

static int beyond(double x, double r, double tol)
{
    if (isnan(x) || isnan(r))
        return !(isnan(x) && isnan(r));
    if (isinf(x) || isinf(r))
        return x != r;
    return fabs(x - r) > tol + tol * fabs(r);
}

void tensor_compare(const tensor_rec *t, const tensor_rec *r, double tol, tensor_diff *d)
{
    memset(d, 0, sizeof *d);
    d->first_diff = -1;
    if (t->ndim != r->ndim)
        d->shape_differs = 1;
    for (int i = 0; i < t->ndim && !d->shape_differs; i++)
        d->shape_differs = t->shape[i] != r->shape[i];
    if (dtype_lanes(t->dtype) != dtype_lanes(r->dtype)) {   /* complex against real: nothing lines up */
        d->complex_differs = 1;
        return;
    }
    if (t->nvalues && r->nvalues) {
        d->by_values = 1;
        size_t n = t->nvalues < r->nvalues ? t->nvalues : r->nvalues;
        size_t lanes = (size_t)dtype_lanes(t->dtype);   /* complex: each part compared, indices per element */
        d->compared = n / lanes;
        d->sampled = !(t->values_complete && r->values_complete) || t->nvalues != r->nvalues;
        for (size_t i = 0; i < n; i++) {
            double x = t->values[i], y = r->values[i];
            if (isfinite(x) && isfinite(y)) {
                double ad = fabs(x - y);
                if (ad > d->max_abs) d->max_abs = ad;
                double rel = y != 0 ? ad / fabs(y) : (ad ? INFINITY : 0);
                if (rel > d->max_rel) d->max_rel = rel;
            }
            if (beyond(x, y, tol)) {
                if (d->first_diff < 0)
                    d->first_diff = (int64_t)(i / lanes);
                if (lanes == 1 || (i % lanes == 0 || !beyond(t->values[i - 1], r->values[i - 1], tol)))
                    d->differing++;   /* an element once, whichever part differs */
            }
        }
        return;
    }
    if (!t->has_stats || !r->has_stats)
        return;
    /* statistics only: min, max, mean and the non-finite counts */
    const double a3[3] = {t->stats.min, t->stats.max, t->stats.mean};
    const double b3[3] = {r->stats.min, r->stats.max, r->stats.mean};
    for (int i = 0; i < 3; i++) {
        if (isfinite(a3[i]) && isfinite(b3[i])) {
            double ad = fabs(a3[i] - b3[i]);
            if (ad > d->max_abs) d->max_abs = ad;
            double rel = b3[i] != 0 ? ad / fabs(b3[i]) : (ad ? INFINITY : 0);
            if (rel > d->max_rel) d->max_rel = rel;
        }
        d->differing += beyond(a3[i], b3[i], tol);
    }
    d->differing += t->stats.nan != r->stats.nan;
    d->differing += t->stats.posinf + t->stats.neginf != r->stats.posinf + r->stats.neginf;
    d->compared = 5;
}

const tensor_rec *session_find_tensor(const session *s, int64_t k, const char *name, tensor_phase ph)
{
    if (!s || k < 0 || (size_t)k >= s->nkernels || !name)
        return NULL;
    const kernel_event *ke = &s->kernels[k]->u.kernel;
    for (size_t i = 0; i < ke->ntensors; i++)
        if (ke->tensors[i].phase == ph && ke->tensors[i].name && !strcmp(ke->tensors[i].name, name))
            return &ke->tensors[i];
    return NULL;
}

int64_t tensor_first_nonfinite(const tensor_rec *t)
{
    size_t lanes = (size_t)dtype_lanes(t->dtype), n = tensor_values_elems(t) * lanes;   /* whole pairs only */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t->values[i]))
            return (int64_t)(i / lanes);   /* complex: the element of the pair */
    return -1;
}

void fmt_index(strbuf *sb, const tensor_rec *t, int64_t flat)
{
    if (t->ndim <= 0 || !t->shape) {
        strbuf_addf(sb, "[%lld]", (long long)flat);
        return;
    }
    int64_t idx[TENSOR_MAX_DIMS];
    int64_t rem = flat;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = rem % n;
        rem /= n;
    }
    fmt_shape(sb, t->ndim, idx);
}

void tensor_compare_line(const char *label, const tensor_rec *t, const tensor_rec *r, strbuf *sb)
{
    tensor_diff d;
    tensor_compare(t, r, 0, &d);
    char ma[24], mr[24];
    fmt_double(ma, sizeof ma, d.max_abs);
    fmt_double(mr, sizeof mr, d.max_rel);
    if (d.by_values) {   /* the first differing index first: it is what the user walks to */
        if (d.first_diff >= 0) {
            strbuf_addf(sb, "vs %s: first diff at ", label);
            fmt_index(sb, t, d.first_diff);
            strbuf_addf(sb, " (%zu/%zu differ%s), max abs err %s, max rel err %s", d.differing, d.compared,
                        d.sampled ? ", sampled" : "", ma, mr);
        } else {
            strbuf_addf(sb, "vs %s: identical (%zu values%s)", label, d.compared, d.sampled ? ", sampled" : "");
        }
    } else if (d.compared) {
        strbuf_addf(sb, "vs %s (statistics only, no values on both sides): min/max/mean max abs err %s, rel %s%s",
                    label, ma, mr, d.differing ? "" : ", same");
    } else if (d.complex_differs) {
        strbuf_addf(sb, "vs %s: nothing to compare (one is complex, the other is not)", label);
    } else {
        strbuf_addf(sb, "vs %s: nothing to compare (no values or statistics on both sides)", label);
    }
    if (d.shape_differs)
        strbuf_addstr(sb, "; shapes differ");
}
