/* router.c — streams a log through the compiled rules and picks the route.
 *
 * Per line (a long line: per window of ROUTER_LINE_CAP bytes, consecutive
 * windows sharing ROUTER_LINE_OVERLAP): drop ANSI escapes and control bytes,
 * strip log prefixes ([rank0]:, glog `E1130 12:00:00.123 456 file.cpp:12]`,
 * ISO timestamps, `(Worker pid=12)`), then collapse repeats (a line equal to the previous one once
 * digits are ignored — the same assert from 512 threads — only bumps counts).
 * A bigram prefilter picks the few patterns whose literal occurs in the line;
 * only those run as regexes (in the "C" locale, so bytes are bytes).
 * Memory is bounded: the first match of every pattern plus at most
 * ROUTER_MAX_EVIDENCE further distinct lines are kept, each with
 * ROUTER_CONTEXT_LINES lines of context.
 *
 * Picking: the failing line comes first: the first line a `failures:`
 * pattern matched (an exception, assert, abort, compiler or loader error; not
 * a source line echoed under a traceback frame) on which a specific route
 * states a cause picks that route, and the rest only add facts. Otherwise
 * each matched pattern counts once, for the first line it matched;
 * on one line a route's strongest pattern counts, distinct lines add up. A route
 * with a strong primary match (weight >= RR_STRONG) turns the routes it
 * `explains` into consequences; routes seen only through consequence lines
 * lose to any route with a primary match. The best remaining score wins; the
 * rest go to `also:` with the reason. Nothing over 1.0: `unknown`, and the
 * result lists the error-like lines that were read (looked).
 * Platform patterns (no route) score the platforms the same way; the caller's
 * platform, when given, wins; the winner picks the route's wording. */
#define _GNU_SOURCE
#include "compat.h"
#include "router_rules.h"
#include "log_parts.h"
#include "router_nb.h"
#include <ctype.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROUTE_MIN_SCORE 1.0
#define CTX_CAP 512
#define CAPTURE_CAP 1024
#define LOOKED_CAP 300
#define STEP_TEXTS 34          /* distinct wordings of one step */
#define NAMED_PLATFORM 6.0    /* a platform's score that says the text names it outright */
#define FAIL_MIN_WEIGHT 4.0   /* a route's weight on a failure line that lets that line pick the route */

typedef struct { const char *name, *value; } capture;

#define FAIL_CANDIDATES 8
#define FAIL_PATTERNS 16
typedef struct {
    size_t line;
    log_part_kind kind;                /* the line's part (log_parts.h) */
    int pat[FAIL_PATTERNS];
    size_t npat;
    char text[LOOKED_CAP + 1];
} fail_candidate;

typedef struct {
    size_t line, count;
    int pattern;
    uint64_t key;
    log_part_kind kind;                /* the part its line is (log_parts.h) */
    const char *origin;                /* facts; NULL for input lines */
    const char *text;
    const char *before[ROUTER_CONTEXT_LINES];
    size_t ncaps;
    capture *caps;
} evidence;

struct router_stream {
    const router_rules *rules;
    arena a;
    char raw[ROUTER_LINE_CAP + 1];     /* the current line, or its current window */
    size_t rawlen;
    int segmented;                     /* the current line already had a window scanned */
    char work[ROUTER_LINE_CAP + 1];    /* a window being cleaned and matched */
    char lc[ROUTER_LINE_CAP + 1];
    size_t lineno, bytes, long_lines;
    const char *origin;                /* set while a fact is scanned */
    size_t *last_line;                 /* per pattern: input line of its last record, 0 */
    int platform_hint;                 /* the caller's platform, -1 */
    const char *platform_origin;
    int error_like;                    /* the prefilter saw an error-like word in this line */
    size_t looked_total;               /* error-like lines seen; [0] keeps the first, 1.. ring over the latest */
    size_t looked_line[ROUTER_LOOKED_LINES];
    char looked_text[ROUTER_LOOKED_LINES][LOOKED_CAP + 1];
    int input_cut;
    uint64_t prev_key;
    int have_prev;
    size_t nprev_ev;
    int *prev_ev;                      /* evidence indexes matched by the previous line */
    int *first_ev;                     /* per pattern: evidence of its first match, -1 */
    unsigned char *hit;                /* per pattern: prefilter hit on this line */
    int *hitlist;
    size_t nhit;
    evidence *ev;
    size_t nev, evcap, extra_ev;       /* extra_ev: repeats beyond first matches */
    char ctx[ROUTER_CONTEXT_LINES][CTX_CAP];
    size_t nctx;                       /* lines seen, for the ring */
    /* failure lines (routes.yaml failures:): the first FAIL_CANDIDATES, each
     * with the primary route patterns that matched it; finish picks the
     * failing line among them */
    int code_next, code_line;          /* the next / this line echoes source under a traceback frame (never a failure line) */
    size_t frame_indent;               /* the previous line's indentation */
    int line_failure;                  /* a failure pattern matched this window */
    int line_pat[FAIL_PATTERNS];       /* primary route patterns matched on this window */
    size_t nline_pat;
    size_t nfail;
    fail_candidate fail[FAIL_CANDIDATES];
    log_part_kind line_kind;           /* the current line's part (log_line_part), once line_kind_ready */
    int line_kind_ready, line_level;   /* classified only when a pattern or failure needs it (most lines: never) */
    const char *line_text;             /* the current window's cleaned text, line_len bytes */
    size_t line_len;
    unsigned char *nonwarn;            /* per pattern: matched a line that is not a warning */
    /* the text the learned fallback reads (router_nb.h): the first NB_HEAD
     * bytes and a ring over the last NB_TAIL */
    char *nb_head, *nb_tail;
    size_t nb_headlen, nb_tailpos, nb_taillen;
};

router_stream *router_stream_new(const router_rules *rules)
{
    router_stream *s = xcalloc(1, sizeof *s);
    s->rules = rules;
    size_t np = rules->npatterns;
    s->first_ev = arena_alloc(&s->a, (np + 1) * sizeof *s->first_ev);
    for (size_t i = 0; i < np; i++)
        s->first_ev[i] = -1;
    s->hit = arena_alloc(&s->a, np + 1);
    s->hitlist = arena_alloc(&s->a, (np + 1) * sizeof *s->hitlist);
    s->evcap = np + ROUTER_MAX_EVIDENCE;
    s->ev = arena_alloc(&s->a, (s->evcap + 1) * sizeof *s->ev);
    s->prev_ev = arena_alloc(&s->a, (np + 1) * sizeof *s->prev_ev);
    s->last_line = arena_alloc(&s->a, (np + 1) * sizeof *s->last_line);
    s->nonwarn = arena_alloc(&s->a, np + 1);
    if (rules->nb) {
        s->nb_head = arena_alloc(&s->a, NB_HEAD);
        s->nb_tail = arena_alloc(&s->a, NB_TAIL);
    }
    s->platform_hint = -1;
    return s;
}

/* ---- line cleaning -------------------------------------------------------- */

