/* sanitizer_report.c — compute-sanitizer's XML (expat) and text reports; see sanitizer_report.h. */
#include "sanitizer_report.h"
#include <expat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"

#define DEPTH 16

typedef struct {
    arena *a;
    san_report *out;
    size_t cap;
    int depth;                 /* elements open */
    int rec_depth;             /* depth of the open <record>, 0 none */
    const char *path[DEPTH];   /* names of the open elements (expat's, valid while open) */
    strbuf text;               /* character data of the innermost element */
    san_record cur;
    int keep;                  /* cur goes into out (under the cap) */
} xml_state;

static void on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    xml_state *x = ud;
    (void)attrs;
    if (x->depth < DEPTH)
        x->path[x->depth] = NULL;
    x->depth++;
    strbuf_reset(&x->text);
    if (!x->rec_depth && !strcmp(name, "record") && x->depth == 2) {
        x->rec_depth = x->depth;
        memset(&x->cur, 0, sizeof x->cur);
        x->cur.size = -1;
        x->out->total++;
        x->keep = x->out->n < SAN_MAX_RECORDS;
    }
}

static const char *keep_text(xml_state *x)
{
    size_t n = x->text.len < SAN_MAX_TEXT ? x->text.len : SAN_MAX_TEXT;
    return arena_strndup(x->a, x->text.buf, n);
}

static void set_xyz(int64_t *v, int *has, const char *axis, const char *text)
{
    int i = !strcmp(axis, "x") ? 0 : !strcmp(axis, "y") ? 1 : !strcmp(axis, "z") ? 2 : -1;
    if (i < 0)
        return;
    v[i] = strtoll(text, NULL, 10);
    *has = 1;
}

/* A leaf of the open record: who/threadIdx/x, what/size, where/func, ... */
static void record_leaf(xml_state *x, const char *parent, const char *grand, const char *name)
{
    san_record *r = &x->cur;
    const char *t = x->text.buf ? x->text.buf : "";
    if (grand && !strcmp(grand, "who")) {
        if (!strcmp(parent, "threadIdx"))
            set_xyz(r->thread, &r->has_thread, name, t);
        else if (!strcmp(parent, "blockIdx"))
            set_xyz(r->block, &r->has_block, name, t);
        return;
    }
    if (!parent)
        return;
    if (!strcmp(parent, "record") && !strcmp(name, "level"))
        r->level = keep_text(x);
    else if (!strcmp(parent, "what")) {
        if (!strcmp(name, "text")) r->text = keep_text(x);
        else if (!strcmp(name, "space")) r->space = keep_text(x);
        else if (!strcmp(name, "direction")) r->direction = keep_text(x);
        else if (!strcmp(name, "error")) r->error = keep_text(x);
        else if (!strcmp(name, "size")) r->size = strtoll(t, NULL, 10);
        else if (!strcmp(name, "address")) {
            r->address = strtoull(t, NULL, 16);
            r->has_address = 1;
        }
    } else if (!strcmp(parent, "where")) {
        if (!strcmp(name, "func")) r->func = keep_text(x);
        else if (!strcmp(name, "path")) r->path = keep_text(x);
        else if (!strcmp(name, "line")) r->line = strtoll(t, NULL, 10);
        else if (!strcmp(name, "pc")) r->pc = strtoull(t, NULL, 16);
    }
}

static void on_end(void *ud, const XML_Char *name)
{
    xml_state *x = ud;
    int d = x->depth;   /* this element's depth */
    if (x->rec_depth && d > x->rec_depth && x->keep && d - x->rec_depth <= 3) {
        /* names of the parent and grandparent inside the record, from the stack we keep */
        const char *parent = d - 2 >= 0 && d - 2 < DEPTH ? x->path[d - 2] : NULL;
        const char *grand = d - 3 >= 0 && d - 3 < DEPTH && d - 3 >= x->rec_depth - 1 ? x->path[d - 3] : NULL;
        record_leaf(x, parent, grand, name);
    }
    if (x->rec_depth == d) {
        if (x->keep) {
            x->out->r = arena_grow(x->a, x->out->r, x->out->n, &x->cap, sizeof *x->out->r, 16);
            x->out->r[x->out->n++] = x->cur;
        }
        x->rec_depth = 0;
    }
    x->depth--;
    strbuf_reset(&x->text);
}

