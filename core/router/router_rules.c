/* router_rules.c — loads routes.yaml into router_rules (router_rules.h).
 *
 * core/yaml's ytree reads the file into a small bounded tree (depth, node
 * count and scalar size capped; aliases and duplicate keys refused), then the
 * tree is checked and compiled: route ids must be those of ROUTE_IDS, regexes must
 * compile, every error names file:line:col (1-based). Each pattern gets its
 * prefilter literals here (see hints_for()).
 * Errors: 0 / -1 with a message in err. */
#define _GNU_SOURCE
#include "router_rules.h"
#include "router_nb.h"
#include "compat.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "paths.h"
#include "ytree.h"

enum { Y_MAX_DEPTH = 16, Y_MAX_NODES = 50000, Y_MAX_SCALAR = 16384 };

static const char *const route_ids[] = {ROUTE_IDS(ROUTE_NAME_ELEM)};
static const char *const platform_ids[] = {"cuda", "rocm", "xpu", "mps", "cpu"};
static const char *const action_names[] = {ROUTE_ACTIONS(ROUTE_NAME_ELEM)};

/* 1 when s is one of the n names */
static int one_of(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return 1;
    return 0;
}
#define ONE_OF(names, s) one_of(names, sizeof names / sizeof *names, s)

typedef struct {
    arena *a;
    const char *name;
    strbuf *err;
} yctx;

static int yerr(yctx *c, size_t line, size_t col, const char *fmt, const char *arg)
{
    strbuf_addf(c->err, "%s:%zu:%zu: ", c->name, line, col);
    strbuf_addf(c->err, fmt, arg ? arg : "");
    return -1;
}

#define yget ytree_get

static int ykeys_known(yctx *c, const ynode *map, const char *const *known)
{
    for (size_t i = 0; i < map->n; i += 2) {
        const char *k = map->items[i]->value;
        int ok = 0;
        for (const char *const *q = known; *q; q++)
            ok |= !strcmp(*q, k);
        if (!ok)
            return yerr(c, map->items[i]->line, map->items[i]->col, "unknown key '%s'", k);
    }
    return 0;
}

static int yscalar(yctx *c, const ynode *n, const char *what, const char **out)
{
    if (!n || n->type != Y_SCALAR)
        return yerr(c, n ? n->line : 0, n ? n->col : 0, "%s must be a string", what);
    *out = n->value;
    return 0;
}

static int ybool(yctx *c, const ynode *n, const char *what, int *out)
{
    if (n->type != Y_SCALAR || (strcmp(n->value, "true") && strcmp(n->value, "false")))
        return yerr(c, n->line, n->col, "%s must be true or false", what);
    *out = !strcmp(n->value, "true");
    return 0;
}

static int ynumber(yctx *c, const ynode *n, const char *what, double lo, double hi, double *out)
{
    if (!n || n->type != Y_SCALAR || !*n->value)
        return yerr(c, n ? n->line : 0, n ? n->col : 0, "%s must be a number", what);
    char *end;
    double v = strtod(n->value, &end);
    if (*end || v != v || v < lo || v > hi)
        return yerr(c, n->line, n->col, "%s out of range or not a number", what);
    *out = v;
    return 0;
}

/* ---- prefilter literals ------------------------------------------------ */

/* A prefilter requirement: a set of lowercased literals, at least one of which
 * every match of the regex contains (req_better says which of two filters better). */
#define REQ_MAX 32
#define REQ_LEN 128
#define REQ_DEPTH 6
typedef struct {
    size_t n, minlen;
    char s[REQ_MAX][REQ_LEN];
    size_t len[REQ_MAX];
} reqset;

/* How well a requirement filters: long literals, few of them (a set of common
 * words like {error, device} filters worse than one "mps "). Below 2 bytes
 * a literal is useless for the bigram prefilter. */
static int req_score(const reqset *a)
{
    if (a->minlen < 2)
        return -1000 + (int)a->minlen;
    int bits = 0;
    while (((size_t)1 << bits) < a->n)
        bits++;
    return 2 * (int)a->minlen - 3 * bits;
}

static int req_better(const reqset *a, const reqset *b)
{
    int sa = req_score(a), sb = req_score(b);
    return sa > sb || (sa == sb && a->minlen > b->minlen);
}

