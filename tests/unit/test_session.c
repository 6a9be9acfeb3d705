/* test_session.c — session files: write, read back, dump; truncation at every
 * byte; the malformed corpus (tests/malformed/) and big hostile files made
 * at test time; the streaming writer. */
#define _GNU_SOURCE
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "kernel_times.h"
#include "session_io.h"
#include "session_mem.h"

#ifndef AOTIDBG_SOURCE_DIR
#define AOTIDBG_SOURCE_DIR "."
#endif

static tensor_rec mk_tensor(session *s, const char *name, tensor_phase ph, int ndim, const int64_t *shape,
                            double min, double max, uint64_t nan, uint64_t pinf)
{
    tensor_rec t = {0};
    t.name = arena_strdup(&s->arena, name);
    t.phase = ph;
    t.ndim = ndim;
    if (ndim) {
        t.shape = arena_memdup(&s->arena, shape, (size_t)ndim * sizeof(int64_t));
        t.strides = arena_alloc(&s->arena, (size_t)ndim * sizeof(int64_t));
        int64_t st = 1;
        for (int i = ndim - 1; i >= 0; i--) {
            t.strides[i] = st;
            st *= shape[i];
        }
    }
    t.dtype = "float32";
    t.device = "cpu";
    t.has_stats = 1;
    t.stats = (tensor_stats){64, 64 - nan - pinf, nan, pinf, 0, 3, 1, min, max, (min + max) / 3, 0.1 + min * min};
    return t;
}

/* A session touching every field, kind, and awkward string. */
static session *build_session(void)
{
    session *s = session_new();
    s->tool_version = "0.1.0";
    s->torch_version = "2.13.0";
    s->host = "box-1";
    s->gpu = "NVIDIA H200";
    s->title = "Walkthrough: \"index\" out of bounds\nsecond line";
    s->package = (package_info){"/tmp/m odel.pt2", "ab12", "model", "cuda", "90", "avx2"};
    s->device = "cuda:0";
    s->printer_level = 1;
    s->mode = "printer";
    session_set_flag(s, "CUDA_LAUNCH_BLOCKING", "1");
    session_set_flag(s, "AOTI_RUNTIME_CHECK_INPUTS", "0");
    s->ninputs = 2;
    s->inputs = arena_alloc(&s->arena, 2 * sizeof *s->inputs);
    s->inputs[0] = (input_spec){.ndim = 2, .shape = {4, 16}, .dtype = "float32", .device = "cpu", .fill = FILL_RANDN,
                                .seed = 42};
    s->inputs[1] = (input_spec){.ndim = 1, .shape = {3}, .dtype = "int64", .device = "cuda:0", .fill = FILL_FULL,
                                .value = 0.1, .file = "x y.npy", .key = "w", .has_strides = 1, .strides = {2}};
    s->nchecks = 2;
    s->checks = arena_alloc(&s->arena, 2 * sizeof *s->checks);
    s->checks[0] = (check_row){"device.compile-vs-load", CHECK_FAIL, "compile device vs load device", "cuda", "cpu",
                               "metadata AOTI_DEVICE_KEY", "pass --device cuda"};
    s->checks[1] = (check_row){"input.0.dtype", CHECK_PASS, "input 0 dtype", NULL, NULL, "wrapper.cpp:789", NULL};
    session_add_bookmark(s, 1, "NaN starts here: \u00e9\u00e8 \xe2\x9c\x93");
    session_add_note(s, "note with 'quotes' and \"double\" and a \\ backslash");
    session_add_note(s, "tab\there, bell\x07, DEL\x7f, NEL \xc2\x85, LS \xe2\x80\xa8, emoji \xf0\x9f\x98\x80");
    session_add_note(s, "");
    session_add_note(s, "null");
    session_add_note(s, "123");
    session_add_note(s, "- starts like a list: {x}, [y] # not a comment");
    s->nnarration = 1;
    s->narration = arena_alloc(&s->arena, sizeof *s->narration);
    s->narration[0] = (narration_step){"Press n to step.", "kernels", 0, "step", "#1 kernel"};
    s->end_state = "signal 11 (SIGSEGV)";   /* the runner-exit below */

    int64_t sh[2] = {4, 16};
    event *e = session_add_event(s, EV_KERNEL);
    e->t_ms = 0.1;
    kernel_event *k = &e->u.kernel;
    k->name = "cpp_fused_add_0";
    k->type = KTYPE_CPP;
    k->status = KSTAT_OK;
    k->duration_us = 12.5;
    k->source = "printer";
    k->ntensors = 2;
    k->tensors = arena_alloc(&s->arena, 2 * sizeof *k->tensors);
    k->tensors[0] = mk_tensor(s, "buf0", PHASE_BEFORE, 2, sh, -1.5, 2.25, 0, 0);
    k->tensors[1] = mk_tensor(s, "buf0", PHASE_AFTER, 2, sh, 1.0 / 3.0, 1e300, 2, 1);
    k->tensors[1].stats.has_at = 1;   /* positions (flat): [0, 5], [3, 15], none for NaN/Inf */
    k->tensors[1].stats.at.min = 5;
    k->tensors[1].stats.at.max = 63;
    k->tensors[1].stats.at.nonfinite = -1;
    k->tensors[1].nvalues = 6;
    k->tensors[1].values = arena_alloc(&s->arena, 6 * sizeof(double));
    double vals[6] = {NAN, INFINITY, -INFINITY, -0.0, 5e-324, DBL_MAX};
    memcpy(k->tensors[1].values, vals, sizeof vals);

    e = session_add_event(s, EV_KERNEL);
    e->u.kernel.name = "triton_poi_fused_1";
    e->u.kernel.type = KTYPE_TRITON;
    e->u.kernel.status = KSTAT_NAN;
    e->u.kernel.duration_us = 3.0;
    e->u.kernel.ntensors = 1;
    e->u.kernel.tensors = arena_alloc(&s->arena, sizeof(tensor_rec));
    e->u.kernel.tensors[0] = mk_tensor(s, "buf1", PHASE_AFTER, 0, NULL, NAN, NAN, 64, 0);
    e->u.kernel.tensors[0].stats.finite = 0;

    e = session_add_event(s, EV_ERROR);
    e->t_ms = 2.5;
    e->u.error.text = "Assertion `index out of bounds: 0 <= tmp3 < ks0` failed.\nError: \"x\"";
    e->u.error.route = "triton-index-oob";
    e->u.error.kernel_index = 1;
    e->u.error.nfields = 2;
    e->u.error.fields = arena_alloc(&s->arena, 2 * sizeof(kv_pair));
    e->u.error.fields[0] = (kv_pair){"tmp", "tmp3"};
    e->u.error.fields[1] = (kv_pair){"bound expr", "(-1) + ks0"};

    e = session_add_event(s, EV_OUTPUT);
    e->u.output.ntensors = 1;
    e->u.output.tensors = arena_alloc(&s->arena, sizeof(tensor_rec));
    e->u.output.tensors[0] = mk_tensor(s, "output0", PHASE_OUTPUT, 2, sh, 0, 1, 0, 0);

    e = session_add_event(s, EV_LOG);
    e->u.log.stream = "stderr";
    e->u.log.text = "W1130 warning: \xe2\x80\x9csmart quotes\xe2\x80\x9d";

    e = session_add_event(s, EV_RUNNER_EXIT);
    e->u.exit.how = "signal";
    e->u.exit.signal = 11;
    e->u.exit.exit_code = 0;
    e->u.exit.stderr_tail = "Segmentation fault\n";
    return s;
}

