/* kernel_folds.h — the session's fold events (model.h fold_event: while_loop
 * iterations counted, not kept) placed in the kernel list: each sits before
 * the kernel that follows it in the events (its position `at`, a kernel
 * position of s->kernels; nkernels when none follows yet), so the list can
 * show it as a group of its own that opens to its kernels.
 *
 * Built as the session grows (a live run, a replay still loading): only
 * settled events are placed (not the s->nevents_held tail a live recorder
 * may still fold); a restart that replaced the events starts it over.
 * Owner: tui/kernel_folds.c; the kernel list owns one. No curses. Threads:
 * none. */
#ifndef AOTIDBG_KERNEL_FOLDS_H
#define AOTIDBG_KERNEL_FOLDS_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"

typedef struct {
    int64_t at;                /* the kernel position it comes before */
    const fold_event *f;       /* borrowed from the session */
    int open;                  /* its kernels shown */
} kfold;

typedef struct kfolds kfolds;

kfolds *kfolds_new(void);
void kfolds_free(kfolds *k);   /* NULL is fine */
void kfolds_sync(kfolds *k, const session *s);
size_t kfolds_count(const kfolds *k);
/* Launches folded in the session: the placed folds' and the held tail's (the
 * title's "+N folded"), without a pass over every event each frame. */
uint64_t kfolds_launches(const kfolds *k, const session *s);
kfold *kfolds_at(kfolds *k, size_t i);   /* NULL past the end */
/* The fold whose launches (first_kernel..last_kernel) hold kernel index
 * `index`, or -1. */
int64_t kfolds_find_index(const kfolds *k, int64_t index);

#endif
