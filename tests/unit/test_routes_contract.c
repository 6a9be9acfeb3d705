/* test_routes_contract.c — routes.yaml, the route ids scripts rely on
 * (DESIGN §9: add, never rename) and the UI's action table agree: every
 * route id of the contract is a route, every route is documented in
 * aotidbg(1), every next-step action a route offers is an action of the
 * table (so `x` on it runs), and every action the UI's code names by string
 * exists. */
#include <dirent.h>
#include <stdlib.h>
#include "actions.h"
#include "check.h"
#include "router.h"
#include "router_rules.h"

/* The ids tests and tools depend on, kept here by hand: ROUTE_IDS must be exactly these. */
static const char *const contract_ids[] = {
    "triton-index-oob", "device-mismatch", "input-mismatch", "illegal-memory-access", "nan-inf",
    "wrong-output", "dynamic-shape", "custom-op", "missing-artifact", "abi-mismatch",
    "compile-error", "out-of-memory", "crash", "unknown", "cpp-index-oob", "collective-timeout",
};

static char *slurp(const char *path)
{
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    if (strbuf_read_file(&sb, path, 16u << 20, &err) < 0) {
        fprintf(stderr, "%s\n", err.buf);
        strbuf_release(&err);
        return NULL;
    }
    strbuf_release(&err);
    return strbuf_detach(&sb, NULL);
}

static router_rules *rules(void)
{
    router_rules *r = NULL;
    strbuf err = STRBUF_INIT;
    if (router_rules_load_default(&r, &err) < 0)
        fprintf(stderr, "routes.yaml: %s\n", err.buf);
    strbuf_release(&err);
    return r;
}

static void test_route_ids(void)
{
    router_rules *r = rules();
    CHECK(r != NULL);
    if (!r)
        return;
    char *man = slurp(AOTIDBG_SOURCE_DIR "/man/aotidbg.1");
    CHECK(man != NULL);
    for (char *p = man, *q = man; p && (*q = *p); p++, q++)   /* groff's "\-" is a plain "-" */
        if (p[0] == '\\' && p[1] == '-')
            *q = '-', p++;
    for (size_t i = 0; i < sizeof contract_ids / sizeof *contract_ids; i++) {
        int found = 0;
        for (size_t j = 0; j < r->nroutes; j++)
            found |= !strcmp(r->routes[j].id, contract_ids[i]);
        if (!found)
            fprintf(stderr, "route id '%s' (a contract id) is not in routes.yaml\n", contract_ids[i]);
        CHECK(found);
    }
    for (size_t j = 0; man && j < r->nroutes; j++)
        if (!strstr(man, r->routes[j].id)) {
            fprintf(stderr, "route '%s' of routes.yaml is not in man/aotidbg.1\n", r->routes[j].id);
            CHECK(0);
        }
    free(man);
    router_rules_free(r);
}

/* The tables in router.h: ROUTE_IDS is the contract list, in order; every
 * ROUTE_ACTIONS name is a row of the TUI's action table; the manual's ROUTES
 * section names every id. */
static void test_route_tables(void)
{
    static const char *const ids[] = {ROUTE_IDS(ROUTE_NAME_ELEM)};
    static const char *const acts[] = {ROUTE_ACTIONS(ROUTE_NAME_ELEM)};
    CHECK(sizeof ids / sizeof *ids == sizeof contract_ids / sizeof *contract_ids);
    for (size_t i = 0; i < sizeof ids / sizeof *ids && i < sizeof contract_ids / sizeof *contract_ids; i++)
        CHECK_STR(ids[i], contract_ids[i]);
    CHECK(sizeof acts / sizeof *acts >= 7);
    for (size_t i = 0; i < sizeof acts / sizeof *acts; i++)
        if (actions_find(acts[i]) < 0) {
            fprintf(stderr, "ROUTE_ACTIONS names '%s', which the action table (tui/actions.c) lacks\n", acts[i]);
            CHECK(0);
        }
    char *man = slurp(AOTIDBG_SOURCE_DIR "/man/aotidbg.1");
    const char *sec = man ? strstr(man, "\n.SH ROUTES\n") : NULL;
    CHECK(sec != NULL);
    const char *end = sec ? strstr(sec + 1, "\n.SH ") : NULL;
    for (size_t i = 0; sec && i < sizeof ids / sizeof *ids; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n.TP\n.B %s\n", ids[i]);
        strbuf esc = STRBUF_INIT;           /* groff writes "-" as "\-" */
        for (const char *c = want; *c; c++) {
            if (*c == '-')
                strbuf_addch(&esc, '\\');
            strbuf_addch(&esc, *c);
        }
        const char *at = strstr(sec, esc.buf);
        if (!at || (end && at > end)) {
            fprintf(stderr, "man/aotidbg.1 ROUTES has no entry for %s\n", ids[i]);
            CHECK(0);
        }
        strbuf_release(&esc);
    }
    free(man);
}

static void check_words(const rr_route *rt, const rr_words *w, size_t *n)
{
    for (size_t k = 0; k < w->nactions; k++, (*n)++)
        if (actions_find(w->actions[k].name) < 0) {
            fprintf(stderr, "route '%s' offers action '%s', which the action table (tui/actions.c) lacks\n", rt->id,
                    w->actions[k].name);
            CHECK(0);
        }
}

static void test_route_actions_exist(void)
{
    router_rules *r = rules();
    if (!r)
        return;
    size_t n = 0;
    for (size_t j = 0; j < r->nroutes; j++) {
        check_words(&r->routes[j], &r->routes[j].words, &n);
        for (size_t v = 0; v < r->routes[j].nvariants; v++)
            check_words(&r->routes[j], &r->routes[j].variants[v], &n);
    }
    CHECK(n >= 10);   /* the rules do offer actions: this test looks at something */
    router_rules_free(r);
}

/* Action names the UI's code names in strings: actions_find("x"),
 * app_chain(a, "x", ...), keymap_* ("x") must be rows of the table. */
static void test_named_actions_exist(void)
{
    static const char *const calls[] = {"actions_find(\"", "app_chain(a, \"", "keymap_keys_text(\"",
                                        "keymap_first_key(\""};
    DIR *d = opendir(AOTIDBG_SOURCE_DIR "/tui");
    CHECK(d != NULL);
    size_t seen = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (l < 3 || strcmp(de->d_name + l - 2, ".c"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/tui/%s", AOTIDBG_SOURCE_DIR, de->d_name);
        char *text = slurp(path);
        for (size_t c = 0; text && c < sizeof calls / sizeof *calls; c++)
            for (const char *p = strstr(text, calls[c]); p; p = strstr(p + 1, calls[c])) {
                const char *s = p + strlen(calls[c]);
                size_t n = strcspn(s, "\"");
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), s);
                seen++;
                if (actions_find(name) < 0) {
                    fprintf(stderr, "tui/%s names action '%s', which the action table lacks\n", de->d_name, name);
                    CHECK(0);
                }
            }
        free(text);
    }
    if (d)
        closedir(d);
    CHECK(seen >= 4);
}

int main(void)
{
    RUN(test_route_ids);
    RUN(test_route_tables);
    RUN(test_route_actions_exist);
    RUN(test_named_actions_exist);
    return CHECK_DONE();
}
