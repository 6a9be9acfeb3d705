/* test_values_budget.c — the value budget: the --values-budget size parser,
 * the keep/sample decision, and the values_budget_cut flag and the header's
 * values_budget through a session file (write, read, dump). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cli_opts.h"
#include "opt.h"
#include "model.h"
#include "runner_client.h"
#include "session_io.h"
#include "session_mem.h"

static void test_size_parser(void)
{
    uint64_t v = 7;
    CHECK(opt_parse_size("0", &v) == 0 && v == 0);
    CHECK(opt_parse_size("8192", &v) == 0 && v == 8192);
    CHECK(opt_parse_size("8K", &v) == 0 && v == 8192);
    CHECK(opt_parse_size("8k", &v) == 0 && v == 8192);
    CHECK(opt_parse_size("256M", &v) == 0 && v == 256ull << 20);
    CHECK(opt_parse_size("3g", &v) == 0 && v == 3ull << 30);
    CHECK(opt_parse_size("0G", &v) == 0 && v == 0);
    v = 7;
    const char *bad[] = {"", "K", "-1", "+5", " 5", "5 ", "1.5M", "12KB", "12MiB", "1T", "abc", "0x10", "5KK",
                         "9223372036854775809", "99999999999999999999999", "8589934593G", "9007199254740993K"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (opt_parse_size(bad[i], &v) != -1)
            fprintf(stderr, "accepted '%s'\n", bad[i]);
        CHECK(opt_parse_size(bad[i], &v) == -1);
    }
    CHECK(v == 7);   /* untouched on error */
    CHECK(opt_parse_size("9223372036854775808", &v) == 0 && v == (uint64_t)1 << 63);
    CHECK(opt_parse_size("8589934592G", &v) == 0 && v == (uint64_t)1 << 63);
    CHECK(opt_parse_size("9007199254740992K", &v) == 0 && v == (uint64_t)1 << 63);
}

static void test_keep_no_limit(void)
{
    values_budget_state b = {0};
    CHECK(values_budget_keep(&b, 5000000) == 5000000);
    CHECK(values_budget_keep(&b, 0) == 0);
    CHECK(b.used == 0 && b.reserve_used == 0);
}

static void test_keep_fit_then_sample(void)
{
    values_budget_state b = {.budget = 8192};   /* 1024 values; reserve 512 bytes = 64 values */
    CHECK(values_budget_keep(&b, 1000) == 1000);
    CHECK(b.used == 8000);
    CHECK(values_budget_keep(&b, 24) == 24);      /* exactly fills it */
    CHECK(b.used == 8192);
    CHECK(values_budget_keep(&b, 0) == 0);        /* nothing to keep is never a cut */
    CHECK(values_budget_keep(&b, 40) == 40);      /* fits in the reserve whole: not cut */
    CHECK(b.reserve_used == 320);
    CHECK(values_budget_keep(&b, 100) == 0);      /* the sample (100) does not fit in the 24 left */
    CHECK(values_budget_keep(&b, 24) == 24);
    CHECK(b.reserve_used == 512);
    CHECK(values_budget_keep(&b, 1) == 0);
    CHECK(b.used + b.reserve_used <= 8192 + 8192 / 16);
}

/* Values a folded round drops go back: the whole-tensor part first, then the reserve, never below 0. */
static void test_return(void)
{
    values_budget_state b = {.budget = 8192};
    CHECK(values_budget_keep(&b, 1024) == 1024);
    CHECK(values_budget_keep(&b, 40) == 40);      /* in the reserve */
    values_budget_return(&b, 1000);
    CHECK(b.used == 192 && b.reserve_used == 320);
    CHECK(values_budget_keep(&b, 1000) == 1000);  /* fits again */
    values_budget_return(&b, 1024 + 30);
    CHECK(b.used == 0 && b.reserve_used == 80);
    values_budget_return(&b, 1000);
    CHECK(b.used == 0 && b.reserve_used == 0);
}

static void test_keep_prefix_sample(void)
{
    values_budget_state b = {.budget = (uint64_t)1 << 20};   /* 131072 values; reserve 64 KiB = 8192 values */
    CHECK(values_budget_keep(&b, 100000) == 100000);
    CHECK(values_budget_keep(&b, 100000) == VALUES_BUDGET_SAMPLE);   /* cut: a 1024-value prefix */
    CHECK(values_budget_keep(&b, 31073) == VALUES_BUDGET_SAMPLE);    /* one value too many for the budget */
    CHECK(b.used == 800000);
    /* a small tensor that still fits the budget is kept whole */
    CHECK(values_budget_keep(&b, 1000) == 1000);
    CHECK(b.used == 808000);
    size_t kept_samples = 2;
    while (values_budget_keep(&b, 50000) == VALUES_BUDGET_SAMPLE)
        kept_samples++;
    CHECK(kept_samples == 8);   /* 8 samples of 8 KiB fill the 64 KiB reserve */
    CHECK(b.reserve_used == 65536);
    CHECK(values_budget_keep(&b, 50000) == 0);
    CHECK(b.used + b.reserve_used <= ((uint64_t)1 << 20) + ((uint64_t)1 << 16));
}

