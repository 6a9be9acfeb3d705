/* test_route_load.c — `route S.yaml` reads a session a slice at a time
 * (core/router/route_load.h) and must say what routing the whole session
 * says. For every session file in the tree (sessions/, tests/, hand-cut and
 * malformed ones too) and slices of 1, 2 and 512 events: the same text, the
 * same YAML, the same error. Then sessions written here for the paths few
 * recorded files take (a NaN with no nan event, its producer far back; an
 * error naming a kernel long gone; an assert's kernel by name only), with
 * what is kept counted. Then the index: key (route_session_picks, written
 * by session_save_indexed): every session re-saved with one routes as its
 * whole self by the index alone and dumps as a save without one; an index
 * that does not fit its file is not trusted. Also session_copy_event: a
 * copy dumps as its source, after the source is freed. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "route_event.h"
#include "route_load.h"
#include "router.h"
#include "session_copy.h"
#include "session_io.h"
#include "session_mem.h"

static router_rules *rules;

/* Every file under the tree that starts as a session does. */
static char **files;
static size_t nfiles;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (type != FTW_F || !strstr(path, ".yaml") || strstr(path, "/build"))
        return 0;
    FILE *f = fopen(path, "rb");
    char head[64] = {0};
    if (f) {
        size_t n = fread(head, 1, sizeof head - 1, f);
        head[n] = 0;
        fclose(f);
    }
    if (strncmp(head, "format_version", 14) && !strstr(path, "malformed"))
        return 0;
    files = realloc(files, (nfiles + 1) * sizeof *files);
    files[nfiles++] = strdup(path);
    return 0;
}

/* rc and the routed text + YAML (or the error) of s, into out. */
static void route_into(const session *s, strbuf *out)
{
    route_result r = {0};
    router_route_event(rules, s, NULL, NULL, &r);
    route_result_format_text(&r, out);
    route_result_format_yaml(&r, out);
    route_result_release(&r);
}

static void whole(const char *path, strbuf *out)
{
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    if (session_load(path, &s, &err))
        strbuf_addf(out, "error: %s", err.buf);
    else
        route_into(s, out);
    session_free(s);
    strbuf_release(&err);
}

static int last_indexed;   /* the last sliced() read went by the index */

static size_t sliced(const char *path, size_t step, strbuf *out)
{
    session *s = NULL;
    route_loaded *rl = NULL;
    strbuf err = STRBUF_INIT;
    size_t kept = 0, all = 0;
    last_indexed = 0;
    if (route_session_load(path, step, NULL, NULL, &s, &rl, &err)) {
        strbuf_addf(out, "error: %s", err.buf);
    } else {
        route_into(s, out);
        route_loaded_counts(rl, &kept, &all);
        last_indexed = route_loaded_indexed(rl);
    }
    session_free(s);
    route_loaded_free(rl);
    strbuf_release(&err);
    return kept;
}

static void test_every_session_routes_the_same(void)
{
    static const size_t steps[] = {1, 2, 512};
    size_t compared = 0;
    for (size_t i = 0; i < nfiles; i++) {
        strbuf a = STRBUF_INIT;
        whole(files[i], &a);
        for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
            strbuf b = STRBUF_INIT;
            sliced(files[i], steps[k], &b);
            if (strcmp(a.buf, b.buf)) {
                fprintf(stderr, "%s, slices of %zu: routes differently\n--- whole:\n%s\n--- sliced:\n%s\n", files[i],
                        steps[k], a.buf, b.buf);
                CHECK(0);
            }
            compared++;
            strbuf_release(&b);
        }
        strbuf_release(&a);
    }
    printf("route_load: %zu session files, %zu routes compared\n", nfiles, compared);
    CHECK(nfiles >= 60);   /* the tree's sessions were found */
}