/* index just past the bracket expression starting at re[i] == '[' */
static size_t bracket_end(const char *re, size_t i, size_t n)
{
    size_t j = i + 1;
    if (j < n && re[j] == '^')
        j++;
    if (j < n && re[j] == ']')
        j++;
    while (j < n && re[j] != ']') {
        if (re[j] == '[' && j + 1 < n && strchr(":.=", re[j + 1])) {
            char close = re[j + 1];
            j += 2;
            while (j + 1 < n && !(re[j] == close && re[j + 1] == ']'))
                j++;
            j += 2;
        } else {
            j++;
        }
    }
    return j < n ? j + 1 : n;
}

/* index of the ')' matching re[i] == '(' (n if unbalanced) */
static size_t group_end(const char *re, size_t i, size_t n)
{
    int depth = 0;
    for (size_t j = i; j < n; j++) {
        if (re[j] == '\\') {
            j++;
        } else if (re[j] == '[') {
            j = bracket_end(re, j, n) - 1;
        } else if (re[j] == '(') {
            depth++;
        } else if (re[j] == ')' && --depth == 0) {
            return j;
        }
    }
    return n;
}

static void req_alt(const char *re, size_t n, int depth, reqset *out);

/* Requirement of a sequence with no top-level '|': its longest literal run,
 * or a non-optional group's alternatives, whichever filters better. With
 * `all`, every requirement of at least 2 bytes is also kept there (up to
 * *nall == RR_MAX_CHECKS + 1): a match contains one member of each. */
static void req_seq(const char *re, size_t n, int depth, reqset *best, reqset *all, size_t *nall)
{
    memset(best, 0, sizeof *best);
    char run[REQ_LEN];
    size_t rl = 0, i = 0;
#define KEEP(set) do { if (all && (set).minlen >= 2 && *nall < RR_MAX_CHECKS + 1) all[(*nall)++] = (set); } while (0)
#define FLUSH() do { \
        if (rl >= 1) { reqset one = {1, rl, {{0}}, {rl}}; memcpy(one.s[0], run, rl); KEEP(one); \
            if (req_better(&one, best)) *best = one; } \
        rl = 0; } while (0)
    while (i < n) {
        char c = re[i];
        int lit = -1;                   /* literal byte of this atom; -1 for others */
        size_t next, gstart = 0, gend = 0;
        if (c == '\\' && i + 1 < n) {
            if (strchr(".[](){}*+?|^$\\/-'\"`", re[i + 1]))
                lit = (unsigned char)re[i + 1];
            next = i + 2;
        } else if (c == '[') {
            next = bracket_end(re, i, n);
        } else if (c == '(') {
            gend = group_end(re, i, n);
            gstart = i + 1;
            next = gend < n ? gend + 1 : n;
        } else if (c == '.' || c == '^' || c == '$') {
            next = i + 1;
        } else {
            lit = (unsigned char)c;
            next = i + 1;
        }
        char q = next < n ? re[next] : 0;
        int optional = q == '*' || q == '?' || q == '{';
        if (c == '(' && !optional && depth < REQ_DEPTH && gend > gstart) {
            reqset g;
            req_alt(re + gstart, gend - gstart, depth + 1, &g);
            KEEP(g);
            if (req_better(&g, best))
                *best = g;
        }
        if (optional) {
            FLUSH();
            next++;
            if (q == '{')
                while (next < n && re[next - 1] != '}')
                    next++;
        } else if (q == '+') {
            if (lit >= 0 && rl < REQ_LEN - 1)
                run[rl++] = (char)tolower(lit);
            FLUSH();
            next++;
        } else if (lit >= 0) {
            if (rl < REQ_LEN - 1)
                run[rl++] = (char)tolower(lit);
        } else {
            FLUSH();
        }
        i = next;
    }
    FLUSH();
#undef FLUSH
#undef KEEP
}