/* "name:L:C: " at the start of msg. */
static int has_location(const char *msg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(msg, name, n) || msg[n] != ':')
        return 0;
    regex_t re;
    regcomp(&re, "^:[1-9][0-9]*:[1-9][0-9]*: found .*, expected ", REG_EXTENDED);
    int ok = regexec(&re, msg + n, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

static void test_round_trip(void)
{
    session *s = build_session();
    size_t len;
    char *yaml = write_mem(s, &len);
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    int rc = session_load_mem("rt.yaml", yaml, len, &r, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n%s\n", err.buf, yaml);
        free(yaml);
        session_free(s);
        return;
    }
    CHECK(r->nwarnings == 0);
    char *d1 = dump_mem(s), *d2 = dump_mem(r);
    CHECK_STR(d2, d1);
    /* Writing the loaded session gives the same bytes. */
    size_t len2;
    char *yaml2 = write_mem(r, &len2);
    CHECK(len2 == len && !memcmp(yaml, yaml2, len));
    /* Exact values, bit for bit. */
    const tensor_rec *t = &r->events[0]->u.kernel.tensors[1];
    CHECK(t->nvalues == 6);
    CHECK(isnan(t->values[0]) && t->values[1] == INFINITY && t->values[2] == -INFINITY);
    CHECK(t->values[3] == 0 && signbit(t->values[3]));
    CHECK(t->values[4] == 5e-324 && t->values[5] == DBL_MAX);
    CHECK(t->stats.min == 1.0 / 3.0 && t->stats.max == 1e300);
    CHECK(r->events[0]->t_ms == 0.1);
    CHECK(isnan(r->events[1]->u.kernel.tensors[0].stats.min));
    CHECK_STR(r->notes[1], s->notes[1]);
    CHECK_STR(r->title, s->title);
    CHECK(r->nkernels == 2 && r->kernels[1]->u.kernel.index == 1);
    CHECK(r->inputs[1].has_strides && r->inputs[1].strides[0] == 2);
    CHECK_CONTAINS(d2, "#0 kernel cpp_fused_add_0 [cpp] ok 12.5us");
    CHECK_CONTAINS(d2, "#1 kernel triton_poi_fused_1 [triton] nan 3us");
    CHECK_CONTAINS(d2, "min=0.333333 max=1e+300");
    CHECK_CONTAINS(d2, " subnormal=1 at={min=5 max=63}\n");
    CHECK_CONTAINS(yaml, "subnormal: 1, at: {min: 5, max: 63}}");
    CHECK(t->stats.has_at && t->stats.at.min == 5 && t->stats.at.max == 63 && t->stats.at.nonfinite == -1);
    CHECK(!r->events[0]->u.kernel.tensors[0].stats.has_at);
    free(yaml2);
    free(d1);
    free(d2);
    free(yaml);
    session_free(r);
    session_free(s);
    strbuf_release(&err);
}

static void test_invalid_utf8_written_safely(void)
{
    session *s = session_new();
    session_add_note(s, "bad \xff\xfe bytes \xc3 end");
    event *e = session_add_event(s, EV_LOG);
    e->u.log.stream = "stdout";
    e->u.log.text = "\xed\xa0\x80 surrogate";
    size_t len;
    char *yaml = write_mem(s, &len);
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load_mem("u.yaml", yaml, len, &r, &err) == 0);
    if (r) {
        CHECK_STR(r->notes[0], "bad \xef\xbf\xbd\xef\xbf\xbd bytes \xef\xbf\xbd end");
        session_free(r);
    } else {
        fprintf(stderr, "%s\n", err.buf);
    }
    free(yaml);
    session_free(s);
    strbuf_release(&err);
}

