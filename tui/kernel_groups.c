/* kernel_groups.c — consecutive kernels grouped by layer or source line (see kernel_groups.h). */
#include "kernel_groups.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "stack_trace.h"
#include "compat.h"

struct kgroups {
    arena ar;                  /* group keys */
    kg_mode mode;
    kgroup *g;
    size_t n, cap;
    size_t *of;                /* group of each synced kernel */
    size_t of_cap;
    int64_t synced;            /* kernels grouped so far */
    const event *last;         /* s->kernels[synced - 1], to notice a restart */
    const char **plain;        /* distinct keys of groups with no numbered layer ("tok"), in ar */
    size_t nplain, plain_cap;
    int64_t *line0;            /* display line of each group's header */
    size_t line0_ok;           /* line0[0 .. line0_ok) are current */
};

kgroups *kgroups_new(void)
{
    return xcalloc(1, sizeof(kgroups));
}

static void reset(kgroups *g, kg_mode m)
{
    arena_release(&g->ar);
    g->n = 0;
    g->synced = 0;
    g->last = NULL;
    g->line0_ok = 0;
    g->nplain = 0;
    g->mode = m;
}

void kgroups_free(kgroups *g)
{
    if (!g)
        return;
    arena_release(&g->ar);
    free(g->g);
    free(g->of);
    free(g->line0);
    free(g->plain);
    free(g);
}

static const char *const mode_names[KG__COUNT] = {"none", "layer", "line"};
const char *kg_mode_name(kg_mode m) { return m >= 0 && m < KG__COUNT ? mode_names[m] : "?"; }
int kg_mode_from_name(const char *s)
{
    for (int i = 0; s && i < KG__COUNT; i++)
        if (!strcmp(s, mode_names[i]))
            return i;
    return -1;
}

/* "blocks.0": a key that ends at a numeric part. */
static int numbered_key(const char *k)
{
    const char *dot = strrchr(k, '.');
    const char *last = dot ? dot + 1 : k;
    return *last && strspn(last, "0123456789") == strlen(last);
}

static int plain_seen(const kgroups *g, const char *key)
{
    for (size_t i = 0; i < g->nplain; i++)
        if (!strcmp(g->plain[i], key))
            return 1;
    return 0;
}

/* The layer key of a call: its first weight's layer, except a kernel that
 * recomputes an earlier plain layer (Inductor fuses the embedding again into
 * each block's layer norm: tok.weight, pos.weight, blocks.1.ln1.weight) goes
 * with the numbered layer it also passes, not back under "tok". */
static void layer_key(const kgroups *g, const kernel_call *c, char *buf, size_t n)
{
    int numbered;
    if (!c->nparams || !kernel_param_layer(c->params[0], buf, n, &numbered) || numbered)
        return;
    const kgroup *last = g->n ? &g->g[g->n - 1] : NULL;
    if (!last || !strcmp(buf, last->key) || !plain_seen(g, buf))
        return;
    char other[256];
    for (size_t i = 1; i < c->nparams; i++)
        if (kernel_param_layer(c->params[i], other, sizeof other, &numbered) && numbered) {
            snprintf(buf, n, "%s", other);
            return;
        }
}

/* The group key of a call in mode m into buf; "" when the call names none. */
static void key_of(const kgroups *g, const kernel_call *c, kg_mode m, char *buf, size_t n)
{
    buf[0] = 0;
    if (!c)
        return;
    if (m == KG_LAYER) {
        layer_key(g, c, buf, n);
        return;
    }
    st_frame f;
    if (kernel_call_sites(c, &f, 1)) {
        int bl;
        const char *b = st_frame_base(&f, &bl);
        snprintf(buf, n, "%.*s:%lld", bl, b, (long long)f.line);
    }
}

