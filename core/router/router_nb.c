/* router_nb.c — see router_nb.h. The weights file, line by line:
 *
 *   aotidbg-router-nb 1                 the format (first line, exactly)
 *   trained: TEXT                       optional: what it was trained on
 *   temperature T                       > 0: scores are divided by it before the softmax
 *   classes K                           then K lines:
 *   c ROUTE LOGPRIOR UNSEEN             a route id, its log prior, log P(f|c) of a feature it never saw
 *   features M                          then M lines:
 *   f FEATURE @C:LOGP ...               a token ("cuda") or bigram ("out.memory"), @class index:log P(f|c)
 *   docs D                              then D lines:
 *   d ROUTE NAME FEATURE ...            a known log, its label and up to NB_DOC_FEATURES of its features
 *   end                                 (a file cut short has none: rejected)
 *
 * Blank lines and lines starting with '#' are skipped anywhere. */
#define _GNU_SOURCE
#include "router_nb.h"
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "router.h"

typedef struct { int cls; float logp; } nb_entry;
typedef struct {
    char *name;
    size_t nentries;
    nb_entry *entries;
} nb_feature;
typedef struct {
    int cls;
    char *name;
    size_t nfeat;
    int feat[NB_DOC_FEATURES];
} nb_doc;

struct router_nb {
    char *about;
    double temperature;
    size_t nclasses;
    char *cls[NB_MAX_CLASSES];
    double prior[NB_MAX_CLASSES], unseen[NB_MAX_CLASSES];
    size_t nfeatures;
    nb_feature *features;
    size_t hcap;                /* power of two */
    int32_t *htab;              /* feature index, -1 empty */
    size_t ndocs;
    nb_doc *docs;
};

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int nb_find(const router_nb *nb, const char *s, size_t n)
{
    if (!nb->hcap)
        return -1;
    for (size_t i = fnv(s, n) & (nb->hcap - 1);; i = (i + 1) & (nb->hcap - 1)) {
        int32_t f = nb->htab[i];
        if (f < 0)
            return -1;
        const char *name = nb->features[f].name;
        if (!strncmp(name, s, n) && name[n] == 0)
            return f;
    }
}

static void nb_insert(router_nb *nb, int f)
{
    const char *s = nb->features[f].name;
    for (size_t i = fnv(s, strlen(s)) & (nb->hcap - 1);; i = (i + 1) & (nb->hcap - 1))
        if (nb->htab[i] < 0) {
            nb->htab[i] = f;
            return;
        }
}

void router_nb_free(router_nb *nb)
{
    if (!nb)
        return;
    free(nb->about);
    for (size_t i = 0; i < nb->nclasses; i++)
        free(nb->cls[i]);
    for (size_t i = 0; i < nb->nfeatures; i++) {
        free(nb->features[i].name);
        free(nb->features[i].entries);
    }
    free(nb->features);
    free(nb->htab);
    for (size_t i = 0; i < nb->ndocs; i++)
        free(nb->docs[i].name);
    free(nb->docs);
    free(nb);
}

const char *router_nb_about(const router_nb *nb) { return nb && nb->about ? nb->about : ""; }

/* ---- parsing ----------------------------------------------------------------- */

typedef struct {
    const char *name;
    size_t lineno;
    strbuf *err;
} nb_ctx;

static int fail(nb_ctx *c, const char *what, const char *detail)
{
    strbuf_addf(c->err, "%s:%zu: %s%s%s", c->name, c->lineno, what, detail ? ": " : "", detail ? detail : "");
    return -1;
}

/* The next space-separated word of *p (advanced past it), NUL-terminated in place; NULL at the end. */
static char *word(char **p)
{
    char *s = *p;
    while (*s == ' ')
        s++;
    if (!*s)
        return NULL;
    char *e = s;
    while (*e && *e != ' ')
        e++;
    if (*e)
        *e++ = 0;
    *p = e;
    return s;
}

