/* run_expect.c — outputs against expected .npy files; see run_expect.h. */
#include "run_expect.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host_stats.h"
#include "numfmt.h"
#include "tensor_close.h"
#include "tensor_diff.h"
#include "tensor_file.h"

int run_expect_open(const run_options *o, strbuf *err)
{
    for (size_t i = 0; i < o->expect.n; i++) {
        const char *path = o->expect.path[i];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
            strbuf_addf(err, "--expect %s (output %zu): %s", path, i, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        file_tensor ft;
        int r = npy_read_header_any_order(fd, (uint64_t)st.st_size, path, &ft, err);
        close(fd);
        if (r < 0)
            return -1;
    }
    return 0;
}

static const event *last_output(const session *s)
{
    for (size_t i = s->nevents; i-- > 0;)
        if (s->events[i]->kind == EV_OUTPUT)
            return s->events[i];
    return NULL;
}

/* One output against one file: 0 matches, 1 not; a line in line. */
static int compare_one(const tensor_rec *got, const char *path, run_tolerance want_tol, strbuf *line)
{
    arena ar = ARENA_INIT;
    tensor_rec want;
    strbuf err = STRBUF_INIT;
    int rc = 1;
    if (tensor_file_load_npy(&ar, path, 0, &want, &err) < 0) {
        strbuf_addf(line, "cannot read it: %s", err.buf);
        goto out;
    }
    int same_shape = got->ndim == want.ndim;
    for (int d = 0; same_shape && d < got->ndim; d++)
        same_shape = got->shape[d] == want.shape[d];
    if (!same_shape) {
        strbuf_addstr(line, "differs in shape: the output is ");
        fmt_shape(line, got->ndim, got->shape);
        strbuf_addstr(line, ", the file ");
        fmt_shape(line, want.ndim, want.shape);
        goto out;
    }
    if (!got->values_complete) {
        strbuf_addf(line, "not compared: the run kept %zu of its values%s", tensor_values_elems(got),
                    got->values_budget_cut ? " (the value budget cut it: raise --values-budget)" : "");
        goto out;
    }
    if (!want.values_complete) {
        strbuf_addf(line, "not compared: the file's values are past what aotidbg loads (%llu MiB of doubles)",
                    (unsigned long long)(TENSOR_FILE_VALUES_BUDGET >> 20));
        goto out;
    }
    if (got->nvalues != want.nvalues) {
        strbuf_addf(line, "not compared: %zu values against the file's %zu (complex against real?)", got->nvalues,
                    want.nvalues);
        goto out;
    }
    dtype_kind dk = DK_F32;
    stats_kind_by_name(got->dtype, &dk);
    close_tol tol = want_tol.atol >= 0 ? (close_tol){want_tol.atol, want_tol.rtol} : close_default_tol(dk);
    close_result r;
    close_init(&r, tol);
    close_add(&r, got->values, want.values, got->nvalues);
    int lanes = dtype_lanes(got->dtype);
    uint64_t n = r.compared / (uint64_t)lanes;
    if (r.differing) {
        strbuf_addstr(line, "differs at ");
        fmt_index(line, got, r.first / lanes);
        char g[32], w[32], m[32];
        fmt_double(g, sizeof g, r.got);
        fmt_double(w, sizeof w, r.want);
        fmt_double(m, sizeof m, r.max_abs);
        strbuf_addf(line, ": got %s, want %s (%" PRIu64 " of %" PRIu64 " values differ; largest error %s; "
                    "atol %g, rtol %g)", g, w, r.differing, r.compared, m, tol.atol, tol.rtol);
        goto out;
    }
    strbuf_addf(line, "matches: all %" PRIu64 " elements within atol %g, rtol %g", n, tol.atol, tol.rtol);
    if (strcmp(got->dtype, want.dtype))
        strbuf_addf(line, " (the output is %s, the file %s: compared as numbers)", got->dtype, want.dtype);
    rc = 0;
out:
    strbuf_release(&err);
    arena_release(&ar);
    return rc;
}

int run_expect_compare(session *s, const run_options *o, strbuf *report)
{
    const event *out = last_output(s);
    size_t nout = out ? out->u.output.ntensors : 0;
    int bad = 0;
    for (size_t i = 0; i < o->expect.n; i++) {
        strbuf line = STRBUF_INIT;
        strbuf_addf(&line, "output %zu", i);
        const tensor_rec *t = i < nout ? &out->u.output.tensors[i] : NULL;
        if (t && t->user_name)
            strbuf_addf(&line, " (%s)", t->user_name);
        strbuf_addf(&line, " against %s: ", o->expect.path[i]);
        if (!t) {
            strbuf_addf(&line, "not compared: the run %s", !out ? "produced no outputs"
                        : "has fewer outputs than --expect files");
            if (out)
                strbuf_addf(&line, " (%zu)", nout);
            bad = 1;
        } else {
            bad |= compare_one(t, o->expect.path[i], o->expect_tol, &line);
        }
        session_add_note(s, arena_printf(&s->arena, "--expect: %s", line.buf));
        strbuf_addf(report, "%s\n", line.buf);
        strbuf_release(&line);
    }
    if (o->expect.n < nout)
        strbuf_addf(report, "outputs %zu..%zu were not checked (no --expect for them)\n", o->expect.n, nout - 1);
    return bad;
}
