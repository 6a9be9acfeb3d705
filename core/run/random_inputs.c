/* random_inputs.c — see random_inputs.h. */
#include "random_inputs.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compat.h"

#define INT_HIGH_DEFAULT 16   /* an integer input no check bounds: [0, 16), as randn's integers */

/* The value of a dynamic size: the smallest of at least 2 inside the bounds
 * every input checks for its symbol (an unnamed size: its own bounds). */
static int64_t dyn_value(const wrapper_scan *ws, size_t in, int d, int64_t *lo_out, int64_t *hi_out)
{
    const ws_input *x = &ws->inputs[in];
    int64_t lo = x->dim_min[d], hi = x->dim_max[d];
    for (size_t j = 0; x->dim_sym[d] && j < ws->ninputs; j++)
        for (int e = 0; e < ws->inputs[j].ndim; e++) {
            const ws_input *y = &ws->inputs[j];
            if (y->dims[e] != WS_UNKNOWN || !y->dim_sym[e] || strcmp(y->dim_sym[e], x->dim_sym[d]))
                continue;
            if (y->dim_min[e] != WS_UNKNOWN && (lo == WS_UNKNOWN || y->dim_min[e] > lo))
                lo = y->dim_min[e];
            if (y->dim_max[e] != WS_UNKNOWN && (hi == WS_UNKNOWN || y->dim_max[e] < hi))
                hi = y->dim_max[e];
        }
    *lo_out = lo;
    *hi_out = hi;
    int64_t v = lo != WS_UNKNOWN && lo > 2 ? lo : 2;
    return hi != WS_UNKNOWN && v > hi ? hi : v;
}

/* The value made for size symbol sym, and *at where it is ("dim 0 of input 0");
 * *at NULL when no input has it. */
static int64_t sym_value(const wrapper_scan *ws, const char *sym, const char **at)
{
    static char where[160];
    *at = NULL;
    for (size_t i = 0; i < ws->ninputs; i++)
        for (int d = 0; d < ws->inputs[i].ndim; d++)
            if (ws->inputs[i].dims[d] == WS_UNKNOWN && ws->inputs[i].dim_sym[d] &&
                !strcmp(ws->inputs[i].dim_sym[d], sym)) {
                int64_t lo, hi;
                snprintf(where, sizeof where, "%s: dim %d of input %zu", sym, d, i);
                *at = where;
                return dyn_value(ws, i, d, &lo, &hi);
            }
    return 0;
}

static int is_int_dtype(const char *dt)
{
    return strstr(dt, "int") != NULL;
}

static const index_bound *bound_of(const index_bound *b, size_t n, size_t input)
{
    for (size_t i = 0; i < n; i++)
        if (b[i].input == input)
            return &b[i];
    return NULL;
}