static void test_copy_dumps_as_source(void)
{
    size_t copied = 0;
    for (size_t i = 0; i < nfiles; i++) {
        session *s = NULL, *c = NULL;
        strbuf err = STRBUF_INIT;
        if (session_load(files[i], &s, &err) || session_load(files[i], &c, &err)) {
            session_free(s);
            strbuf_release(&err);
            continue;
        }
        char *want = dump_mem(s);
        session_set_events(c, NULL, 0);
        for (size_t e = 0; e < s->nevents; e++)
            session_copy_event(c, s->events[e]);
        session_free(s);   /* the copies must not point into it */
        char *got = dump_mem(c);
        if (strcmp(want, got)) {
            fprintf(stderr, "%s: the copy dumps differently\n", files[i]);
            CHECK(0);
        }
        copied++;
        free(want);
        free(got);
        session_free(c);
        strbuf_release(&err);
    }
    CHECK(copied >= 50);
}

/* ---- sessions written here ------------------------------------------------ */

static tensor_rec *tensors(session *s, size_t n)
{
    return arena_alloc(&s->arena, n * sizeof(tensor_rec));
}

static void tensor(session *s, tensor_rec *t, const char *name, tensor_phase ph, double v, uint64_t nan,
                   uint64_t neginf)
{
    t->name = arena_strdup(&s->arena, name);
    t->phase = ph;
    t->ndim = 1;
    t->shape = arena_alloc(&s->arena, sizeof(int64_t));
    t->strides = arena_alloc(&s->arena, sizeof(int64_t));
    t->shape[0] = 4;
    t->strides[0] = 1;
    t->dtype = "float32";
    t->device = "cpu";
    t->has_stats = 1;
    t->stats = (tensor_stats){.numel = 4, .finite = 4 - nan - neginf, .nan = nan, .neginf = neginf, .min = v, .max = v + 1, .mean = v + 0.5,
                              .std = 0.5};
}

/* n kernels: kernel p writes "early" (its only writer) with a mask's -inf,
 * which the NaN hunt passes over; kernel nan_at reads it and writes NaN into
 * "late" with status nan_status; every other kernel writes "mid" from "mid". */
static session *made(size_t n, size_t p, size_t nan_at, kernel_status nan_status)
{
    session *s = session_new();
    s->tool_version = AOTIDBG_VERSION;
    s->torch_version = "2.13.0";
    s->host = "test";
    s->device = "cpu";
    for (size_t k = 0; k < n; k++) {
        event *e = session_add_event(s, EV_KERNEL);
        kernel_event *ke = &e->u.kernel;
        ke->name = k == nan_at ? "cpp_fused_log_1" : "cpp_fused_mid_2";   /* p's name's last launch is later */
        ke->type = KTYPE_CPP;
        ke->status = k == nan_at ? nan_status : KSTAT_OK;
        ke->ntensors = 2;
        ke->tensors = tensors(s, 2);
        const char *in = k == nan_at ? "early" : "mid", *out = k == p ? "early" : k == nan_at ? "late" : "mid";
        tensor(s, &ke->tensors[0], in, PHASE_BEFORE, k == nan_at ? (double)p + 10 : (double)k, 0, k == nan_at);
        tensor(s, &ke->tensors[1], out, PHASE_AFTER, (double)k + 10, k == nan_at ? 2 : 0, k == p);
    }
    return s;
}