/* Requirement of an alternation: the union of each alternative's. */
static void req_alt(const char *re, size_t n, int depth, reqset *out)
{
    memset(out, 0, sizeof *out);
    size_t start = 0;
    int first = 1;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && re[i] == '\\') {
            i++;
            continue;
        }
        if (i < n && re[i] == '[') {
            i = bracket_end(re, i, n) - 1;
            continue;
        }
        if (i < n && re[i] == '(') {
            i = group_end(re, i, n);
            continue;
        }
        if (i < n && re[i] != '|')
            continue;
        reqset a;
        req_seq(re + start, i - start, depth, &a, NULL, NULL);
        if (!a.minlen || out->n + a.n > REQ_MAX) {
            memset(out, 0, sizeof *out);   /* one alternative with no literal: no requirement */
            return;
        }
        for (size_t k = 0; k < a.n; k++) {
            memcpy(out->s[out->n], a.s[k], a.len[k]);
            out->len[out->n++] = a.len[k];
        }
        out->minlen = first || a.minlen < out->minlen ? a.minlen : out->minlen;
        first = 0;
        start = i + 1;
    }
}

static rr_hint *add_hint(router_rules *r)
{
    r->hints = arena_grow(&r->arena, r->hints, r->nhints, &r->hints_cap, sizeof *r->hints, 64);
    return &r->hints[r->nhints++];
}

/* 1 when re has a '|' outside groups and brackets */
static int has_top_alt(const char *re, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (re[i] == '\\')
            i++;
        else if (re[i] == '[')
            i = bracket_end(re, i, n) - 1;
        else if (re[i] == '(')
            i = group_end(re, i, n);
        else if (re[i] == '|')
            return 1;
    }
    return 0;
}

static int req_same(const reqset *a, const reqset *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++)
        if (a->len[k] != b->len[k] || memcmp(a->s[k], b->s[k], a->len[k]))
            return 0;
    return 1;
}

/* Adds the pattern's prefilter literals; marks it `always` when some match
 * need not contain any literal of at least 2 bytes. A regex that is one
 * sequence also keeps its other requirements as checks: a line that lacks
 * one of them cannot match, and regexec is not run. */
static void hints_for(router_rules *r, int pi, const char *re)
{
    reqset q;
    size_t n = strlen(re);
    req_alt(re, n, 0, &q);
    if (q.minlen < 2) {
        r->patterns[pi].always = 1;
        return;
    }
    for (size_t k = 0; k < q.n; k++) {
        rr_hint *h = add_hint(r);
        h->s = arena_strndup(&r->arena, q.s[k], q.len[k]);
        h->len = q.len[k];
        h->pattern = pi;
    }
    if (has_top_alt(re, n))
        return;
    reqset *all = xmalloc((RR_MAX_CHECKS + 1) * sizeof *all), tmp;
    size_t nall = 0;
    req_seq(re, n, 0, &tmp, all, &nall);
    rr_pattern *pt = &r->patterns[pi];
    pt->checks = arena_alloc(&r->arena, (nall + 1) * sizeof *pt->checks);
    for (size_t i = 0; i < nall && pt->nchecks < RR_MAX_CHECKS; i++) {
        if (req_same(&all[i], &q))
            continue;                    /* the hint itself */
        rr_check *c = &pt->checks[pt->nchecks++];
        c->n = all[i].n;
        c->s = arena_alloc(&r->arena, c->n * sizeof *c->s);
        c->len = arena_alloc(&r->arena, c->n * sizeof *c->len);
        for (size_t k = 0; k < c->n; k++) {
            c->s[k] = arena_strndup(&r->arena, all[i].s[k], all[i].len[k]);
            c->len[k] = all[i].len[k];
        }
    }
    free(all);
}

/* Words that make a line worth showing when nothing routes (lowercased);
 * found by the same prefilter pass, as hints of no pattern (-1). */
static const char *const error_words[] = {"error", "exception", "fail", "fatal", "abort", "traceback", "assert",
                                          "killed", "fault", "panic", "cannot", "could not", "unable to"};

static void build_bigrams(router_rules *r)
{
    for (size_t i = 0; i < sizeof error_words / sizeof *error_words; i++) {
        rr_hint *h = add_hint(r);
        h->s = error_words[i];
        h->len = strlen(error_words[i]);
        h->pattern = -1;
    }
    r->bigram = xmalloc(65536 * sizeof *r->bigram);
    for (size_t i = 0; i < 65536; i++)
        r->bigram[i] = -1;
    for (size_t i = r->nhints; i-- > 0;) {
        rr_hint *h = &r->hints[i];
        unsigned b = ((unsigned char)h->s[0] << 8) | (unsigned char)h->s[1];
        h->next = r->bigram[b];
        r->bigram[b] = (int32_t)i;
        r->bigram_bits[b >> 6] |= 1ULL << (b & 63);
    }
}

