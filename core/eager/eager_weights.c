/* eager_weights.c — the program's weights for the runner to compare (eager_weights.h). */
#include "eager_weights.h"
#include <string.h>

int eager_weights_checks(const char *path, const eager_program *prog, arena *a, proto_msg **out, size_t *n,
                         strbuf *why)
{
    *out = NULL;
    *n = 0;
    eager_program *own = NULL;
    if (!prog) {
        if (eager_program_read_weights(&own, path, why) < 0)
            return -1;
        prog = own;
    }
    size_t nw = eager_program_nweights(prog);
    proto_msg *m = arena_alloc(a, (nw + 1) * sizeof *m);
    for (size_t i = 0; i < nw; i++) {
        eager_weight w;
        eager_program_weight(prog, i, &w);
        memset(&m[i], 0, sizeof m[i]);
        m[i].type = PROTO_WEIGHT_CHECK;
        m[i].u.wcheck.archive = arena_strdup(a, path);
        m[i].u.wcheck.fqn = arena_strdup(a, w.fqn);
        m[i].u.wcheck.record = arena_strdup(a, w.record);
        m[i].u.wcheck.dtype = arena_strdup(a, w.dtype);
        m[i].u.wcheck.ndim = w.ndim;
        m[i].u.wcheck.shape = arena_alloc(a, ((size_t)w.ndim + 1) * sizeof *w.shape);
        m[i].u.wcheck.strides = arena_alloc(a, ((size_t)w.ndim + 1) * sizeof *w.strides);
        if (w.ndim) {
            memcpy(m[i].u.wcheck.shape, w.shape, (size_t)w.ndim * sizeof *w.shape);
            memcpy(m[i].u.wcheck.strides, w.strides, (size_t)w.ndim * sizeof *w.strides);
        }
        m[i].u.wcheck.storage_offset = w.storage_offset;
    }
    eager_program_free(own);
    *out = m;
    *n = nw;
    return 0;
}