static void test_keep_tiny_budget(void)
{
    values_budget_state b = {.budget = 15};   /* reserve 0: past it, nothing */
    CHECK(values_budget_keep(&b, 1) == 1);
    CHECK(values_budget_keep(&b, 1) == 0);
    CHECK(values_budget_keep(&b, 1000) == 0);
}

static session *one_tensor_session(int cut)
{
    session *s = session_new();
    s->printer_level = 1;
    s->values_budget = cut ? 4096 : 0;
    event *e = session_add_event(s, EV_KERNEL);
    kernel_event *k = &e->u.kernel;
    k->index = 0;
    k->name = "triton_poi_fused_add_0";
    k->type = KTYPE_TRITON;
    k->status = KSTAT_OK;
    k->ntensors = 1;
    k->tensors = arena_alloc(&s->arena, sizeof *k->tensors);
    tensor_rec *t = &k->tensors[0];
    t->name = "buf0";
    t->phase = PHASE_AFTER;
    t->ndim = 1;
    t->shape = arena_alloc(&s->arena, sizeof(int64_t));
    t->shape[0] = 4;
    t->strides = arena_alloc(&s->arena, sizeof(int64_t));
    t->strides[0] = 1;
    t->dtype = "float32";
    t->device = "cpu";
    t->has_stats = 1;
    t->stats.numel = 4;
    t->stats.finite = 4;
    t->stats.max = 4;
    t->stats.min = 1;
    t->stats.mean = 2.5;
    t->nvalues = 2;
    t->values = arena_alloc(&s->arena, 2 * sizeof(double));
    t->values[0] = 1;
    t->values[1] = 2;
    t->values_complete = 0;
    t->values_budget_cut = cut;
    return s;
}

static void test_session_flag_round_trip(void)
{
    for (int cut = 0; cut <= 1; cut++) {
        session *s = one_tensor_session(cut);
        size_t len = 0;
        char *yaml = write_mem(s, &len);
        if (cut) {
            CHECK_CONTAINS(yaml, "values_budget_cut: true");
            CHECK_CONTAINS(yaml, "values_budget: 4096\n");
        } else {   /* older files stay as they were */
            CHECK(!strstr(yaml, "values_budget"));
        }
        session *r = NULL;
        strbuf err = STRBUF_INIT;
        CHECK(session_load_mem("vb.yaml", yaml, len, &r, &err) == 0);
        if (r) {
            CHECK(r->nwarnings == 0);
            CHECK(r->values_budget == (uint64_t)(cut ? 4096 : 0));
            const event *e = session_kernel_event(r, 0);
            CHECK(e && e->u.kernel.ntensors == 1);
            if (e && e->u.kernel.ntensors == 1) {
                const tensor_rec *t = &e->u.kernel.tensors[0];
                CHECK(t->values_budget_cut == cut);
                CHECK(t->nvalues == 2 && !t->values_complete);
                CHECK(t->has_stats && t->stats.numel == 4);
            }
            char *d = dump_mem(r);
            if (cut) {
                CHECK_CONTAINS(d, "values_budget_cut: 2 values kept");
                CHECK_CONTAINS(d, "values_budget: 4096\n");
            } else {
                CHECK(!strstr(d, "values_budget"));
            }
            free(d);
        }
        session_free(r);
        strbuf_release(&err);
        free(yaml);
        session_free(s);
    }
}

static void test_session_flag_bad_value(void)
{
    session *s = one_tensor_session(1);
    size_t len = 0;
    char *yaml = write_mem(s, &len);
    char *p = strstr(yaml, "values_budget_cut: true");
    CHECK(p != NULL);
    if (p) {
        memcpy(p + strlen("values_budget_cut: "), "mayb", 4);
        session *r = NULL;
        strbuf err = STRBUF_INIT;
        CHECK(session_load_mem("vb.yaml", yaml, len, &r, &err) != 0 || (r && r->truncated));
        session_free(r);
        strbuf_release(&err);
    }
    free(yaml);
    session_free(s);
}

int main(void)
{
    RUN(test_size_parser);
    RUN(test_keep_no_limit);
    RUN(test_keep_fit_then_sample);
    RUN(test_return);
    RUN(test_keep_prefix_sample);
    RUN(test_keep_tiny_budget);
    RUN(test_session_flag_round_trip);
    RUN(test_session_flag_bad_value);
    return CHECK_DONE();
}