/* Cut the file at every byte: each prefix loads (maybe cut off) or fails
 * with file:line:col; past the header it always loads, with every event
 * whose line was complete. */
static void test_truncate_every_byte(void)
{
    session *s = build_session();
    size_t len;
    char *yaml = write_mem(s, &len);
    const char *ev = strstr(yaml, "\nevents:\n");
    CHECK(ev != NULL);
    size_t events_at = (size_t)(ev - yaml) + 9;
    char *d_full = dump_mem(s);
    int fails = 0, loads = 0, bad_msgs = 0, wrong_count = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        session *r = NULL;
        strbuf err = STRBUF_INIT;
        /* a heap copy of exactly cut bytes, so ASan sees any overread */
        char *p = malloc(cut ? cut : 1);
        memcpy(p, yaml, cut);
        int rc = session_load_mem("cut.yaml", p, cut, &r, &err);
        if (rc) {
            fails++;
            if (!has_location(err.buf, "cut.yaml")) {
                if (bad_msgs++ < 3)
                    fprintf(stderr, "cut %zu: bad message: %s\n", cut, err.buf);
            }
            if (cut >= events_at && wrong_count++ < 3)
                fprintf(stderr, "cut %zu (past the header) failed: %s\n", cut, err.buf);
        } else {
            loads++;
            /* events whose closing brace is before the cut are complete */
            size_t complete = 0;
            for (size_t i = events_at; i < cut; i++)
                if (yaml[i] == '}' && yaml[i + 1] == '\n' && (i + 2 >= len || yaml[i + 2] == '-'))
                    complete++;
            if (cut >= events_at) {
                if (r->nevents != complete) {
                    if (wrong_count++ < 3)
                        fprintf(stderr, "cut %zu: %zu events, want %zu\n", cut, r->nevents, complete);
                }
                if (r->truncated && strcmp(r->end_state, "cut-off"))
                    wrong_count++;
                if (cut == len) {
                    char *d = dump_mem(r);
                    CHECK_STR(d, d_full);
                    free(d);
                }
            }
            session_free(r);
        }
        free(p);
        strbuf_release(&err);
    }
    CHECK(bad_msgs == 0);
    CHECK(wrong_count == 0);
    CHECK(loads > 0 && fails > 0);
    printf("truncation: %zu offsets, %d loaded, %d refused\n", len + 1, loads, fails);
    free(d_full);
    free(yaml);
    session_free(s);
}

static int load_file_fails_with_location(const char *path)
{
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    int rc = session_load(path, &r, &err);
    int ok = rc != 0 && has_location(err.buf, path);
    if (!ok)
        fprintf(stderr, "%s: rc=%d msg=%s\n", path, rc, err.buf);
    session_free(r);
    strbuf_release(&err);
    return ok;
}