static void save_tmp(session *s, char *path)
{
    strcpy(path, "/tmp/test_route_load_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    strbuf err = STRBUF_INIT;
    CHECK(session_save(s, path, &err) == 0);
    strbuf_release(&err);
}

/* s saved to path (a new temporary name) with the index a run's final save writes. */
static void save_indexed_tmp(const session *s, char *path)
{
    strcpy(path, "/tmp/test_route_load_ix_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    size_t *at, n;
    route_session_picks(s, &at, &n);
    strbuf err = STRBUF_INIT;
    CHECK(session_save_indexed(s, path, at, n, &err) == 0);
    free(at);
    strbuf_release(&err);
}

/* Whole and sliced route p the same, and the sliced read kept at most max
 * kernels; p re-saved with an index routes the same by the index. */
static void same_and_small(const char *path, size_t max_kept, const char *must)
{
    strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
    whole(path, &a);
    size_t kept = sliced(path, 3, &b);
    CHECK_STR(b.buf, a.buf);
    CHECK(kept <= max_kept);
    CHECK(!last_indexed);
    if (must)
        CHECK_CONTAINS(b.buf, must);
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load(path, &s, &err) == 0);
    char ipath[64];
    save_indexed_tmp(s, ipath);
    session_free(s);
    sliced(ipath, 3, &c);
    CHECK(last_indexed);
    CHECK_STR(c.buf, a.buf);
    unlink(ipath);
    strbuf_release(&err);
    strbuf_release(&a);
    strbuf_release(&b);
    strbuf_release(&c);
}

static void test_every_session_by_its_index(void)
{
    size_t compared = 0;
    for (size_t i = 0; i < nfiles; i++) {
        session *s = NULL;
        strbuf err = STRBUF_INIT;
        if (session_load(files[i], &s, &err) || s->truncated || !s->nevents) {   /* an index is of a whole save */
            session_free(s);
            strbuf_release(&err);
            continue;
        }
        char ipath[64], ppath[64];
        save_indexed_tmp(s, ipath);
        save_tmp(s, ppath);
        session_free(s);
        strbuf a = STRBUF_INIT, b = STRBUF_INIT;
        whole(ppath, &a);
        sliced(ipath, 512, &b);
        if (!last_indexed || strcmp(a.buf, b.buf)) {
            fprintf(stderr, "%s: %s\n--- whole:\n%s\n--- by the index:\n%s\n", files[i],
                    last_indexed ? "routes differently by its index" : "not read by its index", a.buf, b.buf);
            CHECK(0);
        }
        session *x = NULL, *y = NULL;   /* the key is not part of what a replay shows */
        CHECK(session_load(ipath, &x, &err) == 0 && session_load(ppath, &y, &err) == 0);
        if (x && y) {
            CHECK(x->index.nat > 0 && y->index.nat == 0);
            char *dx = dump_mem(x), *dy = dump_mem(y);
            CHECK_STR(dx, dy);
            free(dx);
            free(dy);
        }
        session_free(x);
        session_free(y);
        compared++;
        unlink(ipath);
        unlink(ppath);
        strbuf_release(&a);
        strbuf_release(&b);
        strbuf_release(&err);
    }
    printf("route_load: %zu sessions routed by their index\n", compared);
    CHECK(compared >= 50);
}

/* Rewrites len bytes at off of path. */
static void poke(const char *path, long off, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f && fseek(f, off, SEEK_SET) == 0 && fwrite(bytes, 1, len, f) == len);
    if (f)
        fclose(f);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *b = malloc(*len + 1);
    CHECK(fread(b, 1, *len, f) == *len);
    b[*len] = 0;
    fclose(f);
    return b;
}

/* An index that does not fit its file (hand-edited, appended to, an offset
 * moved, never patched) is not trusted: the whole file is read, and the
 * route is the whole file's. */
