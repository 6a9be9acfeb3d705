/* tensor_close.c — element-wise closeness against a reference (tensor_close.h). */
#include "tensor_close.h"
#include <math.h>
#include <string.h>

close_tol close_default_tol(dtype_kind k)
{
    switch (k) {
    case DK_F16: return (close_tol){1e-5, 1e-3};
    case DK_BF16:
    case DK_F8E4M3:
    case DK_F8E5M2: return (close_tol){1e-5, 1.6e-2};
    case DK_F32: return (close_tol){1e-5, 1.3e-6};
    case DK_F64: return (close_tol){1e-7, 1e-7};
    default: return (close_tol){0, 0};
    }
}

close_tol close_scaled_tol(dtype_kind k, double scale)
{
    close_tol t = close_default_tol(k);
    if (scale > 0 && isfinite(scale) && t.atol < t.rtol * scale)
        t.atol = t.rtol * scale;
    return t;
}

void close_init(close_result *r, close_tol tol)
{
    memset(r, 0, sizeof *r);
    r->tol = tol;
    r->first = r->max_at = -1;
}

void close_add(close_result *r, const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i], err, aw;
        int bad;
        if (g == w || (g != g && w != w))   /* equal, both infinite alike, or both NaN */
            continue;
        if (!isfinite(g) || !isfinite(w)) {
            err = INFINITY;
            aw = 0;
            bad = 1;
        } else {
            err = fabs(g - w);
            aw = fabs(w);
            bad = err > r->tol.atol + r->tol.rtol * aw;
        }
        int64_t at = (int64_t)(r->compared + i);
        if (err > r->max_abs) {
            r->max_abs = err;
            r->max_at = at;
        }
        if (err > r->max_rel * aw)   /* err / aw > max_rel without dividing every element */
            r->max_rel = aw != 0 ? err / aw : INFINITY;
        if (bad) {
            if (!r->differing++) {
                r->first = at;
                r->got = g;
                r->want = w;
            }
        }
    }
    r->compared += n;
}

#define CLOSE_BLOCK 2048

int close_compare(const void *got, dtype_kind gk, int ndim, const int64_t *sizes, const int64_t *strides,
                  const void *want, dtype_kind wk, close_result *r)
{
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS || (unsigned)gk >= DK__COUNT || (unsigned)wk >= DK__COUNT ||
        stats_kind_lanes(gk) != 1 || stats_kind_lanes(wk) != 1)   /* complex: the rule is for real numbers */
        return -1;
    uint64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0)
            return -1;
        numel *= (uint64_t)sizes[d];
    }
    if (numel && (!got || !want))
        return -1;
    double g[CLOSE_BLOCK], w[CLOSE_BLOCK];
    int64_t one = 1;
    size_t wsize = stats_kind_size(wk);
    for (uint64_t done = 0; done < numel;) {
        size_t n = numel - done < CLOSE_BLOCK ? (size_t)(numel - done) : CLOSE_BLOCK;
        int64_t nn = (int64_t)n;
        if (stats_read(got, gk, ndim, sizes, strides, done, g, n) < 0 ||
            stats_read((const char *)want + done * wsize, wk, 1, &nn, &one, 0, w, n) < 0)
            return -1;
        close_add(r, g, w, n);
        done += n;
    }
    return 0;
}