/* ---- compiling the tree ------------------------------------------------ */

static int tag_index(router_rules *r, const char *name)
{
    for (size_t i = 0; i < r->ntags; i++)
        if (!strcmp(r->tags[i], name))
            return (int)i;
    const char **t = arena_alloc(&r->arena, (r->ntags + 1) * sizeof *t);
    if (r->ntags)
        memcpy(t, r->tags, r->ntags * sizeof *t);
    t[r->ntags] = arena_strdup(&r->arena, name);
    r->tags = t;
    return (int)r->ntags++;
}

/* A pattern of route `route` (platform -1) or of platform `platform` (route -1). */
static int compile_pattern(yctx *c, router_rules *r, const ynode *pn, int route, int platform)
{
    static const char *const keys[] = {"regex", "literal", "weight", "role", "case", "fields", "tag", "needs", NULL};
    if (pn->type != Y_MAP)
        return yerr(c, pn->line, pn->col, "a pattern must be a mapping (regex:/literal:, weight:, ...)%s", "");
    if (ykeys_known(c, pn, keys))
        return -1;
    int pi = (int)r->npatterns++;      /* claimed now: on error the rules are freed, regex included */
    rr_pattern *pt = &r->patterns[pi];
    memset(pt, 0, sizeof *pt);
    pt->route = route;
    pt->platform = platform;
    pt->icase = 1;
    pt->tag = pt->needs = -1;
    pt->weight = 1;
    const ynode *re = yget(pn, "regex"), *lit = yget(pn, "literal"), *n;
    if (!!re == !!lit)
        return yerr(c, pn->line, pn->col, "a pattern needs exactly one of regex: or literal:%s", "");
    if (yscalar(c, re ? re : lit, re ? "regex" : "literal", &pt->source))
        return -1;
    if (!*pt->source)
        return yerr(c, pn->line, pn->col, "empty pattern%s", "");
    pt->is_regex = !!re;
    if ((n = yget(pn, "weight")) && ynumber(c, n, "weight", 0, 1000, &pt->weight))
        return -1;
    if ((n = yget(pn, "role"))) {
        if (n->type != Y_SCALAR || (strcmp(n->value, "primary") && strcmp(n->value, "consequence")))
            return yerr(c, n->line, n->col, "role must be primary or consequence%s", "");
        pt->consequence = !strcmp(n->value, "consequence");
    }
    if ((n = yget(pn, "case"))) {
        if (n->type != Y_SCALAR || (strcmp(n->value, "sensitive") && strcmp(n->value, "insensitive")))
            return yerr(c, n->line, n->col, "case must be sensitive or insensitive%s", "");
        pt->icase = !strcmp(n->value, "insensitive");
    }
    if ((n = yget(pn, "tag"))) {
        const char *t;
        if (yscalar(c, n, "tag", &t))
            return -1;
        pt->tag = tag_index(r, t);
    }
    if ((n = yget(pn, "needs"))) {
        const char *t;
        if (yscalar(c, n, "needs", &t))
            return -1;
        pt->needs = tag_index(r, t);
    }
    if (pt->is_regex) {
        locale_t old = uselocale(r->cloc);
        int rc = regcomp(&pt->re, pt->source, REG_EXTENDED | (pt->icase ? REG_ICASE : 0));
        uselocale(old);
        if (rc) {
            char msg[256];
            regerror(rc, &pt->re, msg, sizeof msg);
            return yerr(c, re->line, re->col, "bad regex: %s", msg);
        }
        pt->re_ok = 1;
        if (pt->re.re_nsub >= RR_MAX_GROUPS)
            return yerr(c, re->line, re->col, "too many groups (at most %s)", "9");
    } else {
        char *l = arena_strdup(&r->arena, pt->source);
        for (char *q = l; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        pt->literal_lc = l;
    }
    if ((n = yget(pn, "fields"))) {
        if (n->type != Y_MAP)
            return yerr(c, n->line, n->col, "fields must map group numbers to names%s", "");
        for (size_t i = 0; i + 1 < n->n; i += 2) {
            const ynode *k = n->items[i], *v = n->items[i + 1];
            char *end;
            long g = strtol(k->value, &end, 10);
            if (*end || g < 1 || g >= RR_MAX_GROUPS || !pt->is_regex || (size_t)g > pt->re.re_nsub)
                return yerr(c, k->line, k->col, "field group '%s' is not a group of this regex", k->value);
            if (v->type != Y_SCALAR || !*v->value)
                return yerr(c, v->line, v->col, "field name must be a string%s", "");
            pt->fields[pt->nfields].group = (int)g;
            pt->fields[pt->nfields].name = v->value;
            pt->nfields++;
        }
    }
    if (pt->is_regex) {
        hints_for(r, pi, pt->source);
    } else if (strlen(pt->literal_lc) >= 2) {
        rr_hint *h = add_hint(r);
        h->s = pt->literal_lc;
        h->len = strlen(pt->literal_lc);
        h->pattern = pi;
    } else {
        pt->always = 1;
    }
    return 0;
}

static int string_list(yctx *c, router_rules *r, const ynode *n, const char *what, const char ***out, size_t *count)
{
    *count = 0;
    if (!n)
        return 0;
    if (n->type != Y_SEQ)
        return yerr(c, n->line, n->col, "%s must be a list", what);
    *out = arena_alloc(&r->arena, (n->n + 1) * sizeof **out);
    for (size_t i = 0; i < n->n; i++)
        if (yscalar(c, n->items[i], what, &(*out)[i]))
            return -1;
    *count = n->n;
    return 0;
}

static int parse_actions(yctx *c, router_rules *r, const ynode *n, rr_words *w)
{
    if (n->type != Y_SEQ)
        return yerr(c, n->line, n->col, "actions must be a list%s", "");
    w->actions = arena_alloc(&r->arena, (n->n + 1) * sizeof *w->actions);
    for (size_t i = 0; i < n->n; i++) {
        static const char *const akeys[] = {"do", "level", "field", NULL};
        const ynode *an = n->items[i], *v;
        if (an->type != Y_MAP)
            return yerr(c, an->line, an->col, "an action must be a mapping {do: NAME, ...}%s", "");
        if (ykeys_known(c, an, akeys))
            return -1;
        rr_action *ac = &w->actions[i];
        if (!(v = yget(an, "do")) || yscalar(c, v, "do", &ac->name))
            return yerr(c, an->line, an->col, "action without do:%s", "");
        if (!ONE_OF(action_names, ac->name))
            return yerr(c, v->line, v->col, "unknown action '%s'", ac->name);
        double lvl = 0;
        if ((v = yget(an, "level")) && ynumber(c, v, "level", 0, 3, &lvl))
            return -1;
        ac->level = (int)lvl;
        if ((v = yget(an, "field")) && yscalar(c, v, "field", &ac->field))
            return -1;
    }
    w->nactions = n->n;
    w->has_actions = 1;
    return 0;
}

/* title, explanation, steps, actions of a route or of one of its `wording:` overrides */
static int parse_words(yctx *c, router_rules *r, const ynode *map, rr_words *w)
{
    const ynode *n;
    if ((n = yget(map, "title")) && yscalar(c, n, "title", &w->title))
        return -1;
    if ((n = yget(map, "explanation")) && yscalar(c, n, "explanation", &w->explanation))
        return -1;
    if ((n = yget(map, "because")) && yscalar(c, n, "because", &w->because))
        return -1;
    if ((n = yget(map, "steps"))) {
        if (string_list(c, r, n, "steps", &w->steps, &w->nsteps))
            return -1;
        w->has_steps = 1;
    }
    if ((n = yget(map, "actions")) && parse_actions(c, r, n, w))
        return -1;
    return 0;
}

/* `wording: {cpu: {...}, "xpu, mps": {...}}`: wording for the platforms named by the key. */
static int parse_variants(yctx *c, router_rules *r, const ynode *n, rr_route *rt)
{
    static const char *const vkeys[] = {"title", "explanation", "because", "steps", "actions", NULL};
    if (n->type != Y_MAP)
        return yerr(c, n->line, n->col, "wording: must map platform ids to title:, explanation:, steps:, actions:%s", "");
    rt->variants = arena_alloc(&r->arena, (n->n / 2 + 1) * sizeof *rt->variants);
    for (size_t i = 0; i + 1 < n->n; i += 2) {
        const ynode *k = n->items[i], *v = n->items[i + 1];
        rr_words *w = &rt->variants[rt->nvariants];
        const char *p = k->value;
        while (*p) {
            p += strspn(p, " ,");
            size_t len = strcspn(p, " ,");
            if (!len)
                break;
            char id[32];
            snprintf(id, sizeof id, "%.*s", (int)(len < 31 ? len : 31), p);
            int pi = len < 31 ? router_platform_index(r, id) : -1;
            if (pi < 0)
                return yerr(c, k->line, k->col, "wording: '%s' is not a platform of platforms:", id);
            w->platforms |= 1u << pi;
            p += len;
        }
        if (!w->platforms)
            return yerr(c, k->line, k->col, "wording: names no platform%s", "");
        if (v->type != Y_MAP)
            return yerr(c, v->line, v->col, "wording: %s: must be a mapping (title:, explanation:, steps:, actions:)",
                        k->value);
        if (ykeys_known(c, v, vkeys) || parse_words(c, r, v, w))
            return -1;
        rt->nvariants++;
    }
    return 0;
}

static int compile_route(yctx *c, router_rules *r, const ynode *rn, size_t ri)
{
    static const char *const keys[] = {"id", "title", "explanation", "explains", "because", "fallback",
                                       "patterns", "steps", "actions", "wording", NULL};
    if (rn->type != Y_MAP)
        return yerr(c, rn->line, rn->col, "a route must be a mapping%s", "");
    if (ykeys_known(c, rn, keys))
        return -1;
    rr_route *rt = &r->routes[ri];
    const ynode *n = yget(rn, "id");
    if (!n)
        return yerr(c, rn->line, rn->col, "route without id%s", "");
    if (yscalar(c, n, "id", &rt->id))
        return -1;
    if (!ONE_OF(route_ids, rt->id))
        return yerr(c, n->line, n->col, "unknown route id '%s' (the ids are fixed: see ROUTES in aotidbg(1))", rt->id);
    for (size_t i = 0; i < ri; i++)
        if (!strcmp(r->routes[i].id, rt->id))
            return yerr(c, n->line, n->col, "route '%s' defined twice", rt->id);
    rt->words.title = rt->id;
    rt->words.explanation = "";
    rt->words.because = "";
    if (parse_words(c, r, rn, &rt->words))
        return -1;
    if ((n = yget(rn, "fallback")) && ybool(c, n, "fallback", &rt->fallback))
        return -1;
    if ((n = yget(rn, "wording")) && parse_variants(c, r, n, rt))
        return -1;
    if ((n = yget(rn, "patterns"))) {
        if (n->type != Y_SEQ)
            return yerr(c, n->line, n->col, "patterns must be a list%s", "");
        for (size_t i = 0; i < n->n; i++)
            if (compile_pattern(c, r, n->items[i], (int)ri, -1))
                return -1;
    }
    return 0;
}

/* platforms: [{id, name, gpu, patterns}]: what in a log says which device ran. */
static int compile_platforms(yctx *c, router_rules *r, const ynode *n)
{
    static const char *const keys[] = {"id", "name", "gpu", "patterns", NULL};
    if (n->type != Y_SEQ)
        return yerr(c, n->line, n->col, "platforms: must be a list%s", "");
    if (n->n > 32)
        return yerr(c, n->line, n->col, "more than %s platforms", "32");
    r->platforms = arena_alloc(&r->arena, (n->n + 1) * sizeof *r->platforms);
    for (size_t i = 0; i < n->n; i++) {
        const ynode *pn = n->items[i], *v;
        if (pn->type != Y_MAP)
            return yerr(c, pn->line, pn->col, "a platform must be a mapping%s", "");
        if (ykeys_known(c, pn, keys))
            return -1;
        rr_platform *pl = &r->platforms[i];
        if (!(v = yget(pn, "id")) || yscalar(c, v, "id", &pl->id))
            return yerr(c, pn->line, pn->col, "platform without id%s", "");
        if (!ONE_OF(platform_ids, pl->id))
            return yerr(c, v->line, v->col, "unknown platform id '%s' (cuda, rocm, xpu, mps, cpu)", pl->id);
        if (router_platform_index(r, pl->id) >= 0)
            return yerr(c, v->line, v->col, "platform '%s' defined twice", pl->id);
        pl->name = pl->id;
        if ((v = yget(pn, "name")) && yscalar(c, v, "name", &pl->name))
            return -1;
        if ((v = yget(pn, "gpu")) && ybool(c, v, "gpu", &pl->gpu))
            return -1;
        r->nplatforms++;
        if ((v = yget(pn, "patterns"))) {
            if (v->type != Y_SEQ)
                return yerr(c, v->line, v->col, "patterns must be a list%s", "");
            for (size_t k = 0; k < v->n; k++)
                if (compile_pattern(c, r, v->items[k], -1, (int)i))
                    return -1;
        }
    }
    return 0;
}

/* Second pass: `explains` names other routes, which now all exist. */
static int link_explains(yctx *c, router_rules *r, const ynode *routes)
{
    for (size_t ri = 0; ri < r->nroutes; ri++) {
        const ynode *n = yget(routes->items[ri], "explains");
        const char **names;
        size_t count;
        if (string_list(c, r, n, "explains", &names, &count))
            return -1;
        rr_route *rt = &r->routes[ri];
        rt->explains = arena_alloc(&r->arena, (count + 1) * sizeof *rt->explains);
        for (size_t i = 0; i < count; i++) {
            int found = -1;
            for (size_t k = 0; k < r->nroutes; k++)
                if (!strcmp(r->routes[k].id, names[i]))
                    found = (int)k;
            if (found < 0 || (size_t)found == ri)
                return yerr(c, n->items[i]->line, n->items[i]->col, "explains: '%s' is not another route here", names[i]);
            rt->explains[rt->nexplains++] = found;
        }
    }
    return 0;
}

static size_t count_patterns(const ynode *list)
{
    size_t total = 0;
    for (size_t i = 0; list && list->type == Y_SEQ && i < list->n; i++) {
        const ynode *p = yget(list->items[i], "patterns");
        if (p && p->type == Y_SEQ)
            total += p->n;
    }
    return total;
}

int router_rules_parse(router_rules **out, const char *text, size_t len, const char *name, strbuf *err)
{
    *out = NULL;
    router_rules *r = xcalloc(1, sizeof *r);
    r->unknown = -1;
    r->cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!r->cloc) {
        strbuf_addf(err, "%s: cannot create the C locale", name);
        free(r);
        return -1;
    }
    yctx c = {&r->arena, name ? name : "<rules>", err};
    ynode *root;
    if (len > ROUTER_RULES_MAX_BYTES) {
        yerr(&c, 1, 1, "rules file larger than %s", "1 MiB");
        goto fail;
    }
    static const ylimits lim = {Y_MAX_DEPTH, Y_MAX_SCALAR, Y_MAX_NODES, "a rules file (version:, platforms:, routes:)",
                                "rules files"};
    if (ytree_parse(&r->arena, c.name, text, len, &lim, &root, err))
        goto fail;
    if (!root) {
        yerr(&c, 1, 1, "empty rules file%s", "");
        goto fail;
    }
    static const char *const top_keys[] = {"version", "platforms", "failures", "routes", NULL};
    if (root->type != Y_MAP) {
        yerr(&c, root->line, root->col, "top level must be a mapping with version: and routes:%s", "");
        goto fail;
    }
    if (ykeys_known(&c, root, top_keys))
        goto fail;
    const ynode *v = yget(root, "version");
    if (!v || v->type != Y_SCALAR || strcmp(v->value, "1")) {
        yerr(&c, v ? v->line : 1, v ? v->col : 1, "version: must be 1%s", "");
        goto fail;
    }
    const ynode *routes = yget(root, "routes");
    if (!routes || routes->type != Y_SEQ || routes->n == 0) {
        yerr(&c, routes ? routes->line : 1, routes ? routes->col : 1, "routes: must be a non-empty list%s", "");
        goto fail;
    }
    const ynode *plats = yget(root, "platforms");
    const ynode *fails = yget(root, "failures");
    if (fails && fails->type != Y_SEQ) {
        yerr(&c, fails->line, fails->col, "failures: must be a list of patterns%s", "");
        goto fail;
    }
    size_t np = count_patterns(routes) + count_patterns(plats) + (fails ? fails->n : 0);
    r->routes = arena_alloc(&r->arena, routes->n * sizeof *r->routes);
    r->patterns = arena_alloc(&r->arena, (np + 1) * sizeof *r->patterns);
    r->hints_cap = 0;
    if (plats && compile_platforms(&c, r, plats))   /* first: routes' `wording:` names them */
        goto fail;
    for (size_t i = 0; fails && i < fails->n; i++) {
        if (compile_pattern(&c, r, fails->items[i], -1, -1))
            goto fail;
        r->patterns[r->npatterns - 1].failure = 1;
    }
    for (size_t i = 0; i < routes->n; i++) {
        if (compile_route(&c, r, routes->items[i], i))
            goto fail;
        r->nroutes++;
        if (!strcmp(r->routes[i].id, "unknown"))
            r->unknown = (int)i;
    }
    if (link_explains(&c, r, routes))
        goto fail;
    for (size_t i = 0; i < r->ntags; i++) {
        int set = 0;
        for (size_t k = 0; k < r->npatterns; k++)
            set |= r->patterns[k].tag == (int)i;
        if (!set) {
            yerr(&c, 1, 1, "needs: '%s' but no pattern has that tag", r->tags[i]);
            goto fail;
        }
    }
    build_bigrams(r);
    *out = r;
    return 0;
fail:
    router_rules_free(r);
    return -1;
}

