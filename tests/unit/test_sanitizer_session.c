/* test_sanitizer_session.c — compute-sanitizer's reports recorded on the H200
 * (tests/data/memcheck/) turned into memcheck events of a session whose
 * launch carries the tensor table a --memcheck run records (core/run/sanitizer.h). */
#include <stdlib.h>
#include <unistd.h>
#include <inttypes.h>
#include "addr_map.h"
#include "check.h"
#include "sanitizer.h"
#include "session_read.h"
#include "session_write.h"

static const char *data(const char *name)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/tests/data/memcheck/%s", AOTIDBG_SOURCE_DIR, name);
    return path[k];
}

/* The gather of gather_row9_memcheck: table float32 [8, 4] where the XML run had it, idx int64 [3] = 9. */
static session *gather_session(uint64_t table_at)
{
    static int64_t sh84[2] = {8, 4}, st84[2] = {4, 1}, sh3[1] = {3}, st1[1] = {1}, sh34[2] = {3, 4};
    static double nines[3] = {9, 9, 9};
    session *s = session_new();
    event *e = session_add_event(s, EV_KERNEL);
    event *err = session_add_event(s, EV_ERROR);   /* what the runner said: the launch failure */
    err->u.error.text = "CUDA error: unspecified launch failure (code 719)";
    err->u.error.route = "illegal-memory-access";
    e = s->events[0];
    kernel_event *k = &e->u.kernel;
    k->name = "triton_poi_fused_add_index_mul_0";
    k->status = KSTAT_ERROR;
    k->ntensors = 3;
    k->tensors = arena_alloc(&s->arena, 3 * sizeof *k->tensors);
    tensor_rec t[3] = {
        {.name = "arg0_1", .user_name = "table", .dtype = "float32", .device = "cuda:0", .phase = PHASE_BEFORE,
         .ndim = 2, .shape = sh84, .strides = st84, .has_alloc = 1, .alloc = {table_at, table_at, 128}},
        {.name = "arg1_1", .user_name = "idx", .dtype = "int64", .device = "cuda:0", .phase = PHASE_BEFORE,
         .ndim = 1, .shape = sh3, .strides = st1, .values = nines, .nvalues = 3, .values_complete = 1,
         .has_alloc = 1, .alloc = {table_at + 0x200, table_at + 0x200, 24}},
        {.name = "buf0", .dtype = "float32", .device = "cuda:0", .phase = PHASE_BEFORE, .ndim = 2, .shape = sh34,
         .strides = st84, .has_alloc = 1, .alloc = {table_at + 0x400, table_at + 0x400, 48}},
    };
    memcpy(k->tensors, t, sizeof t);
    return s;
}