static void test_malformed_corpus(void)
{
    const char *dir = AOTIDBG_SOURCE_DIR "/tests/malformed";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".yaml"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        n++;
        if (!load_file_fails_with_location(path))
            check_cur_failed_ = 1;
    }
    closedir(d);
    CHECK(n >= 10);
    printf("malformed corpus: %d files refused\n", n);
}

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static void test_big_hostile(void)
{
    const char *head = "format_version: \"1.0\"\nevents:\n";
    /* 10,000 levels of nesting */
    FILE *f = fopen(tmp_path("deep.yaml"), "w");
    fputs(head, f);
    fputs("- {kind: log, stream: stdout, text: ", f);
    for (int i = 0; i < 10000; i++)
        fputc('[', f);
    for (int i = 0; i < 10000; i++)
        fputc(']', f);
    fputs("}\n", f);
    fclose(f);
    CHECK(load_file_fails_with_location(tmp_path("deep.yaml")));

    f = fopen(tmp_path("deepblock.yaml"), "w");
    fputs(head, f);
    for (int i = 0; i < 10000; i++)
        fprintf(f, "%*s- \n", i, "");
    fclose(f);
    CHECK(load_file_fails_with_location(tmp_path("deepblock.yaml")));

    /* billion laughs, in a sequence */
    f = fopen(tmp_path("laughs.yaml"), "w");
    fputs("format_version: \"1.0\"\nnotes:\n  - &a lol\n  - [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nevents: []\n", f);
    fclose(f);
    CHECK(load_file_fails_with_location(tmp_path("laughs.yaml")));

    /* a 100 MB scalar */
    f = fopen(tmp_path("big.yaml"), "w");
    fputs("format_version: \"1.0\"\nnotes:\n  - \"", f);
    char line[1 << 16];
    memset(line, 'x', sizeof line);
    for (int i = 0; i < 100 * 16; i++)
        fwrite(line, 1, sizeof line, f);
    fputs("\"\nevents: []\n", f);
    fclose(f);
    CHECK(load_file_fails_with_location(tmp_path("big.yaml")));
    unlink(tmp_path("big.yaml"));
    unlink(tmp_path("deep.yaml"));
    unlink(tmp_path("deepblock.yaml"));
    unlink(tmp_path("laughs.yaml"));
}

static void test_versions_and_warnings(void)
{
    const char *newer_minor = "format_version: \"1.7\"\nhologram: {a: 1}\nevents:\n"
                              "- {kind: kernel, index: 0, name: k, sparkle: 3}\n"
                              "- {kind: teleport, where: mars}\n";
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load_mem("m.yaml", newer_minor, strlen(newer_minor), &r, &err) == 0);
    if (r) {
        CHECK(r->nwarnings == 4);
        CHECK(r->nevents == 1);
        CHECK(r->format_minor == 7);
        for (size_t i = 0; i < r->nwarnings; i++)
            CHECK(strncmp(r->warnings[i], "m.yaml:", 7) == 0);
        session_free(r);
    }
    const char *newer_major = "format_version: \"2.0\"\nevents: []\n";
    strbuf_reset(&err);
    CHECK(session_load_mem("M.yaml", newer_major, strlen(newer_major), &r, &err) != 0);
    CHECK(has_location(err.buf, "M.yaml"));
    CHECK_CONTAINS(err.buf, "newer aotidbg");
    /* a UTF-8 byte order mark and `events: ~` are fine */
    const char *bom = "\xef\xbb\xbf" "format_version: \"1.0\"\nevents: ~\n";
    CHECK(session_load_mem("bom.yaml", bom, strlen(bom), &r, &err) == 0);
    if (r) {
        CHECK(r->nevents == 0 && r->nwarnings == 0);
        session_free(r);
    }
    /* bookmarks pointing past the events: a warning, not an error */
    const char *bm = "format_version: \"1.0\"\nbookmarks:\n  - {event: 9, note: x}\nevents: []\n";
    CHECK(session_load_mem("b.yaml", bm, strlen(bm), &r, &err) == 0);
    if (r) {
        CHECK(r->nwarnings == 1);
        session_free(r);
    }
    /* counts: that the list bears out; fewer events (a cut at an event's end: cut-off); more events
     * or kernels than it says (a warning); and half a key (refused) */
    const struct {
        const char *counts, *warning;
        int cut;
    } cnt[] = {
        {"{events: 1, kernels: 1}", NULL, 0},
        {"{events: 2, kernels: 1}", "cut off after event #0: the file holds 1 of the 2 events its counts: key says", 1},
        {"{events: 2, kernels: 0}", "counts: says 2 events (0 kernels); the file holds 1 (1 kernels)", 0},
        {"{events: 0, kernels: 0}", "counts: says 0 events (0 kernels); the file holds 1 (1 kernels)", 0},
    };
    for (size_t i = 0; i < sizeof cnt / sizeof cnt[0]; i++) {
        char y[256];
        snprintf(y, sizeof y, "format_version: \"1.0\"\nend_state: complete\ncounts: %s\nevents:\n"
                 "- {kind: kernel, index: 0, name: k, status: ok}\n", cnt[i].counts);
        CHECK(session_load_mem("n.yaml", y, strlen(y), &r, &err) == 0);
        if (r) {
            CHECK(r->nevents == 1 && r->truncated == cnt[i].cut);
            CHECK(r->nwarnings == (cnt[i].warning != NULL));
            if (cnt[i].warning && r->nwarnings)
                CHECK_CONTAINS(r->warnings[0], cnt[i].warning);
            CHECK(!strcmp(r->end_state, cnt[i].cut ? "cut-off" : "complete"));
            session_free(r);
        }
    }
    const char *half = "format_version: \"1.0\"\ncounts: {events: 1}\nevents: []\n";
    strbuf_reset(&err);
    CHECK(session_load_mem("h.yaml", half, strlen(half), &r, &err) != 0);
    CHECK_CONTAINS(err.buf, "'kernels'");
    strbuf_release(&err);
}

