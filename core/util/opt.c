/* opt.c — option tables: parsing and help text; see opt.h. */
#include "opt.h"
#include <stdint.h>
#include <string.h>

#define HELP_COLUMN 21
#define OPT_WIDTH 80   /* help lines fit an 80-column terminal */

int opt_applies(const opt_spec *o, unsigned scope)
{
    return !o->scope || !scope || (o->scope & scope);
}

/* The applying row whose name is the first n bytes of a, and its group. */
static const opt_spec *lookup(const opt_group *g, size_t ng, const char *a, size_t n, const opt_group **in)
{
    for (size_t i = 0; i < ng; i++)
        for (const opt_spec *o = g[i].specs; o->name; o++)
            if (opt_applies(o, g[i].scope) && strlen(o->name) == n && !strncmp(o->name, a, n)) {
                if (in)
                    *in = &g[i];
                return o;
            }
    return NULL;
}

const opt_spec *opt_find(const opt_group *g, size_t ng, const char *name)
{
    return lookup(g, ng, name, strlen(name), NULL);
}

static int store(const opt_spec *o, const opt_group *g, void *args, const char *val, strbuf *err)
{
    void *field = (char *)args + g->base + o->off;
    if (o->store)
        return o->store(o, val, field, err);
    if (o->arg)
        *(const char **)field = val;
    else
        *(int *)field = o->value;
    return 0;
}

int opt_parse(const opt_group *g, size_t ng, void *args, int argc, char **argv, int first, const char **pos,
              size_t maxpos, size_t *npos, strbuf *err)
{
    int options_done = 0;
    *npos = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-' && a[1]) {
            if (!strcmp(a, "--")) {
                options_done = 1;
                continue;
            }
            if (!strcmp(a, "--help") || !strcmp(a, "-h"))
                return OPT_HELP;
            const char *eq = strchr(a, '=');
            size_t n = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
            const opt_group *in = NULL;
            const opt_spec *o = lookup(g, ng, a, n, &in);
            if (!o) {
                strbuf_addf(err, "unknown option '%.*s'", (int)n, a);
                return OPT_ERR;
            }
            const char *val = NULL;
            if (o->arg && !strncmp(o->arg, "[=", 2)) {   /* an optional value: only as --opt=VALUE */
                if (a[n] == '=')
                    val = a + n + 1;
            } else if (o->arg) {
                if (a[n] == '=')
                    val = a + n + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else {
                    strbuf_addf(err, "%s needs a value (%s)", o->name, o->arg);
                    return OPT_ERR;
                }
            } else if (a[n] == '=') {
                strbuf_addf(err, "%s takes no value (got '%s')", o->name, a);
                return OPT_ERR;
            }
            if (store(o, in, args, val, err) < 0)
                return OPT_ERR;
            continue;
        }
        if (*npos >= maxpos) {
            strbuf_addf(err, "unexpected argument '%s'", a);
            return OPT_ERR;
        }
        pos[(*npos)++] = a;
    }
    return OPT_OK;
}

/* Appends a row's help as one paragraph ('\n' in it is a space) from column
 * HELP_COLUMN (w columns are already used), wrapped at spaces to OPT_WIDTH. */
static void add_wrapped(strbuf *out, size_t w, const char *h)
{
    const size_t room = OPT_WIDTH - HELP_COLUMN;
    while (*h == ' ' || *h == '\n')
        h++;
    do {
        for (; w < HELP_COLUMN; w++)
            strbuf_addch(out, ' ');
        size_t len = strlen(h), cut = len;
        if (len > room) {
            cut = room;
            while (cut > room / 2 && h[cut] != ' ' && h[cut] != '\n')
                cut--;
            if (h[cut] != ' ' && h[cut] != '\n')
                cut = room;
        }
        for (size_t i = 0; i < cut; i++)
            strbuf_addch(out, h[i] == '\n' ? ' ' : h[i]);
        strbuf_addch(out, '\n');
        h += cut;
        while (*h == ' ' || *h == '\n')
            h++;
        w = 0;
    } while (*h);
}

void opt_help(strbuf *out, const opt_group *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++)
        for (const opt_spec *o = g[i].specs; o->name; o++) {
            if (!opt_applies(o, g[i].scope))
                continue;
            size_t start = out->len;
            strbuf_addf(out, "  %s%s%s", o->name, o->arg && strncmp(o->arg, "[=", 2) ? " " : "", o->arg ? o->arg : "");
            size_t w = out->len - start;
            if (w + 1 >= HELP_COLUMN) {
                strbuf_addch(out, '\n');
                w = 0;
            }
            add_wrapped(out, w, o->help ? o->help : "");
        }
}

int opt_parse_size(const char *s, uint64_t *out)
{
    const uint64_t limit = (uint64_t)1 << 63;
    uint64_t n = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > (limit - (uint64_t)(*p - '0')) / 10)
            return -1;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    int shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    }
    if (*p || (shift && n > limit >> shift))
        return -1;
    *out = n << shift;
    return 0;
}