int router_rules_load(router_rules **out, const char *path, strbuf *err)
{
    strbuf text = STRBUF_INIT;
    *out = NULL;
    if (strbuf_read_file(&text, path, ROUTER_RULES_MAX_BYTES, err)) {
        strbuf_release(&text);
        return -1;
    }
    int rc = router_rules_parse(out, text.buf, text.len, path, err);
    strbuf_release(&text);
    return rc;
}

int router_rules_load_default(router_rules **out, strbuf *err)
{
    const char *dir = aotidbg_data_dir();
    char *p = path_join(dir, "routes.yaml");
    FILE *f = fopen(p, "rb");
    if (!f) {
        free(p);
        p = path_join(dir, "core/router/routes.yaml");
    } else {
        fclose(f);
    }
    int rc = router_rules_load(out, p, err);
    free(p);
    if (rc < 0)
        return rc;
    /* the learned fallback beside the rules: absent is fine (no fallback), broken is an error */
    p = path_join(dir, "router_nb.txt");
    if (!(f = fopen(p, "rb"))) {
        free(p);
        p = path_join(dir, "core/router/router_nb.txt");
        f = fopen(p, "rb");
    }
    if (f) {
        fclose(f);
        if (router_nb_load(&(*out)->nb, p, err) < 0) {
            router_rules_free(*out);
            *out = NULL;
            rc = -1;
        }
    }
    free(p);
    return rc;
}