static void test_gather_report_names_table_row_and_index(void)
{
    session *s = gather_session(0x7f595e800000ULL);
    strbuf err = STRBUF_INIT;
    int n = sanitizer_to_session(s, "memcheck", data("gather_row9_memcheck.xml"), data("gather_row9_memcheck.txt"),
                                 &err);
    CHECK(n == 1);   /* three threads at one site: one event */
    const event *e = s->events[s->nevents - 1];
    CHECK(e->kind == EV_MEMCHECK);
    const memcheck_event *m = &e->u.memcheck;
    CHECK(m->count == 3 && m->kernel_index == 0 && m->size == 4);
    CHECK_STR(m->kernel, "triton_poi_fused_add_index_mul_0");
    CHECK_STR(m->access, "read");
    CHECK_STR(m->thread, "(0,0,0)");
    CHECK_STR(m->block, "(0,0,0)");
    CHECK_STR(m->address, "0x7f595e800090");
    CHECK_CONTAINS(m->at, "clmltgzdfwes3i7i7ce6d4cxe2yd3wmzkkts253jsskvzotly6fh.py:30");
    CHECK_STR(m->tensor, "arg0_1");
    CHECK_STR(m->element, "[9, 0]");
    CHECK_STR(m->place, "past-end");
    CHECK(m->distance == 16);
    CHECK_STR(m->index, "arg1_1 (idx)[0] = 9");
    CHECK_STR(m->tensor_user, "table");
    CHECK_STR(m->hit, "16 bytes past the end of arg0_1 (table) [8, 4] float32, element [9, 0]; index arg1_1 (idx)[0] = 9");
    CHECK(s->nnotes == 1);
    const error_event *ee = &s->events[1]->u.error;   /* the route gains the names */
    CHECK(ee->nfields == 10);
    CHECK(ee->nfields == 10 && !strcmp(ee->fields[1].key, "memcheck_tensor") && !strcmp(ee->fields[1].value, "arg0_1"));
    CHECK(ee->nfields == 10 && !strcmp(ee->fields[2].key, "memcheck_user") && !strcmp(ee->fields[2].value, "table"));
    CHECK(ee->nfields == 10 && !strcmp(ee->fields[3].value, "[9, 0]") && !strcmp(ee->fields[4].value, "arg1_1 (idx)[0] = 9"));
    /* what goto-element reads: the index element, by the user's name too */
    CHECK(ee->nfields == 10 && !strcmp(ee->fields[6].key, "index_tensor") && !strcmp(ee->fields[6].value, "arg1_1"));
    CHECK(ee->nfields == 10 && !strcmp(ee->fields[7].value, "[0]") && !strcmp(ee->fields[8].value, "9"));
    CHECK(ee->nfields == 10 && !strcmp(ee->fields[9].key, "index_user") && !strcmp(ee->fields[9].value, "idx"));
    CHECK_CONTAINS(s->notes[0], "compute-sanitizer memcheck reported 27 errors");
    CHECK_CONTAINS(s->notes[0], "ERROR SUMMARY: 27 errors");
    /* the event and the tensors' alloc survive the file */
    char path[] = "/tmp/aotidbg-test-memcheck-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    s->format_major = 1;
    CHECK(session_save(s, path, &err) == 0);
    session *b = NULL;
    CHECK(session_load(path, &b, &err) == 0);
    const event *be = b && b->nevents == 3 ? b->events[2] : NULL;
    CHECK(be && be->kind == EV_MEMCHECK);
    if (be) {
        CHECK_STR(be->u.memcheck.hit, m->hit);
        CHECK_STR(be->u.memcheck.index, "arg1_1 (idx)[0] = 9");
        CHECK_STR(be->u.memcheck.tensor_user, "table");
        CHECK(be->u.memcheck.distance == 16 && be->u.memcheck.count == 3);
        const tensor_rec *bt = &b->events[0]->u.kernel.tensors[0];
        CHECK(bt->has_alloc && bt->alloc.base == 0x7f595e800000ULL && bt->alloc.bytes == 128);
    }
    if (getenv("AOTIDBG_KEEP_SESSION"))
        fprintf(stderr, "kept %s\n", path);
    else
        unlink(path);
    session_free(b);
    strbuf_release(&err);
    session_free(s);
}

static void test_clean_and_missing_reports(void)
{
    session *s = gather_session(0x1000);
    strbuf err = STRBUF_INIT;
    CHECK(sanitizer_to_session(s, "memcheck", data("mlp_memcheck.xml"), data("mlp_memcheck.txt"), &err) == 0);
    CHECK(s->nevents == 2 && s->nnotes == 1);
    CHECK_CONTAINS(s->notes[0], "compute-sanitizer memcheck reported no error over the 1 kernel launch of this run");
    CHECK_CONTAINS(s->notes[0], "constants blob");
    CHECK(sanitizer_to_session(s, "racecheck", data("nope.xml"), data("nope.txt"), &err) == -1);
    CHECK_CONTAINS(err.buf, "compute-sanitizer wrote no report");
    CHECK(s->nnotes == 2);
    strbuf_release(&err);
    session_free(s);
}

/* The tensor tables the H200 recorded (sessions/cuda/cuda_memcheck_{gather,embed}.yaml) with the
 * user's names a run gives them now (run_record_set_user_names: the weight's original_fqn from
 * constants_info_, the inputs spec's labels for inputs a package names only by position, the
 * in_spec_ keyword `ids`), mapped at the address each session's report gave. */