static void test_index_that_misfits_is_not_trusted(void)
{
    session *s = made(300, 7, 290, KSTAT_NAN);
    char path[64];
    save_indexed_tmp(s, path);
    session_free(s);
    strbuf want = STRBUF_INIT, got = STRBUF_INIT;
    whole(path, &want);
    sliced(path, 64, &got);
    CHECK(last_indexed);
    CHECK_STR(got.buf, want.buf);
    size_t len;
    char *orig = slurp(path, &len);
    const char *at = strstr(orig, "\n  at: [");
    CHECK(at != NULL);
    long first = (long)(at - orig) + 9;   /* the first offset's field */
    static const struct {
        const char *what;
        long off;           /* -1: append */
        const char *bytes;
    } cases[] = {
        {"appended to", -1, "# a line more\n"},
        {"an offset one byte on", 0, NULL},
        {"an offset into the header", 0, "           1"},
        {"an offset past the end", 0, "999999999999"},
        {"zeros (never patched)", 0, "           0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(orig, 1, len, f) == len);
        fclose(f);
        if (cases[c].off < 0) {
            f = fopen(path, "ab");
            fputs(cases[c].bytes, f);
            fclose(f);
        } else if (cases[c].bytes) {
            poke(path, first, cases[c].bytes, 12);
        } else {
            char field[13];
            memcpy(field, orig + first, 12);
            field[12] = 0;
            char moved[32];
            snprintf(moved, sizeof moved, "%12lld", atoll(field) + 1);
            poke(path, first, moved, 12);
        }
        strbuf a = STRBUF_INIT, b = STRBUF_INIT;
        whole(path, &a);
        sliced(path, 64, &b);
        if (last_indexed || strcmp(a.buf, b.buf)) {
            fprintf(stderr, "an index %s: %s\n", cases[c].what, last_indexed ? "trusted" : "routes differently");
            CHECK(0);
        }
        strbuf_release(&a);
        strbuf_release(&b);
    }
    free(orig);
    unlink(path);
    strbuf_release(&want);
    strbuf_release(&got);
}

/* A stream that cannot seek back gets no index: the file stands. */
static void test_no_index_into_a_pipe(void)
{
    session *s = made(20, 3, 10, KSTAT_NAN);
    size_t *at, n;
    route_session_picks(s, &at, &n);
    CHECK(n >= 2 && n < 20);   /* the nan kernel, its producer, the last of each name: not every launch */
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "w");
    strbuf err = STRBUF_INIT;
    CHECK(session_write_indexed(s, w, at, n, &err) == 0);
    fclose(w);
    strbuf text = STRBUF_INIT;
    char buf[4096];
    ssize_t k;
    while ((k = read(fds[0], buf, sizeof buf)) > 0)
        strbuf_add(&text, buf, (size_t)k);
    close(fds[0]);
    CHECK(!strstr(text.buf, "\nindex:"));
    session *back = NULL;
    CHECK(session_load_mem("pipe", text.buf, text.len, &back, &err) == 0 && back->nevents == 20);
    session_free(back);
    free(at);
    session_free(s);
    strbuf_release(&text);
    strbuf_release(&err);
}

static void test_nan_without_event_walks_back(void)
{
    session *s = made(400, 7, 390, KSTAT_NAN);
    char path[64];
    save_tmp(s, path);
    session_free(s);
    same_and_small(path, 2, "nan-inf");   /* the nan kernel and the producer of its input (no package: no kernel by name) */
    strbuf b = STRBUF_INIT;
    sliced(path, 1, &b);
    CHECK_CONTAINS(b.buf, "written by #7 cpp_fused_mid_2");   /* found by the read back */
    strbuf_release(&b);
    unlink(path);
}

/* Status nan with statistics that show none (a runner's check the hunt cannot
 * see): the router's fact comes from the status alone. */
static void test_status_nan_alone(void)
{
    session *s = made(300, 7, 290, KSTAT_NAN);
    s->kernels[290]->u.kernel.tensors[1].stats.nan = 0;
    s->kernels[290]->u.kernel.tensors[1].stats.finite = 4;
    event *e = session_add_event(s, EV_ERROR);   /* names a launch: no kernel kept by its name */
    e->u.error.text = "RuntimeError: the run stopped";
    e->u.error.kernel_index = 295;
    char path[64];
    save_tmp(s, path);
    session_free(s);
    same_and_small(path, 3, "kernel #290: aotidbg kernel: #290 cpp_fused_log_1 (cpp) wrote NaN/Inf");
    unlink(path);
}

static void test_error_names_a_kernel_long_gone(void)
{
    session *s = made(300, 5, 299, KSTAT_OK);
    s->kernels[299]->u.kernel.tensors[1].stats.nan = 0;
    s->kernels[299]->u.kernel.tensors[1].stats.finite = 4;
    event *first = session_add_event(s, EV_ERROR);   /* the router follows the first error that names a kernel */
    first->u.error.text = "RuntimeError: an earlier error of no kernel";
    for (int i = 0; i < 40; i++) {
        event *l = session_add_event(s, EV_LOG);
        l->u.log.stream = "stderr";
        l->u.log.text = "warning: something else";
    }
    event *e = session_add_event(s, EV_ERROR);
    e->u.error.text = "RuntimeError: index 9 is out of bounds for dimension 0 with size 4";
    e->u.error.kernel_index = 5;
    char path[64];
    save_tmp(s, path);
    session_free(s);
    same_and_small(path, 1, NULL);   /* kernel 5 alone */
    unlink(path);
}

