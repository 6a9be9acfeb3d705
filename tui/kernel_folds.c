/* kernel_folds.c — fold events placed in the kernel list (see kernel_folds.h). */
#include "kernel_folds.h"
#include <stdlib.h>
#include "compat.h"

struct kfolds {
    kfold *f;
    size_t n, cap;
    size_t scanned;            /* events looked at */
    int64_t kernels;           /* kernel events among them */
    uint64_t launches;         /* folded in the placed folds */
    const event *first;        /* s->events[0] when scanned, to notice a restart */
};

kfolds *kfolds_new(void) { return xcalloc(1, sizeof(kfolds)); }

void kfolds_free(kfolds *k)
{
    if (!k)
        return;
    free(k->f);
    free(k);
}

void kfolds_sync(kfolds *k, const session *s)
{
    size_t settled = s->nevents - (s->nevents_held < s->nevents ? s->nevents_held : s->nevents);
    if (settled < k->scanned || (k->scanned && s->events[0] != k->first)) {
        k->n = 0;
        k->scanned = 0;
        k->kernels = 0;
        k->launches = 0;
    }
    for (size_t i = k->scanned; i < settled; i++) {
        const event *e = s->events[i];
        if (e->kind == EV_KERNEL) {
            k->kernels++;
        } else if (e->kind == EV_FOLD) {
            ALLOC_GROW(k->f, k->n + 1, k->cap);
            k->f[k->n++] = (kfold){k->kernels, &e->u.fold, 0};
            k->launches += e->u.fold.launches;
        }
    }
    k->scanned = settled;
    k->first = settled ? s->events[0] : NULL;
}

size_t kfolds_count(const kfolds *k) { return k->n; }

uint64_t kfolds_launches(const kfolds *k, const session *s)
{
    uint64_t n = k->launches;
    for (size_t i = k->scanned; i < s->nevents; i++)   /* the held tail: a few iterations at most */
        if (s->events[i]->kind == EV_FOLD)
            n += s->events[i]->u.fold.launches;
    return n;
}
kfold *kfolds_at(kfolds *k, size_t i) { return i < k->n ? &k->f[i] : NULL; }

int64_t kfolds_find_index(const kfolds *k, int64_t index)
{
    for (size_t i = 0; i < k->n; i++)
        if (index >= k->f[i].f->first_kernel && index <= k->f[i].f->last_kernel)
            return (int64_t)i;
    return -1;
}