/* In place: drops ANSI escapes, turns control bytes into spaces, trims. */
static size_t clean_line(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b) {
            if (i + 1 < n && s[i + 1] == '[') {          /* CSI: ESC [ params final */
                i += 2;
                while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    i++;
            } else if (i + 1 < n && s[i + 1] == ']') {   /* OSC: until BEL or ESC \ */
                i += 2;
                while (i < n && s[i] != 0x07 && !(s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\'))
                    i++;
                if (i < n && s[i] == 0x1b)
                    i++;
            } else {
                i++;
            }
            continue;
        }
        s[o++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    while (o > 0 && s[o - 1] == ' ')
        o--;
    s[o] = 0;
    return o;
}

static int isdig(char c) { return c >= '0' && c <= '9'; }

static const char *skip_digits(const char *p, int min)
{
    int k = 0;
    while (isdig(*p))
        p++, k++;
    return k >= min ? p : NULL;
}

/* `[rank0]:`, `[default3]:`, `rank0:` */
static const char *strip_rank(const char *p)
{
    const char *q = p;
    int br = *q == '[';
    if (br)
        q++;
    const char *w = q;
    while (isalpha((unsigned char)*q))
        q++;
    if (q == w || !(q = skip_digits(q, 1)))
        return NULL;
    if (br) {
        if (*q != ']')
            return NULL;
        q++;
        if (*q == ':')
            q++;
    } else {
        if (*q != ':' || !starts_with(w, "rank"))
            return NULL;
        q++;
    }
    return q;
}

/* glog: `E1130 12:00:00.123456 4567 file.cpp:12] ` optionally inside [ ] */
static const char *strip_glog(const char *p)
{
    const char *q = p;
    if (*q == '[')
        q++;
    if (!strchr("IWEF", *q) || !*q)
        return NULL;
    q++;
    const char *d = skip_digits(q, 3);        /* MMDD; c10 drops the month's leading zero */
    if (!d || d - q > 4 || *d != ' ')
        return NULL;
    q = d + 1;
    if (!isdig(*q))
        return NULL;
    while (isdig(*q) || *q == ':' || *q == '.')
        q++;
    /* the rest up to `file:line]` within a short distance */
    for (int k = 0; k < 200 && *q; k++, q++) {
        if (*q == ']' && isdig(q[-1])) {
            q++;
            return q;
        }
    }
    return NULL;
}

/* ISO-8601-ish: `2024-01-02T03:04:05.678Z`, `2024-01-02 03:04:05,678 `, in [] or not */
static const char *strip_iso(const char *p)
{
    const char *q = p;
    int br = *q == '[';
    if (br)
        q++;
    const char *d = skip_digits(q, 4);
    if (!d || d - q != 4 || *d != '-' || !isdig(d[1]) || !isdig(d[2]) || d[3] != '-' || !isdig(d[4]) || !isdig(d[5]))
        return NULL;
    q = d + 6;
    if (*q == 'T' || *q == ' ') {
        if (!isdig(q[1]))
            return NULL;
        q++;
        while (isdig(*q) || *q == ':' || *q == '.' || *q == ',')
            q++;
        if (*q == 'Z')
            q++;
        else if ((*q == '+' || *q == '-') && isdig(q[1])) {
            q++;
            while (isdig(*q) || *q == ':')
                q++;
        }
    }
    if (br) {
        if (*q != ']')
            return NULL;
        q++;
    }
    while (*q == ' ' || *q == '|' || *q == '-' || *q == ':')
        q++;
    return q;
}

/* `(EngineCore_0 pid=9492) `, `(RayWorker pid=12, ip=10.0.0.1) `, `(pid=12) `: multi-process launchers */
static const char *strip_pid(const char *p)
{
    if (*p != '(')
        return NULL;
    const char *close = memchr(p, ')', strnlen(p, 120));
    if (!close)
        return NULL;
    const char *pid = strstr(p, "pid=");
    if (!pid || pid > close || !isdig(pid[4]))
        return NULL;
    return close + 1;
}

/* vLLM/SGLang's logger: `ERROR 03-27 11:38:51 [core.py:343] `, `INFO 06-25 02:18:38 llm.py:12] ` */
static const char *strip_levelword(const char *p, int *level)
{
    static const char *const words[] = {"DEBUG ", "INFO ", "WARNING ", "WARN ", "ERROR ", "CRITICAL "};
    static const char letter[] = {'I', 'I', 'W', 'W', 'E', 'E'};
    if (!strchr("DIWEC", *p) || !*p || !(p[1] >= 'A' && p[1] <= 'Z'))
        return NULL;                      /* most lines: one test */
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        size_t n = strlen(words[k]);
        if (strncmp(p, words[k], n))
            continue;
        const char *q = p + n;
        if (!(isdig(q[0]) && isdig(q[1]) && q[2] == '-' && isdig(q[3]) && isdig(q[4]) && q[5] == ' ' && isdig(q[6])))
            return NULL;
        q += 6;
        while (isdig(*q) || *q == ':' || *q == '.' || *q == ',')
            q++;
        while (*q == ' ')
            q++;
        const char *close = memchr(q, ']', strnlen(q, 120));   /* `[file.py:12]` or `file.py:12]` */
        if (close && close > q && isdig(close[-1]) && !memchr(q, ' ', (size_t)(close - q)))
            q = close + 1;
        *level = letter[k];
        return q;
    }
    return NULL;
}

/* Strips the prefixes; *level gets a logger's level word's letter ('W', 'E', 'I') when one was among them. */
static const char *strip_prefixes(const char *p, int *level)
{
    for (int k = 0; k < 6; k++) {
        while (*p == ' ')
            p++;
        const char *q;
        if ((q = strip_rank(p)) || (q = strip_glog(p)) || (q = strip_iso(p)) || (q = strip_pid(p)) ||
            (q = strip_levelword(p, level))) {
            p = q;
            continue;
        }
        break;
    }
    while (*p == ' ')
        p++;
    return p;
}

/* Hash of the line with every run of digits replaced by one '#'. */
static uint64_t line_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s) {
        unsigned char c = (unsigned char)*s++;
        if (isdig((char)c)) {
            while (isdig(*s))
                s++;
            c = '#';
        }
        h = (h ^ c) * 1099511628211ULL;
    }
    return h;
}

