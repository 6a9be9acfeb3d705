/* test_kernel_groups.c — the kernel list grouped into layers (tui/kernel_groups.h):
 * groups by weights and by source line, kernels without weights staying in
 * the group before them, folding, display lines, cursor steps, a live run
 * growing and restarting. */
#include <string.h>
#include "check.h"
#include "kernel_groups.h"

/* Calls like a 2-block model's: emb, (fc, ln+relu) x 2, a weightless log, head. */
static session *layered(void)
{
    static const char *const w[][2] = {{"emb.weight", NULL},          {"blocks.0.fc.weight", "blocks.0.fc.bias"},
                                       {"blocks.0.ln.weight", NULL},  {"blocks.1.fc.weight", NULL},
                                       {"blocks.1.ln.weight", NULL},  {NULL, NULL},
                                       {"head.weight", "head.bias"}};
    static const char *const line[] = {"17", "9", "9", "9", "9", "20", "21"};
    session *s = session_new();
    s->prov.ncalls = 7;
    s->prov.calls = arena_alloc(&s->arena, s->prov.ncalls * sizeof *s->prov.calls);
    for (size_t i = 0; i < s->prov.ncalls; i++) {
        kernel_call *c = &s->prov.calls[i];
        c->kernel = arena_printf(&s->arena, "k%zu", i);
        c->nparams = w[i][0] ? (w[i][1] ? 2 : 1) : 0;
        c->params = arena_alloc(&s->arena, 2 * sizeof *c->params);
        c->params[0] = w[i][0];
        c->params[1] = w[i][1];
        c->nstack = 1;
        c->stack = arena_alloc(&s->arena, sizeof *c->stack);
        c->stack[0] = arena_printf(&s->arena, "File \"/m/model.py\", line %s, in forward\n    x", line[i]);
    }
    return s;
}

static void launch(session *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        event *e = session_add_event(s, EV_KERNEL);
        e->u.kernel.name = s->prov.calls[s->nkernels - 1].kernel;
        e->u.kernel.call = (int64_t)s->nkernels - 1;
    }
}

static void test_layers(void)
{
    session *s = layered();
    launch(s, 7);
    kgroups *g = kgroups_new();
    kgroups_sync(g, s, KG_LAYER);
    CHECK(kgroups_count(g) == 4);
    const char *keys[] = {"emb", "blocks.0", "blocks.1", "head"};
    int64_t first[] = {0, 1, 3, 6}, n[] = {1, 2, 3, 1};   /* the weightless kernel 5 stays in blocks.1 */
    for (size_t i = 0; i < 4; i++) {
        const kgroup *x = kgroups_at(g, i);
        CHECK_STR(x->key, keys[i]);
        CHECK(x->first == first[i] && x->n == n[i]);
    }
    CHECK(kgroups_of(g, 5) == 2);
    /* 4 headers + 7 kernels; line 4 is blocks.0's second kernel */
    CHECK(kgroups_lines(g) == 11);
    size_t gi;
    int64_t k;
    kgroups_item(g, 4, &gi, &k);
    CHECK(gi == 1 && k == 2);
    kgroups_item(g, 5, &gi, &k);
    CHECK(gi == 2 && k == -1);
    CHECK(kgroups_line_of(g, 6) == 10);
    /* fold blocks.1: one line for it, and the cursor steps over it as one stop */
    kgroups_fold(g, 2, 1);
    CHECK(kgroups_lines(g) == 8);
    CHECK(kgroups_line_of(g, 4) == 5 && kgroups_line_of(g, 6) == 7);
    CHECK(kgroups_step(g, 2, 1) == 3 && kgroups_step(g, 3, 1) == 6 && kgroups_step(g, 6, -1) == 3);
    CHECK(kgroups_step(g, 3, -1) == 2 && kgroups_step(g, 0, 100) == 6 && kgroups_step(g, 6, -100) == 0);
    kgroups_fold_all(g, 1);
    CHECK(kgroups_lines(g) == 4 && kgroups_step(g, 0, 2) == 3);
    kgroups_free(g);
    session_free(s);
}

static void test_lines_and_growth(void)
{
    session *s = layered();
    launch(s, 3);
    kgroups *g = kgroups_new();
    kgroups_sync(g, s, KG_LINE);
    CHECK(kgroups_count(g) == 2 && !strcmp(kgroups_at(g, 1)->key, "model.py:9"));
    launch(s, 4);   /* a live run goes on */
    kgroups_sync(g, s, KG_LINE);
    CHECK(kgroups_count(g) == 4 && kgroups_at(g, 1)->n == 4);
    CHECK_STR(kgroups_at(g, 3)->key, "model.py:21");
    /* a restart replaces the kernels: grouped from scratch */
    s->nkernels = 0;
    launch(s, 1);
    kgroups_sync(g, s, KG_LINE);
    CHECK(kgroups_count(g) == 1 && kgroups_lines(g) == 2);
    kgroups_sync(g, s, KG_NONE);
    CHECK(kgroups_count(g) == 0);
    CHECK(kg_mode_from_name("layer") == KG_LAYER && kg_mode_from_name("x") == -1);
    kgroups_free(g);
    session_free(s);
}

/* Inductor fuses the embedding again into each block's first layer norm
 * (cpp_fused_add_arange_embedding_native_layer_norm_view_N passes tok.weight,
 * pos.weight, blocks.N.ln.weight): such a kernel goes with its block, not
 * back under "tok" between blocks; a while_loop's numbered layers coming
 * round again still start new groups. */
static void test_embedding_recomputed(void)
{
    static const char *const w[][3] = {{"tok.weight", "pos.weight", "blocks.0.ln1.weight"},
                                       {"blocks.0.fc.weight", NULL, NULL},
                                       {"tok.weight", "pos.weight", "blocks.0.ln2.weight"},
                                       {"tok.weight", "pos.weight", "blocks.1.ln1.weight"},
                                       {"blocks.1.fc.weight", NULL, NULL},
                                       {"blocks.0.fc.weight", NULL, NULL},
                                       {"head.weight", NULL, NULL}};
    session *s = session_new();
    s->prov.ncalls = 7;
    s->prov.calls = arena_alloc(&s->arena, s->prov.ncalls * sizeof *s->prov.calls);
    for (size_t i = 0; i < s->prov.ncalls; i++) {
        kernel_call *c = &s->prov.calls[i];
        memset(c, 0, sizeof *c);
        c->kernel = arena_printf(&s->arena, "k%zu", i);
        c->nparams = w[i][1] ? 3 : 1;
        c->params = arena_alloc(&s->arena, 3 * sizeof *c->params);
        memcpy(c->params, w[i], sizeof w[i]);
    }
    launch(s, 7);
    kgroups *g = kgroups_new();
    kgroups_sync(g, s, KG_LAYER);
    const char *keys[] = {"tok", "blocks.0", "blocks.1", "blocks.0", "head"};
    int64_t first[] = {0, 1, 3, 5, 6};
    CHECK(kgroups_count(g) == 5);
    for (size_t i = 0; i < 5 && i < kgroups_count(g); i++) {
        CHECK_STR(kgroups_at(g, i)->key, keys[i]);
        CHECK(kgroups_at(g, i)->first == first[i]);
    }
    kgroups_free(g);
    session_free(s);
}

int main(void)
{
    RUN(test_layers);
    RUN(test_embedding_recomputed);
    RUN(test_lines_and_growth);
    return CHECK_DONE();
}