/* The stack of names: expat hands names to start and end only, so the start
 * handler's name is copied into the arena for the children to see. */
static void on_start_named(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    xml_state *x = ud;
    on_start(ud, name, attrs);
    if (x->depth - 1 < DEPTH)
        x->path[x->depth - 1] = x->rec_depth ? arena_strndup(x->a, name, 32) : "";
}

static void on_text(void *ud, const XML_Char *s, int len)
{
    xml_state *x = ud;
    if (x->text.len + (size_t)len <= SAN_MAX_TEXT)
        strbuf_add(&x->text, s, (size_t)len);
}

int san_parse_xml(const char *buf, size_t len, arena *a, san_report *out, strbuf *err)
{
    memset(out, 0, sizeof *out);
    out->hazards = out->warnings = -1;
    if (len > SAN_MAX_INPUT) {
        strbuf_addf(err, "the report is %zu bytes, over the %u-byte limit", len, SAN_MAX_INPUT);
        return -1;
    }
    XML_Parser p = XML_ParserCreate("UTF-8");
    if (!p)
        abort();
    xml_state x = {.a = a, .out = out};
    strbuf_init(&x.text, 0);
    XML_SetUserData(p, &x);
    XML_SetElementHandler(p, on_start_named, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    int rc = 0;
    if (XML_Parse(p, buf, (int)len, 1) == XML_STATUS_ERROR) {
        strbuf_addf(err, "line %lu, column %lu: %s", (unsigned long)XML_GetCurrentLineNumber(p),
                    (unsigned long)XML_GetCurrentColumnNumber(p) + 1, XML_ErrorString(XML_GetErrorCode(p)));
        rc = -1;
    }
    XML_ParserFree(p);
    strbuf_release(&x.text);
    return rc;
}

/* ---- the text form ------------------------------------------------------ */

/* "17,591,946,968,577" -> 17591946968577 */
static int64_t grouped_number(const char *s, const char **end)
{
    int64_t v = 0;
    while ((*s >= '0' && *s <= '9') || (*s == ',' && s[1] >= '0' && s[1] <= '9')) {
        if (*s != ',')
            v = v * 10 + (*s - '0');
        s++;
    }
    *end = s;
    return v;
}

static void parse_headline(san_record *r, const char *h, arena *a, size_t n)
{
    r->text = arena_strndup(a, h, n);
    const char *p = strstr(r->text, " of size ");
    if (p) {
        const char *e;
        r->size = grouped_number(p + 9, &e);
    }
    if (strstr(r->text, " read"))
        r->direction = "read";
    else if (strstr(r->text, " write"))
        r->direction = "write";
    static const char *const spaces[] = {"__global__", "__shared__", "__local__"};
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
        if (strstr(r->text, spaces[i]))
            r->space = spaces[i];
}

/* "(x,y,z)" */
static int xyz(const char *s, int64_t *v)
{
    long long a, b, c;
    if (sscanf(s, "(%lld,%lld,%lld)", &a, &b, &c) != 3)
        return 0;
    v[0] = a; v[1] = b; v[2] = c;
    return 1;
}

static void parse_detail(san_record *r, const char *l, arena *a, size_t n)
{
    const char *rest;
    char *line = arena_strndup(a, l, n);
    if (skip_prefix(line, "at ", &rest)) {
        const char *plus = strstr(rest, "+0x"), *in = strstr(rest, " in ");
        r->func = arena_strndup(a, rest, plus ? (size_t)(plus - rest) : in ? (size_t)(in - rest) : strlen(rest));
        if (plus)
            r->pc = strtoull(plus + 1, NULL, 16);
        if (in) {
            const char *file = in + 4, *colon = strrchr(file, ':');
            r->path = arena_strndup(a, file, colon ? (size_t)(colon - file) : strlen(file));
            if (colon)
                r->line = strtoll(colon + 1, NULL, 10);
        }
    } else if (skip_prefix(line, "by thread ", &rest)) {
        r->has_thread = xyz(rest, r->thread);
        const char *b = strstr(rest, " in block ");
        if (b)
            r->has_block = xyz(b + 10, r->block);
    } else if (skip_prefix(line, "Access to ", &rest) || skip_prefix(line, "Address ", &rest)) {
        if (!strncmp(rest, "0x", 2)) {
            r->address = strtoull(rest, NULL, 16);
            r->has_address = 1;
        }
        const char *is = strstr(rest, " is ");
        if (is)
            r->error = is + 4;
    } else if (skip_prefix(line, "and is ", &rest) && strstr(rest, "nearest allocation")) {
        r->nearest = rest;
    }
}

/* A line that starts a record: the checker's headline. */
static int is_headline(const char *l)
{
    static const char *const not[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "Error: process",
                                      "Target application", "Saved host", "Host Frame", "Program hit", "LEAK SUMMARY"};
    if (!*l || *l == ' ')
        return 0;
    for (size_t i = 0; i < sizeof not / sizeof not[0]; i++)
        if (!strncmp(l, not[i], strlen(not[i])))
            return 0;
    return 1;
}

void san_parse_text(const char *buf, size_t len, arena *a, san_report *out)
{
    memset(out, 0, sizeof *out);
    out->total = out->hazards = out->warnings = -1;
    if (len > SAN_MAX_INPUT)
        len = SAN_MAX_INPUT;
    size_t cap = 0;
    san_record *cur = NULL;
    strbuf summary = STRBUF_INIT;
    for (size_t i = 0; i < len;) {
        const char *l = buf + i, *nl = memchr(l, '\n', len - i);
        size_t n = nl ? (size_t)(nl - l) : len - i;
        i += n + 1;
        if (n < 9 || strncmp(l, "=========", 9))
            continue;   /* the program's own output, or not the sanitizer's */
        l += 9, n -= 9;
        if (n && *l == ' ')
            l++, n--;
        if (n > SAN_MAX_TEXT)
            n = SAN_MAX_TEXT;
        char line[SAN_MAX_TEXT + 1];
        memcpy(line, l, n);
        line[n] = 0;
        l = line;
        long long e, w, h;
        if (sscanf(l, "ERROR SUMMARY: %lld error", &e) == 1 && out->total < 0) {
            out->total = e;
        } else if (sscanf(l, "RACECHECK SUMMARY: %lld hazards displayed (%lld errors, %lld warnings)", &h, &e,
                          &w) == 3) {
            out->hazards = h;
            out->total = e;
            out->warnings = w;
        }
        if (starts_with(l, "ERROR SUMMARY") || starts_with(l, "RACECHECK SUMMARY")) {
            strbuf_addf(&summary, "%s%s", summary.len ? "; " : "", l);
            cur = NULL;
            continue;
        }
        if (is_headline(l)) {
            if (out->n >= SAN_MAX_RECORDS) {
                cur = NULL;
                continue;
            }
            out->r = arena_grow(a, out->r, out->n, &cap, sizeof *out->r, 16);
            cur = &out->r[out->n++];
            memset(cur, 0, sizeof *cur);
            cur->size = -1;
            parse_headline(cur, l, a, n);
        } else if (cur && *l == ' ') {
            while (n && *l == ' ')
                l++, n--;
            parse_detail(cur, l, a, n);
        }
    }
    if (summary.len)
        out->summary = arena_strdup(a, summary.buf);
    strbuf_release(&summary);
}

void san_merge(san_report *x, const san_report *t)
{
    for (size_t i = 0; i < x->n && i < t->n; i++) {
        if (x->r[i].has_address != t->r[i].has_address || x->r[i].address != t->r[i].address)
            break;
        if (!x->r[i].nearest)
            x->r[i].nearest = t->r[i].nearest;
    }
    x->summary = t->summary;
    x->hazards = t->hazards;
    x->warnings = t->warnings;
    if (t->total > x->total)   /* the summary counts what --print-limit left out too */
        x->total = t->total;
}