/* Copies s into the arena as valid UTF-8 (invalid bytes become '?'), at most cap bytes. */
static char *utf8_dup(arena *a, const char *s, size_t cap)
{
    size_t n = strlen(s);
    if (n > cap)
        n = cap;
    char *o = arena_alloc(a, n + 1);
    size_t i = 0, j = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (i < n) {
        unsigned char c = u[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        int ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (u[i + k] & 0xc0) == 0x80;
        if (ok && len == 2 && c < 0xc2)
            ok = 0;                                        /* overlong */
        if (ok && len == 3 && ((c == 0xe0 && u[i + 1] < 0xa0) || (c == 0xed && u[i + 1] >= 0xa0)))
            ok = 0;                                        /* overlong, surrogates */
        if (ok && len == 4 && ((c == 0xf0 && u[i + 1] < 0x90) || c > 0xf4 || (c == 0xf4 && u[i + 1] >= 0x90)))
            ok = 0;
        if (!ok) {
            o[j++] = '?';
            i++;
            continue;
        }
        memcpy(o + j, u + i, len);
        i += len;
        j += len;
    }
    o[j] = 0;
    return o;
}

/* ---- matching ------------------------------------------------------------- */

static int find_evidence(router_stream *s, int pattern, uint64_t key)
{
    for (size_t i = 0; i < s->nev; i++)
        if (s->ev[i].pattern == pattern && s->ev[i].key == key)
            return (int)i;
    return -1;
}

/* The current line's part (log_parts.h), classified on first need. */
static log_part_kind current_kind(router_stream *s)
{
    if (!s->line_kind_ready) {
        s->line_kind = log_line_part(s->line_text, s->line_len, s->line_level);
        s->line_kind_ready = 1;
    }
    return s->line_kind;
}

/* A match of pattern pi on line: a repeat (same pattern, same line but for
 * digits) bumps a count; a new line becomes evidence, with the pattern's
 * fields (only then are submatches asked for: most matches are repeats). */
static void record(router_stream *s, int pi, const char *line, uint64_t key)
{
    const rr_pattern *pt = &s->rules->patterns[pi];
    if (pt->failure) {
        s->line_failure = 1;
        return;
    }
    if (pt->route >= 0 && !pt->consequence && !s->origin && s->nline_pat < FAIL_PATTERNS)
        s->line_pat[s->nline_pat++] = pi;
    if (log_part_severity(current_kind(s)) != LOG_SEV_WARNING)
        s->nonwarn[pi] = 1;
    if (!s->origin) {
        if (s->last_line[pi] == s->lineno)
            return;                               /* the same line's previous window matched it */
        s->last_line[pi] = s->lineno;
    }
    int e = find_evidence(s, pi, key);
    if (e >= 0) {
        s->ev[e].count++;
        s->prev_ev[s->nprev_ev++] = e;
        return;
    }
    int first = s->first_ev[pi] < 0;
    if (!first && (s->extra_ev >= ROUTER_MAX_EVIDENCE || pt->platform >= 0))
        return;                                   /* bounded: later distinct repeats are dropped */
    if (s->nev >= s->evcap)
        return;
    if (!first)
        s->extra_ev++;
    evidence *ev = &s->ev[s->nev];
    memset(ev, 0, sizeof *ev);
    ev->line = s->origin ? 0 : s->lineno;
    ev->origin = s->origin;
    ev->count = 1;
    ev->pattern = pi;
    ev->key = key;
    ev->kind = current_kind(s);
    ev->text = utf8_dup(&s->a, line, ROUTER_LINE_CAP);
    for (size_t k = 0; k < ROUTER_CONTEXT_LINES; k++) {
        /* ring holds the lines before this one; oldest first */
        size_t have = s->nctx < ROUTER_CONTEXT_LINES ? s->nctx : ROUTER_CONTEXT_LINES;
        if (k < have) {
            size_t idx = (s->nctx - have + k) % ROUTER_CONTEXT_LINES;
            ev->before[k] = utf8_dup(&s->a, s->ctx[idx], CTX_CAP);
        }
    }
    regmatch_t m[RR_MAX_GROUPS];
    if (pt->nfields && pt->is_regex && regexec(&pt->re, line, RR_MAX_GROUPS, m, 0) == 0) {
        ev->caps = arena_alloc(&s->a, pt->nfields * sizeof *ev->caps);
        for (size_t f = 0; f < pt->nfields; f++) {
            const regmatch_t *g = &m[pt->fields[f].group];
            if (g->rm_so < 0 || g->rm_eo < g->rm_so)
                continue;
            size_t len = (size_t)(g->rm_eo - g->rm_so);
            char tmp[CAPTURE_CAP + 1];
            if (len > CAPTURE_CAP)
                len = CAPTURE_CAP;
            memcpy(tmp, line + g->rm_so, len);
            tmp[len] = 0;
            ev->caps[ev->ncaps].name = pt->fields[f].name;
            ev->caps[ev->ncaps].value = utf8_dup(&s->a, tmp, CAPTURE_CAP);
            ev->ncaps++;
        }
    }
    if (first)
        s->first_ev[pi] = (int)s->nev;
    s->prev_ev[s->nprev_ev++] = (int)s->nev;
    s->nev++;
}

static void mark_hit(router_stream *s, int pi)
{
    if (!s->hit[pi]) {
        s->hit[pi] = 1;
        s->hitlist[s->nhit++] = pi;
    }
}

static void push_context(router_stream *s, const char *line)
{
    char *slot = s->ctx[s->nctx % ROUTER_CONTEXT_LINES];
    size_t n = strlen(line);
    if (n >= CTX_CAP)
        n = CTX_CAP - 1;
    memcpy(slot, line, n);
    slot[n] = 0;
    s->nctx++;
}

/* Keeps a line the prefilter found an error-like word in (error_words in
 * router_rules.c), once per line: a long line's first window shows it. */
static void note_looked(router_stream *s, const char *line)
{
    if (s->looked_total && s->looked_line[s->looked_total == 1 ? 0 : 1 + (s->looked_total - 2) %
                                          (ROUTER_LOOKED_LINES - 1)] == s->lineno)
        return;
    /* slot 0 keeps the first error-like line; the others ring over the latest */
    size_t slot = s->looked_total == 0 ? 0 : 1 + (s->looked_total - 1) % (ROUTER_LOOKED_LINES - 1);
    s->looked_line[slot] = s->lineno;
    size_t n = router_utf8_clip(line, LOOKED_CAP);
    memcpy(s->looked_text[slot], line, n);
    s->looked_text[slot][n] = 0;
    s->looked_total++;
}

/* After a window is matched: keeps it when it is one of the first failure lines. */
static void note_failure(router_stream *s, const char *line)
{
    if (s->line_failure && !s->origin && !s->code_line && s->nfail < FAIL_CANDIDATES &&
        log_part_severity(current_kind(s)) != LOG_SEV_WARNING &&    /* a warning is not what failed */
        !(s->nfail && s->fail[s->nfail - 1].line == s->lineno)) {
        fail_candidate *f = &s->fail[s->nfail++];
        f->line = s->lineno;
        f->kind = current_kind(s);
        memcpy(f->pat, s->line_pat, s->nline_pat * sizeof *f->pat);
        f->npat = s->nline_pat;
        size_t n = router_utf8_clip(line, LOOKED_CAP);
        memcpy(f->text, line, n);
        f->text[n] = 0;
    }
    s->nline_pat = 0;
    s->line_failure = 0;
}

/* `File "x.py", line 12, in f`: the next line is that frame's source, not a message */
static int is_frame_line(const char *line)
{
    line += strspn(line, " >");
    return starts_with(line, "File \"") && strstr(line, "\", line ") != NULL;
}

/* Every further literal requirement of pt has a member in lc (n bytes). */
static int checks_hold(const rr_pattern *pt, const char *lc, size_t n)
{
    for (size_t i = 0; i < pt->nchecks; i++) {
        const rr_check *c = &pt->checks[i];
        int any = 0;
        for (size_t k = 0; !any && k < c->n; k++)
            any = memmem(lc, n, c->s[k], c->len[k]) != NULL;
        if (!any)
            return 0;
    }
    return 1;
}

/* Matches one cleaned line (or window) of n bytes against the rules. */
static void match_text(router_stream *s, const char *line, size_t n, uint64_t key)
{
    const router_rules *r = s->rules;
    for (size_t i = 0; i < n; i++)
        s->lc[i] = (char)tolower((unsigned char)line[i]);
    s->lc[n] = 0;
    s->nhit = 0;
    s->error_like = 0;
    const unsigned char *u = (const unsigned char *)s->lc;
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned b = ((unsigned)u[i] << 8) | u[i + 1];
        if (!(r->bigram_bits[b >> 6] & (1ULL << (b & 63))))
            continue;
        int32_t h = r->bigram[b];
        for (; h >= 0; h = r->hints[h].next) {
            const rr_hint *hh = &r->hints[h];
            if (i + hh->len <= n && !memcmp(u + i, hh->s, hh->len)) {
                if (hh->pattern >= 0)
                    mark_hit(s, hh->pattern);
                else
                    s->error_like = 1;
            }
        }
    }
    for (size_t pi = 0; pi < r->npatterns; pi++)
        if (r->patterns[pi].always)
            mark_hit(s, (int)pi);

    for (size_t k = 0; k < s->nhit; k++) {
        int pi = s->hitlist[k];
        s->hit[pi] = 0;
        const rr_pattern *pt = &r->patterns[pi];
        if (!checks_hold(pt, s->lc, n))
            continue;
        if (pt->is_regex) {
            /* most prefilter hits do not match: ask without submatches (no backtracking) */
            if (regexec(&pt->re, line, 0, NULL, 0) == 0)
                record(s, pi, line, key);
        } else {
            int ok = pt->icase ? strstr(s->lc, pt->literal_lc) != NULL : strstr(line, pt->source) != NULL;
            if (ok)
                record(s, pi, line, key);
        }
    }
    note_failure(s, line);
}

/* Scans s->raw (the whole line, or one window of a long line: first says it
 * is the line's start, whole that it is all of it). */
static void scan_segment(router_stream *s, int first, int whole)
{
    if (first)
        s->lineno++;
    size_t n = s->rawlen;
    memcpy(s->work, s->raw, n);
    n = clean_line(s->work, n);
    int level = 0, word_level = 0;
    const char *line = first ? strip_prefixes(s->work, &word_level) : s->work;
    if (first)
        level = line > s->work || s->work[0] == '[' ? log_line_level(s->work, n) : 0;   /* glog's letter; else a logger's word */
    if (first && !level)
        level = word_level;
    n -= (size_t)(line - s->work);
    if (first || !s->line_kind_ready) {          /* a later window keeps the kind its line's first had */
        s->line_kind_ready = 0;
        s->line_level = level;
    }
    s->line_text = line;
    s->line_len = n;
    if (!n)
        return;
    uint64_t key = line_key(line);
    if (first && !s->origin) {
        size_t indent = 0;                /* Python indents a frame's source deeper than the frame */
        while (line - indent > s->work && line[-1 - (ptrdiff_t)indent] == ' ')
            indent++;
        s->code_line = s->code_next && indent > s->frame_indent;
        s->code_next = is_frame_line(line);
        s->frame_indent = indent;
    }
    if (!whole) {
        s->have_prev = 0;                 /* windows never collapse as repeats */
        s->nprev_ev = 0;
    } else if (s->have_prev && key == s->prev_key) {
        for (size_t i = 0; i < s->nprev_ev; i++)
            s->ev[s->prev_ev[i]].count++;
        return;
    } else {
        s->prev_key = key;
        s->have_prev = 1;
        s->nprev_ev = 0;
    }
    match_text(s, line, n, key);
    if (!s->origin && s->error_like)
        note_looked(s, line);
    push_context(s, line);
}