static void test_cut_off_notice(void)
{
    const char *cut = "format_version: \"1.0\"\nend_state: running\nevents:\n"
                      "- {kind: kernel, index: 0, name: k0, status: ok}\n"
                      "- {kind: kernel, index: 1, name: k1, tensors: [\n    {name: buf0, pha";
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load_mem("c.yaml", cut, strlen(cut), &r, &err) == 0);
    if (r) {
        CHECK(r->truncated == 1);
        CHECK(r->nevents == 1);
        CHECK_STR(r->end_state, "cut-off");
        CHECK(r->nwarnings == 1);
        CHECK_CONTAINS(r->warnings[0], "cut off after event #0");
        session_free(r);
    } else {
        fprintf(stderr, "%s\n", err.buf);
    }
    strbuf_release(&err);
}

static size_t file_events(const char *path, int *truncated)
{
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    size_t n = (size_t)-1;
    if (session_load(path, &r, &err) == 0) {
        n = r->nevents;
        *truncated = r->truncated;
        session_free(r);
    } else {
        fprintf(stderr, "%s\n", err.buf);
    }
    strbuf_release(&err);
    return n;
}

static void test_streaming_writer(void)
{
    const char *path = tmp_path("stream.yaml");
    session *s = session_new();
    s->device = "cpu";
    session_writer *w = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_writer_open(&w, path, s, &err) == 0);
    int tr = -1;
    CHECK(file_events(path, &tr) == 0 && tr == 0);
    for (int i = 0; i < 5; i++) {
        event *e = session_add_event(s, EV_KERNEL);
        e->u.kernel.name = "cpp_fused_0";
        e->u.kernel.status = KSTAT_PENDING;
        CHECK(session_writer_sync(w, &err) == 0);
        /* the pending kernel is held back until it ends */
        CHECK(file_events(path, &tr) == (size_t)i);
        e->u.kernel.status = KSTAT_OK;
        CHECK(session_writer_sync(w, &err) == 0);
        CHECK(file_events(path, &tr) == (size_t)i + 1);
    }
    /* Events a recorder may still fold stay out of the stream until settled. */
    s->nevents_held = 2;
    for (int i = 0; i < 2; i++) {
        event *h = session_add_event(s, EV_KERNEL);
        h->u.kernel.name = "cpp_fused_loop";
        h->u.kernel.status = KSTAT_OK;
    }
    CHECK(session_writer_sync(w, &err) == 0);
    CHECK(file_events(path, &tr) == 5);
    s->nevents_held = 0;
    CHECK(session_writer_sync(w, &err) == 0);
    CHECK(file_events(path, &tr) == 7);
    /* A restart clears the events: the list starts over. */
    s->nevents = s->nkernels = 0;
    event *e = session_add_event(s, EV_LOG);
    e->u.log.stream = "stdout";
    e->u.log.text = "after restart";
    CHECK(session_writer_sync(w, &err) == 0);
    CHECK(file_events(path, &tr) == 1);
    e = session_add_event(s, EV_RUNNER_EXIT);
    e->u.exit.how = "exited";
    CHECK(session_writer_sync(w, &err) == 0);
    /* What a killed front end leaves: the streamed file, end_state running. */
    session *r = NULL;
    CHECK(session_load(path, &r, &err) == 0);
    if (r) {
        CHECK_STR(r->end_state, "running");
        CHECK(r->nevents == 2);
        CHECK(r->counts.events == -1);   /* the stream's header cannot know its counts */
        session_free(r);
    }
    s->counts.events = 99;   /* a claim read from another file: the save writes what it holds */
    CHECK(session_writer_finish(w, NULL, 0, &err) == 0);
    CHECK(session_load(path, &r, &err) == 0);
    if (r) {
        CHECK_STR(r->end_state, "exited 0");   /* no end_state given: the runner-exit says how it ended */
        CHECK(r->counts.events == 2 && r->counts.kernels == 0 && r->nwarnings == 0);
        char *d1 = dump_mem(r);
        session_free(r);
        s->end_state = "exited 0";
        char *d2 = dump_mem(s);
        CHECK_STR(d1, d2);
        free(d1);
        free(d2);
    }
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CHECK(access(tmp, F_OK) != 0);
    unlink(path);
    session_free(s);
    strbuf_release(&err);
}

/* A sub-mapping that holds only keys this version does not know (as a newer
 * minor version may write) loads, and is written back as an empty mapping
 * that loads again (fuzz_session's finding: `eager:` with no value, refused
 * as "found an empty value"). Seed: corpus/session/eager_unknown_keys_only.yaml. */