/* One input's line of the spec, and what it says of it. */
static void one_input(const wrapper_scan *ws, size_t i, const index_bound *b, uint64_t seed, const char *device,
                      strbuf *spec, strbuf *said, strbuf *dims_said)
{
    const ws_input *x = &ws->inputs[i];
    const char *dt = x->dtype ? x->dtype : "float32";
    strbuf shape = STRBUF_INIT;
    strbuf_addch(&shape, '[');
    for (int d = 0; d < x->ndim; d++) {
        int64_t v = x->dims[d], lo, hi;
        if (v == WS_UNKNOWN) {
            v = dyn_value(ws, i, d, &lo, &hi);
            char what[64];
            snprintf(what, sizeof what, "  dim %s = %" PRId64, x->dim_sym[d] ? x->dim_sym[d] : "?", v);
            if (!x->dim_sym[d] || !strstr(dims_said->buf, what)) {   /* one line per symbol */
                strbuf_addstr(dims_said, what);
                if (lo != WS_UNKNOWN || hi != WS_UNKNOWN) {
                    strbuf_addstr(dims_said, " (compiled for ");
                    if (lo != WS_UNKNOWN)
                        strbuf_addf(dims_said, "%" PRId64, lo);
                    strbuf_addstr(dims_said, lo != WS_UNKNOWN && hi != WS_UNKNOWN ? " to " : hi != WS_UNKNOWN ? "at most " : " or more");
                    if (hi != WS_UNKNOWN)
                        strbuf_addf(dims_said, "%" PRId64, hi);
                    strbuf_addch(dims_said, ')');
                } else {
                    strbuf_addstr(dims_said, " (no bounds checked by the package)");
                }
                strbuf_addf(dims_said, ": dim %d of input %zu\n", d, i);
            }
        }
        strbuf_addf(&shape, "%s%" PRId64, d ? ", " : "", v);
    }
    strbuf_addch(&shape, ']');
    strbuf fill = STRBUF_INIT, why = STRBUF_INIT;
    int64_t high = INT_HIGH_DEFAULT;
    if (is_int_dtype(dt)) {
        const char *at = NULL;
        if (b && b->sym[0])
            high = sym_value(ws, b->sym, &at);
        else if (b)
            high = b->high;
        if (b && (!b->sym[0] || at))
            strbuf_addf(&why, ": the index check %s in %s", b->check, b->kernel);
        if (at)
            strbuf_addf(&why, " (%s, made %" PRId64 ")", at, high);
        if (!b || (b->sym[0] && !at)) {
            high = INT_HIGH_DEFAULT;
            strbuf_addstr(&why, ": no index check in the package bounds it");
        }
        strbuf_addf(&fill, "randint, low: 0, high: %" PRId64, high);
    } else {
        strbuf_addstr(&fill, "randn");
    }
    const char *dev = x->device ? x->device : device;
    strbuf_addf(spec, "  - {shape: %s, dtype: %s, device: %s, fill: %s, seed: %" PRIu64 "}", shape.buf, dt, dev,
                fill.buf, seed + i);
    strbuf_addf(spec, "   # %s%s%s\n", x->user_name ? x->user_name : x->name ? x->name : "input",
                x->user_name && x->name ? " " : "", x->user_name && x->name ? x->name : "");
    strbuf_addf(said, "  input %zu", i);
    const char *shown = x->user_name && !starts_with(x->user_name, "args[") ? x->user_name : x->name;
    if (shown)   /* a keyword's name, else AOTI's (args[0] says only the position) */
        strbuf_addf(said, " (%s)", shown);
    strbuf_addf(said, ": %s %s ", dt, shape.buf);
    if (is_int_dtype(dt))
        strbuf_addf(said, "randint [0, %" PRId64 ")%s", high, why.buf);
    else
        strbuf_addstr(said, !strcmp(dt, "bool") ? "random bits" : "randn");
    strbuf_addf(said, "%s\n", x->dtype ? "" : " (dtype not checked by the package: float32 assumed)");
    strbuf_release(&shape);
    strbuf_release(&fill);
    strbuf_release(&why);
}

int random_inputs_write(const wrapper_scan *ws, const index_bound *bounds, size_t nbounds, uint64_t seed,
                        const char *device, const char *path, strbuf *said, strbuf *err)
{
    for (size_t i = 0; i < ws->ninputs; i++)
        if (ws->inputs[i].ndim < 0) {
            strbuf_addf(err, "--inputs random: the package does not say the rank of input %zu (%s); write an inputs "
                        "spec (run without --inputs for one to start from)", i,
                        ws->inputs[i].name ? ws->inputs[i].name : "unnamed");
            return -1;
        }
    strbuf spec = STRBUF_INIT, dims = STRBUF_INIT;
    strbuf_addf(&spec, "# made by aotidbg --inputs random --seed %" PRIu64 " from what the package checks of its "
                "inputs;\n# --inputs %s runs the same inputs again\ninputs:\n", seed, path);
    for (size_t i = 0; i < ws->ninputs; i++)
        one_input(ws, i, bound_of(bounds, nbounds, i), seed, device, &spec, said, &dims);
    strbuf_add(said, dims.buf, dims.len);
    strbuf tmp = STRBUF_INIT;
    strbuf_addf(&tmp, "%s.tmp", path);
    FILE *f = fopen(tmp.buf, "w");
    int rc = -1;
    if (!f) {
        strbuf_addf(err, "--inputs random: cannot write %s: %s", tmp.buf, strerror(errno));
        goto out;
    }
    fwrite(spec.buf, 1, spec.len, f);
    if (ferror(f) | fclose(f) || rename(tmp.buf, path) < 0) {
        strbuf_addf(err, "--inputs random: writing %s failed: %s", path, strerror(errno));
        unlink(tmp.buf);
        goto out;
    }
    rc = 0;
out:
    strbuf_release(&spec);
    strbuf_release(&dims);
    strbuf_release(&tmp);
    return rc;
}