/* The line goes on past a full buffer: scan this window, keep its tail. */
static void scan_window(router_stream *s)
{
    scan_segment(s, !s->segmented, 0);
    s->segmented = 1;
    memmove(s->raw, s->raw + ROUTER_LINE_CAP - ROUTER_LINE_OVERLAP, ROUTER_LINE_OVERLAP);
    s->rawlen = ROUTER_LINE_OVERLAP;
}

static void end_line(router_stream *s)
{
    if (s->segmented) {
        scan_segment(s, 0, 0);
        s->long_lines++;
        s->have_prev = 0;
    } else {
        scan_segment(s, 1, 1);
    }
    s->rawlen = 0;
    s->segmented = 0;
}

/* The learned fallback's text: the first NB_HEAD bytes, a ring over the last NB_TAIL. */
static void nb_keep(router_stream *s, const char *p, size_t len)
{
    if (!s->nb_head)
        return;
    if (s->nb_headlen < NB_HEAD) {
        size_t k = NB_HEAD - s->nb_headlen < len ? NB_HEAD - s->nb_headlen : len;
        memcpy(s->nb_head + s->nb_headlen, p, k);
        s->nb_headlen += k;
    }
    if (len >= NB_TAIL) {
        memcpy(s->nb_tail, p + len - NB_TAIL, NB_TAIL);
        s->nb_tailpos = 0;
        s->nb_taillen = NB_TAIL;
        return;
    }
    size_t first = NB_TAIL - s->nb_tailpos < len ? NB_TAIL - s->nb_tailpos : len;
    memcpy(s->nb_tail + s->nb_tailpos, p, first);
    memcpy(s->nb_tail, p + first, len - first);
    s->nb_tailpos = (s->nb_tailpos + len) % NB_TAIL;
    s->nb_taillen = s->nb_taillen + len > NB_TAIL ? NB_TAIL : s->nb_taillen + len;
}

/* The text router_nb.h says the fallback reads, from the kept head and tail (malloc'd). */
static char *nb_text(const router_stream *s, size_t *len)
{
    size_t total = s->bytes, k;
    char *t = xmalloc(NB_HEAD + NB_TAIL + 2);
    memcpy(t, s->nb_head, s->nb_headlen);
    size_t n = s->nb_headlen;
    if (total <= (size_t)NB_HEAD + NB_TAIL) {
        k = total - s->nb_headlen;              /* the bytes after the head: the ring's last k */
    } else {
        t[n++] = '\n';
        k = NB_TAIL;
    }
    size_t start = (s->nb_tailpos + NB_TAIL - k) % NB_TAIL;
    for (size_t i = 0; i < k; i++)
        t[n++] = s->nb_tail[(start + i) % NB_TAIL];
    t[n] = 0;
    *len = n;
    return t;
}

void router_stream_feed(router_stream *s, const void *data, size_t len)
{
    if (s->bytes + len > ROUTER_MAX_INPUT_BYTES) {
        s->input_cut = 1;
        len = s->bytes < ROUTER_MAX_INPUT_BYTES ? (size_t)(ROUTER_MAX_INPUT_BYTES - s->bytes) : 0;
        if (!len)
            return;
    }
    locale_t old = uselocale(s->rules->cloc);
    const char *p = data, *end = p + len;
    nb_keep(s, p, len);
    s->bytes += len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t take = (size_t)((nl ? nl : end) - p);
        while (take) {
            if (s->rawlen == ROUTER_LINE_CAP)
                scan_window(s);          /* only once more bytes of the line are known: chunking never matters */
            size_t k = ROUTER_LINE_CAP - s->rawlen;
            if (k > take)
                k = take;
            memcpy(s->raw + s->rawlen, p, k);
            s->rawlen += k;
            p += k;
            take -= k;
        }
        if (!nl)
            break;
        end_line(s);
        p = nl + 1;
    }
    uselocale(old);
}

void router_stream_fact(router_stream *s, const char *origin, const char *text)
{
    if (!text || s->rawlen || s->segmented)
        return;                          /* mid-line: the caller broke the contract; keep the input intact */
    locale_t old = uselocale(s->rules->cloc);
    s->origin = arena_strdup(&s->a, origin ? origin : "caller");
    s->have_prev = 0;                    /* a fact never counts as a repeat of an input line */
    size_t lineno = s->lineno;
    while (*text) {
        size_t n = strcspn(text, "\n");
        size_t k = n < ROUTER_LINE_CAP ? n : ROUTER_LINE_CAP;
        memcpy(s->raw, text, k);
        s->rawlen = k;
        scan_segment(s, 1, 1);
        text += n + (text[n] == '\n');
    }
    s->rawlen = 0;
    s->lineno = lineno;                  /* facts are not input lines */
    s->have_prev = 0;
    s->origin = NULL;
    uselocale(old);
}

void router_stream_set_platform(router_stream *s, const char *platform, const char *origin)
{
    int pi = router_platform_index(s->rules, platform);
    if (pi < 0)
        return;
    s->platform_hint = pi;
    s->platform_origin = arena_strdup(&s->a, origin ? origin : "caller");
}

/* ---- picking the route ---------------------------------------------------- */

typedef struct {
    double prim, cons, max_prim;
    int demoted_by;          /* route index that explains this one, -1 */
    int cons_only;
    int warned;              /* its primary patterns matched warning lines only (log_parts.h) */
} route_score;

static void add_field_raw(route_result *r, const char *key, const char *value)
{
    r->fields = arena_grow(&r->arena, r->fields, r->nfields, &r->fields_cap, sizeof *r->fields, 16);
    r->fields[r->nfields].key = arena_strdup(&r->arena, key);
    r->fields[r->nfields].value = arena_strdup(&r->arena, value);
    r->nfields++;
}

const char *route_result_field(const route_result *r, const char *key)
{
    for (size_t i = 0; i < r->nfields; i++)
        if (!strcmp(r->fields[i].key, key))
            return r->fields[i].value;
    return NULL;
}

int route_is_index_oob(const char *route)
{
    return route && (!strcmp(route, "triton-index-oob") || !strcmp(route, "cpp-index-oob"));
}

void route_result_set_field(route_result *r, const char *key, const char *value)
{
    for (size_t i = 0; i < r->nfields; i++)
        if (!strcmp(r->fields[i].key, key)) {
            r->fields[i].value = arena_strdup(&r->arena, value);
            return;
        }
    add_field_raw(r, key, value);
}

static void remove_field(route_result *r, const char *key)
{
    for (size_t i = 0; i < r->nfields; i++)
        if (!strcmp(r->fields[i].key, key)) {
            memmove(&r->fields[i], &r->fields[i + 1], (r->nfields - i - 1) * sizeof *r->fields);
            r->nfields--;
            return;
        }
}

static char *trim(arena *a, const char *v)
{
    while (*v == ' ')
        v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '.' || v[n - 1] == ',' || v[n - 1] == ';'))
        n--;
    return arena_strndup(a, v, n);
}