static void test_unknown_keys_only_round_trip(void)
{
    const char *y = "format_version: \"1.3\"\neager:\n  from_the_future: 1\npackage:\n  sparkle: 2\n"
                    "events:\n- {kind: log, stream: stdout, text: hi}\n";
    session *r = NULL, *r2 = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load_mem("u.yaml", y, strlen(y), &r, &err) == 0);
    if (!r)
        return;
    CHECK(r->eager.present);
    size_t len = 0;
    char *w = write_mem(r, &len);
    CHECK_CONTAINS(w, "\neager: {}\n");
    CHECK(session_load_mem("u2.yaml", w, len, &r2, &err) == 0);
    if (r2) {
        CHECK(r2->eager.present && r2->nevents == 1 && r2->nwarnings == 0);
        size_t len2 = 0;
        char *w2 = write_mem(r2, &len2);
        CHECK_STR(w, w2);   /* a fixed point */
        free(w2);
        session_free(r2);
    } else {
        fprintf(stderr, "%s\n%s\n", err.buf, w);
    }
    free(w);
    session_free(r);
    strbuf_release(&err);
}

/* A writer killed without an end (the front end's SIGKILL): a child streams
 * two kernels and dies. The file, with end_state running and nobody holding
 * its lock, reads as cut-off with the last kernel seen and the time; the
 * stale .lock it left goes at the next writer's start in that folder. */
static void test_killed_writer_reads_cut(void)
{
    char path[600], lock[620], other[600];
    snprintf(path, sizeof path, "%s", tmp_path("killed.yaml"));
    snprintf(lock, sizeof lock, "%s.lock", path);
    snprintf(other, sizeof other, "%s", tmp_path("next.yaml"));
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        session *s = session_new();
        session_writer *w = NULL;
        strbuf err = STRBUF_INIT;
        if (session_writer_open(&w, path, s, &err))
            _exit(3);
        for (int i = 0; i < 2; i++) {
            event *e = session_add_event(s, EV_KERNEL);
            e->t_ms = 10.0 * (i + 1);
            e->u.kernel.index = i;
            e->u.kernel.name = i ? "cpp_fused_mul_1" : "cpp_fused_add_0";
            e->u.kernel.status = KSTAT_OK;
        }
        if (session_writer_sync(w, &err))
            _exit(4);
        /* while it lives, the file is running, not cut */
        session *r = NULL;
        if (session_load(path, &r, &err) || strcmp(r->end_state, "running"))
            _exit(5);
        session_free(r);
        if (write(ready[1], "x", 1) != 1)
            _exit(6);
        pause();   /* killed here: no finish, no unlock */
        _exit(7);
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    close(ready[0]);
    close(ready[1]);
    CHECK(access(lock, F_OK) == 0);   /* what SIGKILL leaves */
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load(path, &r, &err) == 0);
    if (r) {
        CHECK(r->nevents == 2 && !r->truncated);
        CHECK_CONTAINS(r->end_state, "cut-off: the writer ended without its final save, after kernel 1 cpp_fused_mul_1 "
                       "(t=20 ms); last written ");
        CHECK_CONTAINS(r->end_state, " UTC");
        CHECK(r->nwarnings == 1);
        if (r->nwarnings)
            CHECK_CONTAINS(r->warnings[0], "the recording was cut");
        char *d = dump_mem(r);
        CHECK_CONTAINS(d, "\nend_state: cut-off: the writer ended without its final save");
        free(d);
        session_free(r);
    }
    /* the streaming reader says the same */
    session_reader *sr = NULL;
    CHECK(session_reader_open(path, &sr, &err) == 0);
    while (sr && session_reader_step(sr, 1, &err) > 0)
        session_reader_forget(sr);
    if (sr) {
        CHECK_CONTAINS(session_reader_session(sr)->end_state, "after kernel 1 cpp_fused_mul_1");
        session_reader_close(sr);
    }
    /* the next run's writer, to another file of that folder, removes the stale lock */
    session *s = session_new();
    session_writer *w = NULL;
    CHECK(session_writer_open(&w, other, s, &err) == 0);
    CHECK(access(lock, F_OK) != 0);
    CHECK(session_writer_finish(w, NULL, 0, &err) == 0);
    /* a recording over an existing file streams to FILE.part, under FILE's lock: running while it lives */
    CHECK(session_writer_open(&w, path, s, &err) == 0);
    char part[620];
    snprintf(part, sizeof part, "%s.part", path);
    CHECK(session_load(part, &r, &err) == 0);
    if (r) {
        CHECK_STR(r->end_state, "running");
        session_free(r);
    }
    CHECK(session_writer_finish(w, NULL, 0, &err) == 0);
    CHECK(access(part, F_OK) != 0);
    unlink(other);
    unlink(path);
    session_free(s);
    strbuf_release(&err);
}

static void test_save_errors(void)
{
    session *s = session_new();
    strbuf err = STRBUF_INIT;
    CHECK(session_save(s, "/nonexistent-dir/x.yaml", &err) != 0);
    CHECK_CONTAINS(err.buf, "/nonexistent-dir/x.yaml.tmp");
    session *r = NULL;
    strbuf_reset(&err);
    CHECK(session_load("/nonexistent-dir/x.yaml", &r, &err) != 0);
    CHECK_CONTAINS(err.buf, "cannot open");
    session_free(s);
    strbuf_release(&err);
}

