/* test_pytree.c — the user's input and output names from AOTI's in_spec_ /
 * out_spec_ (core/package/pytree.c). The specs are the JSON torch 2.13's
 * treespec_dumps writes (copied from real packages' wrapper.cpp). */
#include <string.h>
#include "check.h"
#include "pytree.h"

#define LEAF "{\"type\": null, \"context\": null, \"children_spec\": []}"

static void test_positional_and_keyword_inputs(void)
{
    arena a = ARENA_INIT;
    strbuf err = STRBUF_INIT;
    const char **nm;
    size_t n;
    /* forward(x, mask) called as f(x, mask=m) */
    const char *in = "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": ["
                     "{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" LEAF "]}, "
                     "{\"type\": \"builtins.dict\", \"context\": \"[\\\"mask\\\"]\", \"children_spec\": [" LEAF "]}]}]";
    CHECK(pytree_leaf_names(&a, in, strlen(in), PYTREE_INPUTS, &nm, &n, &err) == 0);
    CHECK(n == 2);
    CHECK_STR(nm[0], "args[0]");
    CHECK_STR(nm[1], "mask");
    /* f(cfg={"w": t, "b": [u, v]}) */
    const char *nested = "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": ["
                         "{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": []}, "
                         "{\"type\": \"builtins.dict\", \"context\": \"[\\\"cfg\\\"]\", \"children_spec\": ["
                         "{\"type\": \"builtins.dict\", \"context\": \"[\\\"w\\\", \\\"b\\\"]\", \"children_spec\": ["
                         LEAF ", {\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [" LEAF ", "
                         LEAF "]}]}]}]}]";
    CHECK(pytree_leaf_names(&a, nested, strlen(nested), PYTREE_INPUTS, &nm, &n, &err) == 0);
    CHECK(n == 3);
    CHECK_STR(nm[0], "cfg['w']");
    CHECK_STR(nm[1], "cfg['b'][0]");
    CHECK_STR(nm[2], "cfg['b'][1]");
    CHECK(err.len == 0);
    arena_release(&a);
    strbuf_release(&err);
}

static void test_outputs(void)
{
    arena a = ARENA_INIT;
    strbuf err = STRBUF_INIT;
    const char **nm;
    size_t n;
    const char *d = "[1, {\"type\": \"builtins.dict\", \"context\": \"[\\\"out\\\", \\\"aux\\\"]\", "
                    "\"children_spec\": [" LEAF ", " LEAF "]}]";
    CHECK(pytree_leaf_names(&a, d, strlen(d), PYTREE_OUTPUTS, &nm, &n, &err) == 0);
    CHECK(n == 2);
    CHECK_STR(nm[0], "out");
    CHECK_STR(nm[1], "aux");
    /* a plain tuple: no names (output0, output1 stay) */
    const char *t = "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" LEAF ", " LEAF
                    "]}]";
    CHECK(pytree_leaf_names(&a, t, strlen(t), PYTREE_OUTPUTS, &nm, &n, &err) == 0);
    CHECK(n == 2 && !nm[0] && !nm[1]);
    /* (y, {"k": z}) */
    const char *m = "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" LEAF ", "
                    "{\"type\": \"collections.OrderedDict\", \"context\": \"[\\\"k\\\"]\", \"children_spec\": ["
                    LEAF "]}]}]";
    CHECK(pytree_leaf_names(&a, m, strlen(m), PYTREE_OUTPUTS, &nm, &n, &err) == 0);
    CHECK(n == 2);
    CHECK_STR(nm[0], "[0]");
    CHECK_STR(nm[1], "[1]['k']");
    arena_release(&a);
    strbuf_release(&err);
}

static void test_untrusted(void)
{
    arena a = ARENA_INIT;
    strbuf err = STRBUF_INIT;
    const char **nm;
    size_t n;
    const char *bad[] = {"", "[", "[2, {}]", "[1, 5]", "{\"type\": null}", "[1, {\"type\": \"x\", "
                         "\"children_spec\": [7]}]", "[1, {\"type\": \"builtins.dict\", \"context\": 3, "
                         "\"children_spec\": [" LEAF "]}]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        strbuf_reset(&err);
        int rc = pytree_leaf_names(&a, bad[i], strlen(bad[i]), PYTREE_INPUTS, &nm, &n, &err);
        CHECK(rc == 0 || (rc == -1 && err.len > 0));
    }
    /* nested past the depth cap */
    strbuf deep = STRBUF_INIT;
    strbuf_addstr(&deep, "[1, ");
    for (int i = 0; i < PYTREE_MAX_DEPTH + 5; i++)
        strbuf_addstr(&deep, "{\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [");
    strbuf_addstr(&deep, LEAF);
    for (int i = 0; i < PYTREE_MAX_DEPTH + 5; i++) strbuf_addstr(&deep, "]}");
    strbuf_addstr(&deep, "]");
    strbuf_reset(&err);
    CHECK(pytree_leaf_names(&a, deep.buf, deep.len, PYTREE_OUTPUTS, &nm, &n, &err) == -1);
    CHECK_CONTAINS(err.buf, "deeper");
    strbuf_release(&deep);
    arena_release(&a);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_positional_and_keyword_inputs);
    RUN(test_outputs);
    RUN(test_untrusted);
    return CHECK_DONE();
}