static int parse_double(const char *w, double *out)
{
    if (!w || !*w)
        return -1;
    char *end;
    double v = strtod(w, &end);
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *w, size_t max, size_t *out)
{
    if (!w || !*w || strspn(w, "0123456789") != strlen(w) || strlen(w) > 9)
        return -1;
    size_t v = (size_t)strtoul(w, NULL, 10);
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int is_route_id(const char *s)
{
    static const char *const ids[] = {ROUTE_IDS(ROUTE_NAME_ELEM)};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (!strcmp(ids[i], s))
            return 1;
    return 0;
}

/* A feature: tokens of [a-z_] (2..NB_TOKEN_MAX bytes), one or two joined by '.'. */
static int valid_feature(const char *s)
{
    size_t parts = 0;
    while (*s) {
        size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
        if (n < 2 || n > NB_TOKEN_MAX || ++parts > 2)
            return 0;
        s += n;
        if (*s == '.' && s[1])
            s++;
        else if (*s)
            return 0;
    }
    return parts > 0;
}

static int class_of(const router_nb *nb, const char *s)
{
    for (size_t i = 0; s && i < nb->nclasses; i++)
        if (!strcmp(nb->cls[i], s))
            return (int)i;
    return -1;
}

enum { ST_HEAD, ST_TOP, ST_CLASSES, ST_FEATURES, ST_DOCS, ST_END };

int router_nb_parse(router_nb **out, const char *text, size_t len, const char *name, strbuf *err)
{
    *out = NULL;
    nb_ctx c = {name ? name : "router_nb", 0, err};
    if (len > NB_MAX_BYTES) {
        strbuf_addf(err, "%s: larger than %u bytes", c.name, NB_MAX_BYTES);
        return -1;
    }
    if (memchr(text, 0, len)) {
        strbuf_addf(err, "%s: has a NUL byte (not a text file)", c.name);
        return -1;
    }
    router_nb *nb = xcalloc(1, sizeof *nb);
    nb->temperature = 1;
    int state = ST_HEAD, have_temp = 0;
    size_t want = 0, got = 0;
    char line[4096 + 1];
    const char *p = text, *end = text + len;
    int rc = -1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        c.lineno++;
        if (n > 4096) {
            fail(&c, "line longer than 4096 bytes", NULL);
            goto out;
        }
        memcpy(line, p, n);
        if (n && line[n - 1] == '\r')
            n--;
        line[n] = 0;
        p = nl ? nl + 1 : end;
        if (state == ST_HEAD) {
            if (strcmp(line, NB_FORMAT)) {
                fail(&c, "not a router weights file (the first line must be \"" NB_FORMAT "\")", NULL);
                goto out;
            }
            state = ST_TOP;
            continue;
        }
        if (!n || line[0] == '#')
            continue;
        if (state == ST_END) {
            fail(&c, "text after `end`", NULL);
            goto out;
        }
        char *q = line;
        char *key = word(&q);
        if (!key)
            continue;                      /* spaces only: a blank line */
        if (state == ST_TOP && !strcmp(key, "trained:")) {
            free(nb->about);
            nb->about = xstrdup(q);
            continue;
        }
        if (state == ST_TOP && !strcmp(key, "temperature")) {
            if (parse_double(word(&q), &nb->temperature) || nb->temperature <= 0 || word(&q)) {
                fail(&c, "temperature must be one positive number", NULL);
                goto out;
            }
            have_temp = 1;
            continue;
        }
        /* a section header ends the one before, which must be complete */
        const char *sections[] = {"classes", "features", "docs", "end"};
        int sec = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(key, sections[k]))
                sec = k;
        if (sec >= 0) {
            int expect = state == ST_TOP ? 0 : state == ST_CLASSES ? 1 : state == ST_FEATURES ? 2 : 3;
            if (sec != expect) {
                fail(&c, "sections out of order (classes, features, docs, end)", key);
                goto out;
            }
            if (got != want) {
                strbuf_addf(err, "%s:%zu: %s: %zu entries promised, %zu given", c.name, c.lineno, key, want, got);
                goto out;
            }
            got = 0;
            if (sec == 3) {
                if (!have_temp) {
                    fail(&c, "no temperature line", NULL);
                    goto out;
                }
                state = ST_END;
                continue;
            }
            size_t max = sec == 0 ? NB_MAX_CLASSES : sec == 1 ? NB_MAX_FEATURES : NB_MAX_DOCS;
            if (parse_count(word(&q), max, &want) || word(&q)) {
                strbuf_addf(err, "%s:%zu: %s needs a count of at most %zu", c.name, c.lineno, key, max);
                goto out;
            }
            if (sec == 0 && want == 0) {
                fail(&c, "no classes", NULL);
                goto out;
            }
            state = sec == 0 ? ST_CLASSES : sec == 1 ? ST_FEATURES : ST_DOCS;
            if (sec == 1) {
                nb->features = xcalloc(want + 1, sizeof *nb->features);
                for (nb->hcap = 16; nb->hcap < 2 * want; nb->hcap *= 2)
                    ;
                nb->htab = xmalloc(nb->hcap * sizeof *nb->htab);
                memset(nb->htab, 0xff, nb->hcap * sizeof *nb->htab);
            } else if (sec == 2) {
                nb->docs = xcalloc(want + 1, sizeof *nb->docs);
            }
            continue;
        }
        if (got >= want || (state == ST_CLASSES && strcmp(key, "c")) || (state == ST_FEATURES && strcmp(key, "f")) ||
            (state == ST_DOCS && strcmp(key, "d")) || state == ST_TOP) {
            fail(&c, state == ST_TOP ? "unknown line before `classes`" : "line does not fit its section", key);
            goto out;
        }
        if (state == ST_CLASSES) {
            char *id = word(&q);
            size_t i = nb->nclasses;
            if (!id || !is_route_id(id)) {
                fail(&c, "class is not a route id", id);
                goto out;
            }
            if (class_of(nb, id) >= 0) {
                fail(&c, "class listed twice", id);
                goto out;
            }
            if (parse_double(word(&q), &nb->prior[i]) || parse_double(word(&q), &nb->unseen[i]) || word(&q) ||
                nb->prior[i] > 0 || nb->unseen[i] > 0) {
                fail(&c, "a class needs its log prior and unseen log probability (two numbers <= 0)", id);
                goto out;
            }
            nb->cls[i] = xstrdup(id);
            nb->nclasses++;
        } else if (state == ST_FEATURES) {
            char *fw = word(&q);
            if (!fw || !valid_feature(fw)) {
                fail(&c, "bad feature (tokens of a-z and _, one or two joined by '.')", fw);
                goto out;
            }
            if (nb_find(nb, fw, strlen(fw)) >= 0) {
                fail(&c, "feature listed twice", fw);
                goto out;
            }
            nb_feature *f = &nb->features[nb->nfeatures];
            f->entries = xcalloc(nb->nclasses + 1, sizeof *f->entries);
            f->name = xstrdup(fw);
            nb->nfeatures++;             /* owned from here on, freed with nb */
            char *e;
            while ((e = word(&q))) {
                char *colon = strchr(e, ':');
                size_t ci;
                double v;
                if (*e != '@' || !colon || (*colon = 0, parse_count(e + 1, NB_MAX_CLASSES, &ci)) ||
                    ci >= nb->nclasses ||
                    parse_double(colon + 1, &v) || v > 0 || f->nentries >= nb->nclasses) {
                    fail(&c, "a feature's entries are @CLASS:LOGP (a class index, a number <= 0), each class once", fw);
                    goto out;
                }
                for (size_t k = 0; k < f->nentries; k++)
                    if (f->entries[k].cls == (int)ci) {
                        fail(&c, "a class given twice for one feature", fw);
                        goto out;
                    }
                f->entries[f->nentries].cls = (int)ci;
                f->entries[f->nentries].logp = (float)v;
                f->nentries++;
            }
            nb_insert(nb, (int)nb->nfeatures - 1);
        } else {
            char *id = word(&q), *dn = word(&q);
            int ci = class_of(nb, id);
            if (ci < 0 || !dn) {
                fail(&c, "a doc needs a class of the file and a name", id);
                goto out;
            }
            nb_doc *d = &nb->docs[nb->ndocs];
            d->cls = ci;
            d->name = xstrdup(dn);
            nb->ndocs++;
            char *fw;
            while ((fw = word(&q))) {
                int fi = nb_find(nb, fw, strlen(fw));
                if (fi < 0 || d->nfeat >= NB_DOC_FEATURES) {
                    fail(&c, fi < 0 ? "a doc names a feature the file does not list" : "a doc has too many features", fw);
                    goto out;
                }
                d->feat[d->nfeat++] = fi;
            }
        }
        got++;
    }
    if (state != ST_END) {
        c.lineno++;
        fail(&c, "the file ends before `end` (cut short?)", NULL);
        goto out;
    }
    rc = 0;