/* A Triton assert names its kernel, no event names a launch: the element
 * comes from the before-tensors of that kernel's last launch (oob_element.c,
 * through the package's generated code: here a wrapper.cpp). */
static void test_assert_kernel_by_name(void)
{
    static const char w[] =
        "/*\n@triton.jit\n"
        "def triton_poi_fused_embedding_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
        "    x1 = xindex // 16\n"
        "    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')\n"
        "    tl.device_assert(((0 <= tmp0) & (tmp0 < 100)) | ~(xmask), \"index out of bounds: 0 <= tmp0 < 100\")\n"
        "    tmp6 = tl.load(in_ptr1 + (x0 + 16*tmp0), xmask)\n"
        "    tl.store(out_ptr0 + (x2), tmp6, xmask)\n*/\n"
        "    call_triton_poi_fused_embedding_0(arg1_1, arg0_1, buf0, 128L, this->device_idx_, stream, kernels);\n";
    char wpath[] = "/tmp/test_route_load_XXXXXX.wrapper.cpp";
    int fd = mkstemps(wpath, 12);
    CHECK(fd >= 0 && write(fd, w, sizeof w - 1) == (ssize_t)(sizeof w - 1));
    close(fd);
    session *s = session_new();
    s->tool_version = AOTIDBG_VERSION;
    s->torch_version = "2.13.0";
    s->host = "test";
    s->device = "cuda:0";
    s->package.path = wpath;
    for (int k = 0; k < 200; k++) {
        kernel_event *ke = &session_add_event(s, EV_KERNEL)->u.kernel;
        int emb = k % 10 == 0;
        ke->name = emb ? "triton_poi_fused_embedding_0" : "triton_poi_fused_mid_1";
        ke->type = KTYPE_TRITON;
        ke->status = KSTAT_OK;
        ke->ntensors = 1;
        ke->tensors = tensors(s, 1);
        tensor_rec *t = &ke->tensors[0];
        tensor(s, t, emb ? "arg1_1" : "buf3", PHASE_BEFORE, 1, 0, 0);
        t->shape = arena_alloc(&s->arena, 2 * sizeof(int64_t));
        t->strides = arena_alloc(&s->arena, 2 * sizeof(int64_t));
        t->ndim = 2, t->shape[0] = 2, t->shape[1] = 4, t->strides[0] = 4, t->strides[1] = 1;
        t->dtype = "int64";
        t->has_stats = 0;
        t->nvalues = 8;
        t->values = arena_alloc(&s->arena, 8 * sizeof(double));
        t->values_complete = 1;
        for (int i = 0; i < 8; i++)
            t->values[i] = i == 6 ? (k == 190 ? 137 : 5) : 1;   /* only the last launch holds the bad index */
    }
    event *e = session_add_event(s, EV_ERROR);
    e->u.error.text = "k.py:30: unknown: block: [1,0,0], thread: [2,0,0] Assertion `index out of bounds: "
                      "0 <= tmp0 < 100` failed.";
    char path[64];
    save_tmp(s, path);
    session_free(s);
    same_and_small(path, 2, "index_value   137");   /* one kernel a name */
    unlink(path);
    unlink(wpath);
}

int main(void)
{
    strbuf err = STRBUF_INIT;
    if (router_rules_load(&rules, AOTIDBG_SOURCE_DIR "/core/router/routes.yaml", &err)) {
        fprintf(stderr, "rules: %s\n", err.buf);
        return 1;
    }
    nftw(AOTIDBG_SOURCE_DIR "/sessions", collect, 16, FTW_PHYS);
    nftw(AOTIDBG_SOURCE_DIR "/tests", collect, 16, FTW_PHYS);
    RUN(test_every_session_routes_the_same);
    RUN(test_every_session_by_its_index);
    RUN(test_index_that_misfits_is_not_trusted);
    RUN(test_no_index_into_a_pipe);
    RUN(test_copy_dumps_as_source);
    RUN(test_nan_without_event_walks_back);
    RUN(test_status_nan_alone);
    RUN(test_error_names_a_kernel_long_gone);
    RUN(test_assert_kernel_by_name);
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    router_rules_free(rules);
    strbuf_release(&err);
    return CHECK_DONE();
}