char *router_demangle(const char *mangled)
{
    if (!mangled || !starts_with(mangled, "_Z"))
        return NULL;
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn fn;
    static int tried;
    if (!tried) {
        tried = 1;
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h)
            fn = (demangle_fn)dlsym(h, "__cxa_demangle");   /* kept open: fn lives as long as the process */
    }
    if (!fn)
        return NULL;
    int status = -1;
    char *out = fn(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Cleans up fields whose raw capture needs a little interpretation. */
static void postprocess_fields(route_result *r)
{
    for (size_t i = 0; i < r->nfields; i++)
        r->fields[i].value = trim(&r->arena, r->fields[i].value);
    const char *kernel = route_result_field(r, "kernel"), *file = route_result_field(r, "file");
    if (kernel && !strcmp(kernel, "unknown")) {
        /* Triton prints `unknown` for the function; the file's stem names the kernel's module */
        if (file) {
            const char *base = strrchr(file, '/');
            base = base ? base + 1 : file;
            size_t n = strlen(base);
            if (n > 3 && !strcmp(base + n - 3, ".py"))
                n -= 3;
            route_result_set_field(r, "kernel", arena_strndup(&r->arena, base, n));
        } else {
            remove_field(r, "kernel");
        }
    }
    const char *bound = route_result_field(r, "bound");
    if (bound && *bound) {
        const char *kind = "expression";
        size_t n = strlen(bound), d = strspn(bound, "0123456789");
        if (d && d + strspn(bound + d, "uUlL") == n && n - d <= 3)
            kind = "literal";           /* 32000, or a C++ literal with its suffix: 32L, 2UL */
        else if ((isalpha((unsigned char)bound[0]) || bound[0] == '_') &&
                 strspn(bound, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n)
            kind = "symbol";
        route_result_set_field(r, "bound_kind", kind);
    }
    const char *sym = route_result_field(r, "symbol");
    if (sym) {
        char *dm = router_demangle(sym);
        if (dm) {
            route_result_set_field(r, "symbol_mangled", sym);
            route_result_set_field(r, "symbol", dm);
            free(dm);
        }
    }
}

static int ev_cmp_line(const void *a, const void *b)
{
    const evidence *x = *(evidence *const *)a, *y = *(evidence *const *)b;
    return x->line < y->line ? -1 : x->line > y->line;
}

size_t router_utf8_clip(const char *s, size_t max)
{
    size_t n = strnlen(s, max + 1);
    if (n <= max)
        return n;
    n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;                       /* s[n] would continue a sequence: cut before its lead byte */
    return n;
}

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* 1 when an entry before order[i] is the same line or fact for the same route
 * in the same role (another of that route's patterns matched it). */
static int same_evidence_shown(const router_rules *rules, evidence *const *order, size_t i)
{
    const evidence *e = order[i];
    const rr_pattern *pe = &rules->patterns[e->pattern];
    for (size_t j = 0; j < i; j++) {
        const evidence *f = order[j];
        const rr_pattern *pf = &rules->patterns[f->pattern];
        if (f->line == e->line && pf->route == pe->route && pf->consequence == pe->consequence &&
            same_str(f->text, e->text) && same_str(f->origin, e->origin))
            return 1;
    }
    return 0;
}

static const char *ev_where(route_result *r, const evidence *e)
{
    return e->origin ? arena_strdup(&r->arena, e->origin) : arena_printf(&r->arena, "line %zu", e->line);
}

static const char *ev_summary(route_result *r, const evidence *e)
{
    char cnt[32] = "";
    if (e->count > 1)
        snprintf(cnt, sizeof cnt, " (x%zu)", e->count);
    return arena_printf(&r->arena, "%s: %.*s%s", ev_where(r, e), (int)router_utf8_clip(e->text, 200), e->text, cnt);
}

/* A step with its `{field}` references replaced by the result's values;
 * NULL (the step is left out) when a referenced field is absent, or when a
 * `{!field}` one is present (that step is for results without it). */
static const char *expand_step(route_result *out, const char *step)
{
    strbuf b = STRBUF_INIT;
    const char *p = step, *ret = NULL;
    for (;;) {
        const char *open = strchr(p, '{'), *close = open ? strchr(open, '}') : NULL;
        if (!close) {
            strbuf_addstr(&b, p);
            break;
        }
        int negate = open[1] == '!';
        char key[64];
        size_t klen = (size_t)(close - open - 1 - negate);
        snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : sizeof key - 1), open + 1 + negate);
        const char *v = route_result_field(out, key);
        if (negate ? v != NULL : v == NULL)
            goto done;
        strbuf_add(&b, p, (size_t)(open - p));
        if (!negate)
            strbuf_addstr(&b, v);
        p = close + 1;
        if (negate && *p == ' ')
            p++;
    }
    ret = arena_strdup(&out->arena, b.buf);
done:
    strbuf_release(&b);
    return ret;
}

/* The names of the platforms of a wording's mask ("CPU", "Intel XPU, Apple MPS/Metal"). */
static const char *platform_names(route_result *out, const router_rules *rules, uint32_t mask)
{
    strbuf b = STRBUF_INIT;
    int cuda = router_platform_index(rules, "cuda");
    if (cuda >= 0 && cuda < 32 && (mask & (1u << cuda))) {
        strbuf_addstr(&b, rules->platforms[cuda].name);     /* the default wording's own platform first */
        mask &= ~(1u << cuda);
    }
    for (size_t k = 0; k < rules->nplatforms && k < 32; k++)
        if (mask & (1u << k)) {
            if (b.len)
                strbuf_addstr(&b, ", ");
            strbuf_addstr(&b, rules->platforms[k].name);
        }
    const char *r = arena_strdup(&out->arena, b.len ? b.buf : "?");
    strbuf_release(&b);
    return r;
}

/* The platform is unknown: each step that differs by platform is given for
 * each ("On CUDA: ...; on CPU: ..."), the default wording being CUDA's; a
 * step every platform words alike once. Steps are paired by position. */
static void render_steps_each_platform(route_result *out, const router_rules *rules, size_t ri)
{
    const rr_route *rt = &rules->routes[ri];
    size_t most = rt->words.nsteps;
    for (size_t v = 0; v < rt->nvariants; v++)
        if (rt->variants[v].has_steps && rt->variants[v].nsteps > most)
            most = rt->variants[v].nsteps;
    out->steps = arena_alloc(&out->arena, (most + 1) * sizeof *out->steps);
    int cuda = router_platform_index(rules, "cuda");
    uint32_t named = 0;                       /* platforms some variant words */
    for (size_t v = 0; v < rt->nvariants; v++)
        named |= rt->variants[v].platforms;
    for (size_t i = 0; i < most; i++) {
        const char *def = i < rt->words.nsteps ? expand_step(out, rt->words.steps[i]) : NULL;
        /* the texts: [0] the default (CUDA and every platform no variant words), then each variant's */
        const char *text[STEP_TEXTS];
        uint32_t mask[STEP_TEXTS];
        size_t nt = 0;
        uint32_t defmask = ~named;
        if (cuda >= 0)
            defmask |= 1u << cuda;
        for (size_t v = 0; v < rt->nvariants && nt + 1 < STEP_TEXTS; v++) {
            const rr_words *w = &rt->variants[v];
            const char *t = w->has_steps ? (i < w->nsteps ? expand_step(out, w->steps[i]) : NULL) : def;
            if (same_str(t, def)) {
                defmask |= w->platforms;
                continue;
            }
            if (!t)
                continue;
            size_t k;
            for (k = 0; k < nt && strcmp(text[k], t); k++)
                ;
            if (k == nt) {
                text[nt] = t;
                mask[nt++] = 0;
            }
            mask[k] |= w->platforms;
        }
        if (!nt) {
            if (def)
                out->steps[out->nsteps++] = def;
            continue;
        }
        strbuf b = STRBUF_INIT;
        if (def) {
            uint32_t m = 0;
            for (size_t k = 0; k < rules->nplatforms && k < 32; k++)
                if (defmask & (1u << k))
                    m |= 1u << k;
            strbuf_addf(&b, "On %s: %s", platform_names(out, rules, m), def);
        }
        for (size_t k = 0; k < nt; k++)
            strbuf_addf(&b, "%s%s: %s", b.len ? " | on " : "On ", platform_names(out, rules, mask[k]), text[k]);
        out->steps[out->nsteps++] = arena_strdup(&out->arena, b.buf);
        strbuf_release(&b);
    }
}

/* Title, explanation, steps and actions of route ri in the platform's words. */
static void render_words(route_result *out, const router_rules *rules, int ri, int pi)
{
    if (ri < 0) {
        out->title = "No known route";
        out->explanation = "";
        out->nsteps = out->nactions = 0;
        return;
    }
    rr_words w = router_words(rules, (size_t)ri, pi);
    out->title = arena_strdup(&out->arena, w.title);
    out->explanation = arena_strdup(&out->arena, w.explanation);
    out->nsteps = 0;
    if (pi < 0 && rules->routes[ri].nvariants) {
        render_steps_each_platform(out, rules, (size_t)ri);
    } else {
        out->steps = arena_alloc(&out->arena, (w.nsteps + 1) * sizeof *out->steps);
        for (size_t i = 0; i < w.nsteps; i++) {
            const char *step = expand_step(out, w.steps[i]);
            if (step)
                out->steps[out->nsteps++] = step;
        }
    }
    out->nactions = w.nactions;
    out->actions = arena_alloc(&out->arena, (w.nactions + 1) * sizeof *out->actions);
    for (size_t i = 0; i < w.nactions; i++) {
        route_action *a = &out->actions[i];
        a->name = arena_strdup(&out->arena, w.actions[i].name);
        a->level = w.actions[i].level;
        a->field = arena_strdup(&out->arena, w.actions[i].field);
        a->value = a->field ? route_result_field(out, a->field) : NULL;
    }
}

static int route_index(const router_rules *rules, const char *id)
{
    for (size_t i = 0; id && i < rules->nroutes; i++)
        if (!strcmp(rules->routes[i].id, id))
            return (int)i;
    return -1;
}

/* The platform: the caller's, a GPU one refined by the text (ROCm torch names
 * its devices "cuda"), else the text's best (ties: file order); -1 when none. */
static int pick_platform(router_stream *s, route_result *out)
{
    const router_rules *rules = s->rules;
    double score[33] = {0};
    int first[33];
    for (size_t k = 0; k < rules->nplatforms && k < 33; k++)
        first[k] = -1;
    for (size_t pi = 0; pi < rules->npatterns; pi++) {
        const rr_pattern *pt = &rules->patterns[pi];
        int e = s->first_ev[pi];
        if (pt->platform < 0 || e < 0)
            continue;
        score[pt->platform] += pt->weight;
        if (first[pt->platform] < 0 || s->ev[e].line < s->ev[first[pt->platform]].line)
            first[pt->platform] = e;
    }
    int best = -1;
    for (size_t k = 0; k < rules->nplatforms; k++)
        if (score[k] >= ROUTE_MIN_SCORE && (best < 0 || score[k] > score[best]))
            best = (int)k;
    /* A log whose text names another platform outright never gets CUDA's
     * words: XPU, MPS and ROCm builds of torch print CUDA's names too (its
     * generic messages, `torch.cuda` calls), a CUDA log rarely theirs; a CPU
     * marker wins over CUDA's weak ones (a bare `cuda` word). */
    if (best >= 0 && !strcmp(rules->platforms[best].id, "cuda")) {
        int other = -1;
        for (size_t k = 0; k < rules->nplatforms; k++) {
            if ((int)k == best || score[k] < NAMED_PLATFORM)
                continue;
            if (!rules->platforms[k].gpu && score[best] >= NAMED_PLATFORM)
                continue;
            if (other < 0 || score[k] > score[other])
                other = (int)k;
        }
        if (other >= 0)
            best = other;
    }
    int hint = s->platform_hint;
    if (hint >= 0 && !(best >= 0 && rules->platforms[hint].gpu && rules->platforms[best].gpu &&
                       !strcmp(rules->platforms[hint].id, "cuda"))) {
        out->platform_from = arena_strdup(&out->arena, s->platform_origin);
        return hint;
    }
    if (best >= 0)
        out->platform_from = ev_summary(out, &s->ev[first[best]]);
    return best;
}

/* The failing line: the first failure line on which a specific (not
 * fallback) route states a cause (a counted primary pattern of weight >=
 * FAIL_MIN_WEIGHT). It picks the strongest route there (ties: the better
 * score over the whole text); -1 when no failure line does. Sets out's
 * failed_* (the first failure line when none routed). */
static int pick_failing_line(router_stream *s, route_result *out, const int *counted, const route_score *sc)
{
    const router_rules *rules = s->rules;
    for (size_t c = 0; c < s->nfail; c++) {
        const fail_candidate *f = &s->fail[c];
        int win = -1;
        double ww = 0;
        for (size_t k = 0; k < f->npat; k++) {
            const rr_pattern *pt = &rules->patterns[f->pat[k]];
            if (!counted[f->pat[k]] || rules->routes[pt->route].fallback || pt->weight < FAIL_MIN_WEIGHT)
                continue;
            if (win < 0 || pt->weight > ww ||
                (pt->weight == ww && sc[pt->route].prim + sc[pt->route].cons > sc[win].prim + sc[win].cons)) {
                win = pt->route;
                ww = pt->weight;
            }
        }
        if (win >= 0) {
            out->failed_line = f->line;
            out->failed_text = utf8_dup(&out->arena, f->text, LOOKED_CAP);
            out->failed_routed = 1;
            return win;
        }
    }
    if (s->nfail) {
        out->failed_line = s->fail[0].line;
        out->failed_text = utf8_dup(&out->arena, s->fail[0].text, LOOKED_CAP);
    }
    return -1;
}

/* Scores every route: counted[pi] says which matched patterns count (their
 * `needs:` tag was set); sc[ri] gets each route's primary and consequence
 * score, the strong route that explains it, and whether only after-effects
 * matched. counted and sc are zeroed arrays of npatterns and nroutes. */
static void score_routes(router_stream *s, int *counted, route_score *sc)
{
    const router_rules *rules = s->rules;
    size_t nr = rules->nroutes, np = rules->npatterns;
    /* tags that some matched pattern set */
    unsigned char *tagset = arena_alloc(&s->a, rules->ntags + 1);
    for (size_t pi = 0; pi < np; pi++)
        if (s->first_ev[pi] >= 0 && rules->patterns[pi].tag >= 0)
            tagset[rules->patterns[pi].tag] = 1;
    for (size_t ri = 0; ri < nr; ri++)
        sc[ri].demoted_by = -1;
    for (size_t pi = 0; pi < np; pi++) {
        const rr_pattern *pt = &rules->patterns[pi];
        if (pt->route < 0 || s->first_ev[pi] < 0 || (pt->needs >= 0 && !tagset[pt->needs]))
            continue;
        counted[pi] = 1;
    }
    /* Distinct lines add up; several patterns of one route on the same line
     * are one piece of evidence and count their strongest (a line that says
     * "OutOfMemoryError: out of memory" twice is not twice as sure). */
    for (size_t pi = 0; pi < np; pi++) {
        if (!counted[pi])
            continue;
        const rr_pattern *pt = &rules->patterns[pi];
        const evidence *e = &s->ev[s->first_ev[pi]];
        int strongest = 1;
        for (size_t pk = 0; pk < np && strongest; pk++) {
            const rr_pattern *o = &rules->patterns[pk];
            if (pk == pi || !counted[pk] || o->route != pt->route || o->consequence != pt->consequence)
                continue;
            const evidence *f = &s->ev[s->first_ev[pk]];
            int same_line = e->origin || f->origin ? e->origin && f->origin && e->key == f->key &&
                                                         !strcmp(e->origin, f->origin)
                                                   : e->line == f->line;
            if (same_line && (o->weight > pt->weight || (o->weight == pt->weight && pk < pi)))
                strongest = 0;
        }
        if (!strongest)
            continue;
        route_score *x = &sc[pt->route];
        if (pt->consequence) {
            x->cons += pt->weight;
        } else {
            x->warned = x->prim == 0 ? !s->nonwarn[pi] : x->warned && !s->nonwarn[pi];
            x->prim += pt->weight;
            if (pt->weight > x->max_prim)
                x->max_prim = pt->weight;
        }
    }
    int any_primary = 0;
    for (size_t ri = 0; ri < nr; ri++)
        any_primary |= sc[ri].prim + sc[ri].cons >= ROUTE_MIN_SCORE && sc[ri].prim > 0;
    for (size_t ri = 0; ri < nr; ri++) {
        if (sc[ri].max_prim < RR_STRONG)
            continue;
        const rr_route *rt = &rules->routes[ri];
        for (size_t k = 0; k < rt->nexplains; k++) {
            route_score *y = &sc[rt->explains[k]];
            if (y->demoted_by < 0)
                y->demoted_by = (int)ri;
        }
    }
    for (size_t ri = 0; ri < nr; ri++)
        sc[ri].cons_only = any_primary && sc[ri].prim == 0 && sc[ri].cons > 0;

}

/* The winner: the failing line's route, else the best specific route, else a
 * fallback (crash), else the best one even if explained; -1 for none. */
static int pick_route(router_stream *s, route_result *out, const int *counted, const route_score *sc)
{
    const router_rules *rules = s->rules;
    size_t nr = rules->nroutes;
    int win = pick_failing_line(s, out, counted, sc);
    /* specific routes first, then fallbacks (crash); a route seen on warning
     * lines alone only when no route has an error (or plain) line: a warning
     * never outranks an error */
    for (int pass = 0; pass < 4 && win < 0; pass++) {
        int fb = pass & 1, warned_ok = pass >= 2;
        for (size_t ri = 0; ri < nr; ri++) {
            double t = sc[ri].prim + sc[ri].cons;
            if (t < ROUTE_MIN_SCORE || sc[ri].demoted_by >= 0 || sc[ri].cons_only ||
                rules->routes[ri].fallback != fb || (sc[ri].warned && !warned_ok))
                continue;
            if (win < 0 || t > sc[win].prim + sc[win].cons)
                win = (int)ri;
        }
    }
    /* Every candidate was explained by another: take the one no strong route explains first. */
    if (win < 0)
        for (size_t ri = 0; ri < nr; ri++) {
            double t = sc[ri].prim + sc[ri].cons;
            if (t >= ROUTE_MIN_SCORE && !sc[ri].cons_only && (win < 0 || t > sc[win].prim + sc[win].cons))
                win = (int)ri;
        }

    return win;
}

/* The error-like lines read, first one first, then the latest in order. */
static void add_looked(router_stream *s, route_result *out)
{
    size_t nl = s->looked_total < ROUTER_LOOKED_LINES ? s->looked_total : ROUTER_LOOKED_LINES;
    out->looked = arena_alloc(&out->arena, (nl + 1) * sizeof *out->looked);
    for (size_t i = 0; i < nl; i++) {
        /* line k (0-based, k >= 1) sits in slot 1 + (k - 1) % (R - 1); show the last R - 1 in order */
        size_t k = i == 0 || s->looked_total <= ROUTER_LOOKED_LINES ? i : s->looked_total - ROUTER_LOOKED_LINES + i;
        size_t slot = i == 0 ? 0 : 1 + (k - 1) % (ROUTER_LOOKED_LINES - 1);
        out->looked[out->nlooked].line = s->looked_line[slot];
        out->looked[out->nlooked++].text = utf8_dup(&out->arena, s->looked_text[slot], LOOKED_CAP);
    }

}

/* Fields: the winner's evidence in line order (order[0..no) starts with it);
 * the first value of a name wins, except that one match naming a field twice
 * joins them ("cuda:1, cuda:0"); `count` when the top line repeated. */
static void add_fields(route_result *out, const router_rules *rules, evidence *const *order, size_t no,
                       const int *counted, int win)
{
    const evidence *top = NULL;
    for (size_t i = 0; i < no && win >= 0; i++) {
        const evidence *e = order[i];
        const rr_pattern *pt = &rules->patterns[e->pattern];
        if (pt->route != win)
            break;
        if (!counted[e->pattern])
            continue;
        if (!pt->consequence && (!top || pt->weight > rules->patterns[top->pattern].weight))
            top = e;
        for (size_t c = 0; c < e->ncaps; c++) {
            const char *name = e->caps[c].name;
            if (!*e->caps[c].value)
                continue;
            int seen_here = 0;
            for (size_t d = 0; d < c; d++)
                seen_here |= !strcmp(e->caps[d].name, name) && *e->caps[d].value;
            const char *have = route_result_field(out, name);
            if (have && seen_here) {
                if (strcmp(have, e->caps[c].value))
                    route_result_set_field(out, name, arena_printf(&out->arena, "%s, %s", have, e->caps[c].value));
            } else if (!have) {
                add_field_raw(out, name, e->caps[c].value);
            }
        }
    }
    if (top && top->count > 1) {
        char buf[32];
        snprintf(buf, sizeof buf, "%zu", top->count);
        route_result_set_field(out, "count", buf);
    }
}

/* also: every other candidate, strongest first, with why it is not the route. */
static void add_also(route_result *out, const router_rules *rules, const route_score *sc, const int *counted,
                     evidence *const *order, size_t no, int win, int plat)
{
    size_t nr = rules->nroutes;
    out->also = arena_alloc(&out->arena, (nr + 1) * sizeof *out->also);
    for (;;) {
        int best = -1;
        for (size_t ri = 0; ri < nr; ri++) {
            double t = sc[ri].prim + sc[ri].cons;
            if ((int)ri == win || t < ROUTE_MIN_SCORE * 0.5 || t <= 0)
                continue;
            int listed = 0;
            for (size_t k = 0; k < out->nalso; k++)
                listed |= !strcmp(out->also[k].route, rules->routes[ri].id);
            if (!listed && (best < 0 || t > sc[best].prim + sc[best].cons))
                best = (int)ri;
        }
        if (best < 0)
            break;
        const evidence *first = NULL;
        for (size_t i = 0; i < no; i++)
            if (rules->patterns[order[i]->pattern].route == best && counted[order[i]->pattern]) {
                first = order[i];
                break;
            }
        const char *where = first ? ev_summary(out, first) : "";
        const char *reason;
        double t = sc[best].prim + sc[best].cons;
        if (win < 0)
            reason = arena_printf(&out->arena, "too little evidence to route (score %.1f < %.1f): %s", t,
                                  ROUTE_MIN_SCORE, where);
        else if (sc[best].demoted_by >= 0)
            reason = arena_printf(&out->arena, "consequence of %s: %s; %s", rules->routes[sc[best].demoted_by].id,
                                  router_words(rules, (size_t)sc[best].demoted_by, plat).because, where);
        else if (rules->routes[best].fallback && !rules->routes[win].fallback)
            reason = arena_printf(&out->arena, "%s is reported only when nothing more specific matched; "
                                  "%s is the cause here; %s", rules->routes[best].id, rules->routes[win].id, where);
        else if (sc[best].warned && !sc[win].warned)
            reason = arena_printf(&out->arena, "named only on warning lines, and a warning never outranks the "
                                  "error %s is seen in; %s", rules->routes[win].id, where);
        else if (sc[best].cons_only)
            reason = arena_printf(&out->arena, "only after-effect lines matched, which follow %s here; %s",
                                  rules->routes[win].id, where);
        else
            reason = arena_printf(&out->arena, "weaker evidence (score %.1f vs %.1f); %s", t,
                                  sc[win].prim + sc[win].cons, where);
        route_also *al = &out->also[out->nalso++];
        al->route = arena_strdup(&out->arena, rules->routes[best].id);
        al->reason = reason;
        al->score = t;
    }
}

/* No rule names a cause: the learned fallback's answer, which routes when it is sure enough. */
static void ask_learned(router_stream *s, route_result *out, int *shown)
{
    const router_rules *rules = s->rules;
    if (!rules->nb || !s->nb_head || !s->bytes)
        return;
    size_t len;
    char *text = nb_text(s, &len);
    router_nb_answer a;
    if (router_nb_classify(rules->nb, text, len, &a) == 0) {
        out->learned_route = arena_strdup(&out->arena, a.route);
        out->learned_confidence = a.confidence;
        for (size_t i = 0; i < a.nnearest && i < 3; i++) {
            out->learned_nearest[i] = arena_strdup(&out->arena, a.nearest[i]);
            out->learned_nearest_route[i] = arena_strdup(&out->arena, a.nearest_route[i]);
        }
        out->nlearned_nearest = a.nnearest < 3 ? a.nnearest : 3;
        int ri = route_index(rules, a.route);
        if (ri >= 0 && a.confidence >= ROUTER_NB_MIN_CONFIDENCE && strcmp(a.route, "unknown")) {
            out->learned_used = 1;
            *shown = ri;
            /* a field too, so that a session's error event and the UI's fields say it was learned */
            route_result_set_field(out, "learned_fallback", arena_printf(&out->arena, "confidence %.2f%s%s",
                                   a.confidence, a.nnearest ? ", nearest known log " : "",
                                   a.nnearest ? a.nearest[0] : ""));
        }
    }
    free(text);
}

/* The part the route was taken from: the failing line's, else the winner's strongest primary line's. */
static void set_part(router_stream *s, route_result *out, evidence *const *order, size_t no, int win)
{
    const router_rules *rules = s->rules;
    for (size_t c = 0; out->failed_routed && c < s->nfail; c++)
        if (s->fail[c].line == out->failed_line) {
            out->part = log_part_name(s->fail[c].kind);
            out->part_line = out->failed_line;
            return;
        }
    const evidence *top = NULL;
    for (size_t i = 0; i < no && win >= 0; i++) {
        const rr_pattern *pt = &rules->patterns[order[i]->pattern];
        if (pt->route != win)
            break;
        if (!pt->consequence && !order[i]->origin && (!top || pt->weight > rules->patterns[top->pattern].weight))
            top = order[i];
    }
    if (top) {
        out->part = log_part_name(top->kind);
        out->part_line = top->line;
    } else if (s->nfail) {
        out->part = log_part_name(s->fail[0].kind);
        out->part_line = s->fail[0].line;
    }
}

void router_stream_finish(router_stream *s, route_result *out)
{
    const router_rules *rules = s->rules;
    if (s->rawlen || s->segmented) {        /* a last line without a newline */
        locale_t old = uselocale(rules->cloc);
        end_line(s);
        uselocale(old);
    }
    memset(out, 0, sizeof *out);
    out->lines = s->lineno;
    out->bytes = s->bytes;
    out->long_lines = s->long_lines;
    out->input_cut = s->input_cut;
    size_t nr = rules->nroutes, np = rules->npatterns;

    int *counted = arena_alloc(&s->a, (np + 1) * sizeof *counted);
    route_score *sc = arena_alloc(&s->a, (nr + 1) * sizeof *sc);
    score_routes(s, counted, sc);
    int win = pick_route(s, out, counted, sc);
    int shown = win >= 0 ? win : rules->unknown;
    if (win < 0)
        ask_learned(s, out, &shown);
    out->route = arena_strdup(&out->arena, shown >= 0 ? rules->routes[shown].id : "unknown");
    out->score = win >= 0 ? sc[win].prim + sc[win].cons : 0;
    int plat = pick_platform(s, out);
    if (plat >= 0)
        out->platform = arena_strdup(&out->arena, rules->platforms[plat].id);

    /* evidence: the winner's first, each group in line order (facts first) */
    evidence **order = arena_alloc(&s->a, (s->nev + 1) * sizeof *order);
    size_t no = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t start = no;
        for (size_t i = 0; i < s->nev; i++) {
            int route = rules->patterns[s->ev[i].pattern].route;
            if (route >= 0 && (win >= 0 && route == win) == (pass == 0))
                order[no++] = &s->ev[i];
        }
        qsort(order + start, no - start, sizeof *order, ev_cmp_line);
    }
    out->evidence = arena_alloc(&out->arena, (no + 1) * sizeof *out->evidence);
    for (size_t i = 0; i < no; i++) {
        const evidence *e = order[i];
        const rr_pattern *pt = &rules->patterns[e->pattern];
        if (same_evidence_shown(rules, order, i))
            continue;   /* several patterns of one route on one line: one piece of evidence */
        route_evidence *o = &out->evidence[out->nevidence++];
        o->line = e->line;
        o->origin = arena_strdup(&out->arena, e->origin);
        o->count = e->count;
        o->route = arena_strdup(&out->arena, rules->routes[pt->route].id);
        o->role = pt->consequence ? "consequence" : "primary";
        o->text = arena_strdup(&out->arena, e->text);
        for (size_t k = 0; k < ROUTER_CONTEXT_LINES; k++)
            o->before[k] = arena_strdup(&out->arena, e->before[k]);
    }
    add_looked(s, out);
    add_fields(out, rules, order, no, counted, win);
    postprocess_fields(out);
    set_part(s, out, order, no, win);
    /* Inductor's index check (a tmp, no block/thread of a device assert) in a
     * CPU log is a generated C++ kernel's */
    int cpp = route_index(rules, "cpp-index-oob");
    if (shown >= 0 && !strcmp(rules->routes[shown].id, "triton-index-oob") && cpp >= 0 && plat >= 0 &&
        !strcmp(rules->platforms[plat].id, "cpu") && route_result_field(out, "tmp") &&
        !route_result_field(out, "block") && !route_result_field(out, "thread")) {
        shown = cpp;
        out->route = arena_strdup(&out->arena, rules->routes[cpp].id);
    }
    render_words(out, rules, shown, plat);
    add_also(out, rules, sc, counted, order, no, win, plat);
    size_t na = 0;
    for (size_t i = 0; i < out->nalso; i++)
        if (strcmp(out->also[i].route, out->route))
            out->also[na++] = out->also[i];
    out->nalso = na;
    arena_release(&s->a);
    free(s);
}