/* path read a slice of n events at a time (session_reader) and whole
 * (session_load): the same answer, message, warnings and dump. */
static int reader_matches_load(const char *path, size_t n)
{
    session *w = NULL;
    strbuf ew = STRBUF_INIT, er = STRBUF_INIT;
    int rw = session_load(path, &w, &ew);
    session_reader *r = NULL;
    int rr = session_reader_open(path, &r, &er), steps = 0;
    session *s = NULL;
    if (!rr) {
        s = session_reader_take(r);
        while ((rr = session_reader_step(r, n, &er)) == 1)
            steps++;
        CHECK(session_reader_step(r, n, &er) == rr);   /* done: the same answer again */
    }
    int ok = (rw < 0) == (rr < 0) && !strcmp(ew.buf, er.buf);
    if (ok && !rw) {
        char *dw = dump_mem(w), *ds = dump_mem(s);
        ok = !strcmp(dw, ds) && w->nwarnings == s->nwarnings;
        for (size_t i = 0; ok && i < w->nwarnings; i++)
            ok = !strcmp(w->warnings[i], s->warnings[i]);
        free(dw);
        free(ds);
    }
    if (!ok)
        fprintf(stderr, "%s (%zu an event): load rc=%d '%s', reader rc=%d '%s'\n", path, n, rw, ew.buf, rr, er.buf);
    session_reader_close(r);
    session_free(s);   /* an error after the header leaves the reader's events (taken): freed here */
    session_free(w);
    strbuf_release(&ew);
    strbuf_release(&er);
    (void)steps;
    return ok;
}

static const char *tmp_path(const char *name);

/* The reader a slice at a time gives what session_load gives: the malformed
 * corpus, the round-trip session, and that session cut at many places. */
/* check(path, n) on every file of the malformed corpus (n 1) and on the round-trip session cut
 * every 97 bytes, written to tmp_path(name) (n 2 for the whole file, 1 for a cut); the counts in
 * *files and *cuts. The file is left for the caller (unlinked by it). */
static void each_malformed_and_cut(int (*check)(const char *, size_t), const char *name, int *files, int *cuts)
{
    const char *dir = AOTIDBG_SOURCE_DIR "/tests/malformed";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *de;
    *files = *cuts = 0;
    while (d && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".yaml"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        (*files)++;
        CHECK(check(path, 1));
    }
    if (d)
        closedir(d);
    session *s = build_session();
    size_t len;
    char *yaml = write_mem(s, &len);
    const char *p = tmp_path(name);
    for (size_t cut = len; cut > 0; cut -= cut > 97 ? 97 : cut) {
        FILE *f = fopen(p, "wb");
        fwrite(yaml, 1, cut, f);
        fclose(f);
        CHECK(check(p, cut == len ? 2 : 1));
        (*cuts)++;
    }
    free(yaml);
    session_free(s);
}

static void test_reader_slices(void)
{
    int n, cuts;
    each_malformed_and_cut(reader_matches_load, "slices.yaml", &n, &cuts);
    unlink(tmp_path("slices.yaml"));
    printf("reader slices: %d malformed files and %d cuts read as session_load reads them\n", n, cuts);
}

/* The kernel time table of s as `replay --dump` prints it (rows rows). */
static char *times_mem(kernel_times *t, size_t rows)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kernel_times_print(t, f, rows, 120);
    fclose(f);
    return buf;
}

/* path read n events at a time with each slice dumped, added to a kernel
 * time table and freed (session_reader_forget, as `replay --dump` reads):
 * the same answer, message, warnings, dump and time table as session_load. */