out:
    if (rc < 0)
        router_nb_free(nb);
    else
        *out = nb;
    return rc;
}

int router_nb_load(router_nb **out, const char *path, strbuf *err)
{
    strbuf text = STRBUF_INIT;
    *out = NULL;
    if (strbuf_read_file(&text, path, NB_MAX_BYTES + 1, err)) {
        strbuf_release(&text);
        return -1;
    }
    int rc = router_nb_parse(out, text.buf ? text.buf : "", text.len, path, err);
    strbuf_release(&text);
    return rc;
}

/* ---- classifying -------------------------------------------------------------- */

typedef struct {
    const router_nb *nb;
    unsigned char *seen;        /* per feature */
    size_t known;
    double *score;
} nb_run;

static void feature(nb_run *r, const char *s, size_t n)
{
    int f = nb_find(r->nb, s, n);
    if (f < 0 || r->seen[f])
        return;
    r->seen[f] = 1;
    r->known++;
    const nb_feature *nf = &r->nb->features[f];
    for (size_t k = 0; k < nf->nentries; k++)
        r->score[nf->entries[k].cls] += nf->entries[k].logp - r->nb->unseen[nf->entries[k].cls];
}

int router_nb_classify(const router_nb *nb, const char *text, size_t len, router_nb_answer *out)
{
    memset(out, 0, sizeof *out);
    if (!nb || !nb->nclasses)
        return -1;
    double score[NB_MAX_CLASSES] = {0};
    nb_run r = {nb, xcalloc(nb->nfeatures + 1, 1), 0, score};
    char prev[NB_TOKEN_MAX + 1], cur[NB_TOKEN_MAX + 2], pair[2 * NB_TOKEN_MAX + 2];
    size_t prevlen = 0, curlen = 0, runlen = 0;
    for (size_t i = 0; i <= len; i++) {
        unsigned char ch = i < len ? (unsigned char)tolower((unsigned char)text[i]) : 0;
        if ((ch >= 'a' && ch <= 'z') || ch == '_') {
            if (runlen < NB_TOKEN_MAX + 1)
                cur[curlen++] = (char)ch;
            runlen++;
            continue;
        }
        if (!runlen)
            continue;
        size_t tl = runlen;
        cur[curlen] = 0;
        runlen = 0;
        curlen = 0;
        if (tl < 2 || tl > NB_TOKEN_MAX || strspn(cur, "_") >= tl)
            continue;
        feature(&r, cur, tl);
        if (prevlen) {
            memcpy(pair, prev, prevlen);
            pair[prevlen] = '.';
            memcpy(pair + prevlen + 1, cur, tl);
            feature(&r, pair, prevlen + 1 + tl);
        }
        memcpy(prev, cur, tl);
        prevlen = tl;
    }
    int rc = -1;
    if (r.known) {
        double z = -INFINITY;
        for (size_t c = 0; c < nb->nclasses; c++) {
            score[c] = (score[c] + nb->prior[c] + (double)r.known * nb->unseen[c]) / nb->temperature;
            if (score[c] > z)
                z = score[c];
        }
        double sum = 0;
        for (size_t c = 0; c < nb->nclasses; c++)
            sum += exp(score[c] - z);
        int best = -1, second = -1;
        for (size_t c = 0; c < nb->nclasses; c++) {
            if (best < 0 || score[c] > score[best]) {
                second = best;
                best = (int)c;
            } else if (second < 0 || score[c] > score[second]) {
                second = (int)c;
            }
        }
        out->route = nb->cls[best];
        out->confidence = exp(score[best] - z) / sum;
        if (second >= 0) {
            out->second = nb->cls[second];
            out->second_confidence = exp(score[second] - z) / sum;
        }
        out->features = r.known;
        /* nearest known logs: the share of each one's features this log has; its class first on ties */
        double bestv[NB_NEAREST] = {0};
        for (size_t d = 0; d < nb->ndocs; d++) {
            const nb_doc *doc = &nb->docs[d];
            if (!doc->nfeat)
                continue;
            size_t have = 0;
            for (size_t k = 0; k < doc->nfeat; k++)
                have += r.seen[doc->feat[k]];
            double v = (double)have / (double)doc->nfeat + (doc->cls == best ? 1e-6 : 0);
            if (have == 0)
                continue;
            for (size_t k = 0; k < NB_NEAREST; k++) {
                if (k >= out->nnearest || v > bestv[k]) {
                    size_t last = out->nnearest < NB_NEAREST ? out->nnearest : NB_NEAREST - 1;
                    for (size_t m = last; m > k; m--) {
                        bestv[m] = bestv[m - 1];
                        out->nearest[m] = out->nearest[m - 1];
                        out->nearest_route[m] = out->nearest_route[m - 1];
                    }
                    bestv[k] = v;
                    out->nearest[k] = doc->name;
                    out->nearest_route[k] = nb->cls[doc->cls];
                    if (out->nnearest < NB_NEAREST)
                        out->nnearest++;
                    break;
                }
            }
        }
        rc = 0;
    }
    free(r.seen);
    return rc;
}