void route_result_set_platform(route_result *r, const router_rules *rules, const char *platform, const char *origin)
{
    int pi = router_platform_index(rules, platform);
    if (pi < 0)
        return;
    int have = router_platform_index(rules, r->platform);
    if (have >= 0 && rules->platforms[pi].gpu && rules->platforms[have].gpu && !strcmp(platform, "cuda"))
        return;                          /* the text already named the GPU platform more precisely */
    r->platform = arena_strdup(&r->arena, rules->platforms[pi].id);
    r->platform_from = arena_strdup(&r->arena, origin ? origin : "caller");
    render_words(r, rules, route_index(rules, r->route), pi);
}

void route_result_refine_index_oob(route_result *r, const router_rules *rules)
{
    if (!r->route || strcmp(r->route, "triton-index-oob") || !route_result_field(r, "tmp") ||
        route_result_field(r, "block") || route_result_field(r, "thread"))
        return;   /* ATen's checks give no tmp; a device assert names its block and thread */
    const char *k = route_result_field(r, "kernel");
    int ri = route_index(rules, "cpp-index-oob");
    if (!k || !starts_with(k, "cpp_") || ri < 0)
        return;
    r->route = arena_strdup(&r->arena, rules->routes[ri].id);
    size_t n = 0;
    for (size_t i = 0; i < r->nalso; i++)
        if (strcmp(r->also[i].route, r->route))
            r->also[n++] = r->also[i];
    r->nalso = n;
    render_words(r, rules, ri, router_platform_index(rules, r->platform));
}

void router_route_buffer(const router_rules *rules, const void *buf, size_t len, route_result *out)
{
    router_stream *s = router_stream_new(rules);
    router_stream_feed(s, buf, len);
    router_stream_finish(s, out);
}

int router_route_file(const router_rules *rules, FILE *f, route_result *out, strbuf *err)
{
    router_stream *s = router_stream_new(rules);
    char buf[65536];
    size_t n;
    while (!s->input_cut && (n = fread(buf, 1, sizeof buf, f)) > 0)
        router_stream_feed(s, buf, n);
    int bad = ferror(f);
    router_stream_finish(s, out);
    if (bad) {
        strbuf_addstr(err, "read error on the input");
        return -1;
    }
    return 0;
}

int router_route_text(const char *text, size_t len, route_result *out, strbuf *err)
{
    const router_rules *shared = router_rules_shared(err);
    if (!shared)
        return -1;
    router_route_buffer(shared, text, len, out);
    return 0;
}

void route_result_release(route_result *r)
{
    arena_release(&r->arena);
    memset(r, 0, sizeof *r);
}