static int forget_matches_load(const char *path, size_t n)
{
    session *w = NULL;
    strbuf ew = STRBUF_INIT, er = STRBUF_INIT;
    int rw = session_load(path, &w, &ew);
    session_reader *r = NULL;
    int rr = session_reader_open(path, &r, &er);
    char *evs = NULL, *head = NULL, *tail = NULL;
    size_t evlen = 0, hlen = 0, tlen = 0, fe = 0, fk = 0;
    kernel_times st;
    kernel_times_begin(&st, 30);
    int forgot = 0;
    if (!rr) {
        const session *s = session_reader_session(r);
        FILE *f = open_memstream(&evs, &evlen);
        do {
            rr = session_reader_step(r, n, &er);
            session_reader_forgotten(r, &fe, &fk);
            for (size_t i = 0; rr >= 0 && i < s->nevents; i++) {
                session_dump_event(s, fe + i, s->events[i], f);
                kernel_times_add(&st, s, s->events[i]);
            }
            if (rr > 0)
                forgot += session_reader_forget(r) == 0;
        } while (rr > 0);
        fclose(f);
        CHECK(session_reader_forget(r) == -1);   /* done: the last slice stays */
        if (!rr) {
            f = open_memstream(&head, &hlen);
            session_dump_head(s, fe + s->nevents, fk + s->nkernels, f);
            fclose(f);
            f = open_memstream(&tail, &tlen);
            session_dump_tail(s, f);
            fclose(f);
            kernel_times_end(&st, s);
        }
    }
    int ok = (rw < 0) == (rr < 0) && !strcmp(ew.buf, er.buf);
    if (ok && !rw) {
        const session *s = session_reader_session(r);
        char *dw = dump_mem(w);
        strbuf ds = STRBUF_INIT;
        strbuf_addf(&ds, "%s%s%s", head, evs, tail);
        ok = !strcmp(dw, ds.buf) && w->nwarnings == s->nwarnings;
        for (size_t i = 0; ok && i < w->nwarnings; i++)
            ok = !strcmp(w->warnings[i], s->warnings[i]);
        kernel_times wt;
        kernel_times_build(w, &wt);
        char *tw = times_mem(&wt, 30), *ts = times_mem(&st, 30);
        ok = ok && !strcmp(tw, ts);
        if (!ok)
            fprintf(stderr, "%s: whole dump %zu bytes, sliced %zu; times\n%s---\n%s", path, strlen(dw), ds.len, tw, ts);
        free(tw);
        free(ts);
        kernel_times_release(&wt);
        free(dw);
        strbuf_release(&ds);
    }
    if (!ok)
        fprintf(stderr, "%s (%zu an event, forgotten %d times): load rc=%d '%s', reader rc=%d '%s'\n", path, n, forgot,
                rw, ew.buf, rr, er.buf);
    kernel_times_release(&st);
    free(evs);
    free(head);
    free(tail);
    session_reader_close(r);
    session_free(w);
    strbuf_release(&ew);
    strbuf_release(&er);
    return ok;
}

/* A session of n kernels (device times with ties, some unknown), a fold, a
 * runner-exit and logs after it, no end_state: what the forgetting reader
 * must count, rank and derive as session_load does. */
static void write_many_kernels(const char *p, int n)
{
    session *s = session_new();
    s->device = "cuda";
    s->gpu = "NVIDIA H200";
    for (int i = 0; i < n; i++) {
        event *e = session_add_event(s, EV_KERNEL);
        e->t_ms = i;
        kernel_event *k = &e->u.kernel;
        k->name = i % 3 ? "triton_poi_fused_add_0" : "triton_red_fused_sum_1";
        k->type = KTYPE_TRITON;
        k->status = KSTAT_OK;
        k->duration_us = 5 + i % 7;
        /* the longest: #29, then #30-59 (a table kept while it fills must keep them), then ties and unknowns */
        k->device_us = i < 29 ? 0 : i == 29 ? 2000 : i < 60 ? 1000 + i : i % 11 == 0 ? -1 : (double)((i * 7919) % 997 / 3);
        if (i % 50 == 0) {
            fold_event *fo = &session_add_event(s, EV_FOLD)->u.fold;
            *fo = (fold_event){.loop = "while_loop_0", .from = 1, .to = 3, .first_kernel = i, .last_kernel = i,
                               .launches = 3, .end_ms = -1, .duration_us = -1};
        }
    }
    event *x = session_add_event(s, EV_RUNNER_EXIT);
    x->u.exit.how = "signal";
    x->u.exit.signal = 6;
    for (int i = 0; i < 5; i++) {
        event *l = session_add_event(s, EV_LOG);
        l->u.log.stream = "stderr";
        l->u.log.text = "after the exit";
    }
    s->end_state = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_save(s, p, &err) == 0);
    strbuf_release(&err);
    session_free(s);
}

/* A dump read a slice at a time, each slice freed once printed, prints what
 * session_load and session_dump print: the malformed corpus, the round-trip
 * session cut at many places, and a session of many kernels. */
static void test_reader_forget(void)
{
    int n, cuts;
    each_malformed_and_cut(forget_matches_load, "forget.yaml", &n, &cuts);
    const char *p = tmp_path("forget.yaml");
    write_many_kernels(p, 2000);
    for (size_t step = 1; step <= 4096; step *= 8)
        CHECK(forget_matches_load(p, step));
    session *w = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load(p, &w, &err) == 0 && w && w->nkernels == 2000);
    char buf[64];
    CHECK(w && !strcmp(session_end_state(w, buf, sizeof buf), "signal 6 (SIGABRT)"));
    session_free(w);
    strbuf_release(&err);
    unlink(p);
    printf("reader forget: %d malformed files, %d cuts and 2000 kernels dumped slice by slice as whole\n", n, cuts);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/aotidbg-test-session-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_round_trip);
    RUN(test_invalid_utf8_written_safely);
    RUN(test_truncate_every_byte);
    RUN(test_malformed_corpus);
    RUN(test_reader_slices);
    RUN(test_reader_forget);
    RUN(test_big_hostile);
    RUN(test_versions_and_warnings);
    RUN(test_cut_off_notice);
    RUN(test_streaming_writer);
    RUN(test_unknown_keys_only_round_trip);
    RUN(test_killed_writer_reads_cut);
    RUN(test_save_errors);
    rmdir(tmpdir);
    return CHECK_DONE();
}