static void map_fixture(const char *name, const char *const (*names)[2], size_t nn, const char *want)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sessions/cuda/%s", AOTIDBG_SOURCE_DIR, name);
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(session_load(path, &s, &err) == 0);
    const memcheck_event *m = NULL;
    for (size_t i = 0; s && i < s->nevents && !m; i++)
        if (s->events[i]->kind == EV_MEMCHECK && s->events[i]->u.memcheck.address)
            m = &s->events[i]->u.memcheck;
    CHECK(m && s->nkernels == 1);
    if (m && s->nkernels == 1) {
        kernel_event *k = &s->kernels[0]->u.kernel;
        for (size_t i = 0; i < k->ntensors; i++)
            for (size_t j = 0; j < nn; j++)
                if (!strcmp(k->tensors[i].name, names[j][0]))
                    k->tensors[i].user_name = names[j][1];
        addr_table t = {k->index, k->tensors, k->ntensors};
        addr_hit h;
        CHECK(addr_map(&t, 1, strtoull(m->address, NULL, 16), 4, &h) == ADDR_PAST_END);
        strbuf sb = STRBUF_INIT;
        addr_hit_text(&h, &sb);
        CHECK_STR(sb.buf, want);
        strbuf_release(&sb);
    }
    strbuf_release(&err);
    session_free(s);
}

static void test_recorded_tables_by_the_users_names(void)
{
    static const char *const g[][2] = {{"arg0_1", "table"}, {"arg1_1", "idx"}};
    map_fixture("cuda_memcheck_gather.yaml", g, 2,
                "16 bytes past the end of arg0_1 (table) [8, 4] float32, element [9, 0]; index arg1_1 (idx)[0] = 9");
    static const char *const e[][2] = {{"e_weight", "e.weight"}, {"arg3_1", "ids"}};
    map_fixture("cuda_memcheck_embed.yaml", e, 2,
                "3199999680 bytes past the end of e_weight (e.weight) [10, 8] float32, element [100000000, 0]; "
                "index arg3_1 (ids)[0, 0] = 100000000");
}

/* A __shared__ access (racecheck's hazards, a block's scratch memory) names no tensor: the
 * gather's real text record with its space and address changed to a shared-memory offset. */
static void test_shared_memory_names_no_tensor(void)
{
    session *s = gather_session(0x7f595e800000ULL);
    char txt[] = "/tmp/aotidbg-test-shared-XXXXXX";
    int fd = mkstemp(txt);
    CHECK(fd >= 0);
    const char *rec = "========= COMPUTE-SANITIZER\n"
                      "========= Invalid __shared__ read of size 4 bytes\n"
                      "=========     at triton_poi_fused_add_index_mul_0+0x260 in k.py:30\n"
                      "=========     by thread (0,0,0) in block (0,0,0)\n"
                      "=========     Access to 0x7f595e800090 is out of bounds\n"
                      "========= ERROR SUMMARY: 1 error\n";
    CHECK(write(fd, rec, strlen(rec)) == (ssize_t)strlen(rec));
    close(fd);
    strbuf err = STRBUF_INIT;
    CHECK(sanitizer_to_session(s, "memcheck", "/nonexistent.xml", txt, &err) == 1);
    const memcheck_event *m = &s->events[s->nevents - 1]->u.memcheck;
    CHECK(s->events[s->nevents - 1]->kind == EV_MEMCHECK && !m->tensor);
    CHECK_CONTAINS(m->hit, "a __shared__ address");
    unlink(txt);
    strbuf_release(&err);
    session_free(s);
}

int main(void)
{
    RUN(test_shared_memory_names_no_tensor);
    RUN(test_recorded_tables_by_the_users_names);
    RUN(test_gather_report_names_table_row_and_index);
    RUN(test_clean_and_missing_reports);
    return CHECK_DONE();
}