void kgroups_sync(kgroups *g, const session *s, kg_mode m)
{
    int64_t nk = (int64_t)s->nkernels;
    if (m != g->mode || g->synced > nk || (g->synced && s->kernels[g->synced - 1] != g->last))
        reset(g, m);
    if (m == KG_NONE || g->synced == nk)
        return;
    if ((size_t)nk > g->of_cap) {
        g->of_cap = (size_t)nk * 2;
        g->of = xrealloc(g->of, g->of_cap * sizeof *g->of);
    }
    char key[256];
    for (int64_t i = g->synced; i < nk; i++) {
        key_of(g, session_kernel_call(s, &s->kernels[i]->u.kernel), m, key, sizeof key);
        kgroup *last = g->n ? &g->g[g->n - 1] : NULL;
        if (last && (!key[0] || !strcmp(key, last->key))) {   /* no key: stays with the group before */
            last->n++;
        } else {
            if (g->n == g->cap) {
                g->cap = g->cap ? g->cap * 2 : 64;
                g->g = xrealloc(g->g, g->cap * sizeof *g->g);
                g->line0 = xrealloc(g->line0, g->cap * sizeof *g->line0);
            }
            g->g[g->n++] = (kgroup){i, 1, arena_strdup(&g->ar, key), 0};
            if (m == KG_LAYER && key[0] && !numbered_key(key) && !plain_seen(g, key)) {
                if (g->nplain == g->plain_cap) {
                    g->plain_cap = g->plain_cap ? g->plain_cap * 2 : 16;
                    g->plain = xrealloc(g->plain, g->plain_cap * sizeof *g->plain);
                }
                g->plain[g->nplain++] = g->g[g->n - 1].key;
            }
        }
        g->of[i] = g->n - 1;
    }
    g->synced = nk;
    g->last = s->kernels[nk - 1];
}

size_t kgroups_count(const kgroups *g) { return g->n; }
const kgroup *kgroups_at(const kgroups *g, size_t i) { return i < g->n ? &g->g[i] : NULL; }
size_t kgroups_of(const kgroups *g, int64_t k)
{
    if (k < 0 || !g->synced)
        return 0;
    return g->of[k < g->synced ? k : g->synced - 1];
}

void kgroups_fold(kgroups *g, size_t i, int folded)
{
    if (i >= g->n || g->g[i].folded == folded)
        return;
    g->g[i].folded = folded;
    if (g->line0_ok > i + 1)
        g->line0_ok = i + 1;
}

void kgroups_fold_all(kgroups *g, int folded)
{
    for (size_t i = 0; i < g->n; i++)
        g->g[i].folded = folded;
    g->line0_ok = 0;
}

static int64_t group_lines(const kgroup *x) { return 1 + (x->folded ? 0 : x->n); }

static void update_lines(kgroups *g)
{
    if (!g->n)
        return;
    if (!g->line0_ok) {
        g->line0[0] = 0;
        g->line0_ok = 1;
    }
    for (size_t i = g->line0_ok; i < g->n; i++)
        g->line0[i] = g->line0[i - 1] + group_lines(&g->g[i - 1]);
    g->line0_ok = g->n;
}

int64_t kgroups_lines(kgroups *g)
{
    if (!g->n)
        return 0;
    update_lines(g);
    return g->line0[g->n - 1] + group_lines(&g->g[g->n - 1]);
}

int64_t kgroups_line_of(kgroups *g, int64_t k)
{
    if (!g->n || k < 0)
        return 0;
    update_lines(g);
    size_t i = kgroups_of(g, k);
    const kgroup *x = &g->g[i];
    if (x->folded)
        return g->line0[i];
    if (k >= x->first + x->n)
        k = x->first + x->n - 1;
    return g->line0[i] + 1 + (k - x->first);
}

void kgroups_item(kgroups *g, int64_t l, size_t *group, int64_t *kernel)
{
    *group = 0;
    *kernel = -1;
    if (!g->n)
        return;
    update_lines(g);
    size_t lo = 0, hi = g->n;   /* the last group whose header is at or before l */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (g->line0[mid] <= l)
            lo = mid;
        else
            hi = mid;
    }
    *group = lo;
    int64_t off = l - g->line0[lo];
    if (off > 0 && !g->g[lo].folded && off <= g->g[lo].n)
        *kernel = g->g[lo].first + off - 1;
}

int64_t kgroups_step(kgroups *g, int64_t k, int64_t n)
{
    if (!g->n)
        return k + n;
    int dir = n < 0 ? -1 : 1;
    for (int64_t s = 0; s < (n < 0 ? -n : n); s++) {
        size_t i = kgroups_of(g, k);
        const kgroup *x = &g->g[i];
        if (dir > 0) {
            if (!x->folded && k + 1 < x->first + x->n)
                k++;
            else if (i + 1 < g->n)
                k = g->g[i + 1].first;
            else
                break;
        } else {
            if (!x->folded && k > x->first)
                k--;
            else if (i > 0)
                k = g->g[i - 1].folded ? g->g[i - 1].first : g->g[i - 1].first + g->g[i - 1].n - 1;
            else
                break;
        }
    }
    return k;
}