static router_rules *shared_rules;
static char shared_err[512];

static void load_shared(void)
{
    strbuf err = STRBUF_INIT;
    if (router_rules_load_default(&shared_rules, &err) < 0)
        snprintf(shared_err, sizeof shared_err, "%s", err.buf ? err.buf : "the routing rules could not be loaded");
    strbuf_release(&err);
}

const router_rules *router_rules_shared(strbuf *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_shared);
    if (!shared_rules)
        strbuf_addstr(err, shared_err);
    return shared_rules;
}

void router_rules_free(router_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->npatterns; i++)
        if (r->patterns[i].re_ok)
            regfree(&r->patterns[i].re);
    free(r->bigram);
    router_nb_free(r->nb);
    if (r->cloc)
        freelocale(r->cloc);
    arena_release(&r->arena);
    free(r);
}

int router_platform_index(const router_rules *r, const char *id)
{
    for (size_t i = 0; id && i < r->nplatforms; i++)
        if (!strcmp(r->platforms[i].id, id))
            return (int)i;
    return -1;
}

rr_words router_words(const router_rules *r, size_t ri, int pi)
{
    const rr_route *rt = &r->routes[ri];
    rr_words w = rt->words;
    for (size_t i = 0; pi >= 0 && i < rt->nvariants; i++) {
        const rr_words *v = &rt->variants[i];
        if (!(v->platforms & (1u << pi)))
            continue;
        if (v->title)
            w.title = v->title;
        if (v->explanation)
            w.explanation = v->explanation;
        if (v->because)
            w.because = v->because;
        if (v->has_steps) {
            w.steps = v->steps;
            w.nsteps = v->nsteps;
        }
        if (v->has_actions) {
            w.actions = v->actions;
            w.nactions = v->nactions;
        }
        break;
    }
    return w;
}

size_t router_rules_count(const router_rules *r) { return r->nroutes; }
const char *router_rules_id(const router_rules *r, size_t i) { return i < r->nroutes ? r->routes[i].id : NULL; }
