/* theme.c — theme tables and the theme file reader (see theme.h). */
#include "theme.h"
#include "compat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "paths.h"
#include "ytree.h"   /* core/yaml */

#define EL_NAME(id, name, fg, bg, attrs, mono) [id] = name,
static const char *const el_names[EL__COUNT] = {THEME_ELEMENTS(EL_NAME)};
#undef EL_NAME

static const char *const color_names[8] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};

const char *element_name(element e)
{
    return (unsigned)e < EL__COUNT ? el_names[e] : "?";
}

int element_from_name(const char *s)
{
    for (int i = 0; i < EL__COUNT; i++)
        if (!strcmp(el_names[i], s))
            return i;
    return -1;
}

static int color_from_name(const char *s)
{
    if (!strcmp(s, "default") || !strcmp(s, "none"))
        return TCOLOR_DEFAULT;
    int bright = 0;
    if (skip_prefix(s, "bright-", &s))
        bright = 8;
    for (int i = 0; i < 8; i++)
        if (!strcmp(s, color_names[i]))
            return i + bright;
    if (bright)
        return -2;
    char *end;
    long v = strtol(s, &end, 10);
    if (*s && !*end && v >= 0 && v <= 255)
        return (int)v;
    return -2;
}

void theme_default(theme *t)
{
    snprintf(t->name, sizeof t->name, "dark");
#define EL_DARK(id, name, fg, bg, attrs, mono) [id] = {fg, bg, attrs},
    static const theme_style d[EL__COUNT] = {THEME_ELEMENTS(EL_DARK)};
#undef EL_DARK
    memcpy(t->el, d, sizeof d);
}

void theme_mono(theme *t)
{
    snprintf(t->name, sizeof t->name, "mono");
#define EL_MONO(id, name, fg, bg, attrs, mono) [id] = {TCOLOR_DEFAULT, TCOLOR_DEFAULT, mono},
    static const theme_style m[EL__COUNT] = {THEME_ELEMENTS(EL_MONO)};
#undef EL_MONO
    memcpy(t->el, m, sizeof m);
}

#define THEME_MAX_BYTES (256u * 1024)

static int at(strbuf *err, const char *file, const ynode *n, const char *fmt, const char *arg)
{
    strbuf_addf(err, "%s:%zu:%zu: ", file, n->line, n->col);
    strbuf_addf(err, fmt, arg);
    return -1;
}

static int apply(theme *t, const ynode *root, const char *file, strbuf *err)
{
    if (root->type != Y_MAP)
        return at(err, file, root, "%sa theme is a mapping with 'elements:' (see aotidbg-theme(5))", "");
    for (size_t i = 0; i < root->n; i += 2) {
        const char *k = root->items[i]->value;
        if (!strcmp(k, "name") || !strcmp(k, "description") || !strcmp(k, "inherits"))
            continue;
        if (strcmp(k, "elements"))
            return at(err, file, root->items[i], "unknown key '%s' (expected name, description, inherits, elements)", k);
    }
    const ynode *inh = ytree_get(root, "inherits");
    if (inh && inh->type == Y_SCALAR && !strcmp(inh->value, "mono"))
        theme_mono(t);
    const ynode *name = ytree_get(root, "name");
    if (name && name->type == Y_SCALAR)
        snprintf(t->name, sizeof t->name, "%s", name->value);
    const ynode *els = ytree_get(root, "elements");
    if (!els)
        return 0;
    if (els->type != Y_MAP)
        return at(err, file, els, "%s'elements' must be a mapping of element: {fg, bg, attrs}", "");
    for (size_t i = 0; i + 1 < els->n; i += 2) {
        const ynode *kn = els->items[i], *v = els->items[i + 1];
        int e = element_from_name(kn->value);
        if (e < 0)
            return at(err, file, kn, "unknown element '%s' (see aotidbg-theme(5) for the list)", kn->value);
        if (v->type != Y_MAP)
            return at(err, file, v, "element '%s' must be a mapping {fg, bg, attrs}", kn->value);
        theme_style st = {TCOLOR_DEFAULT, TCOLOR_DEFAULT, 0};
        for (size_t j = 0; j + 1 < v->n; j += 2) {
            const char *f = v->items[j]->value;
            const ynode *fv = v->items[j + 1];
            if (!strcmp(f, "fg") || !strcmp(f, "bg")) {
                int c = fv->type == Y_SCALAR ? color_from_name(fv->value) : -2;
                if (c == -2)
                    return at(err, file, fv, "bad color '%s' (a name like red, bright-red, default, or 0-255)",
                              fv->type == Y_SCALAR ? fv->value : "?");
                if (f[0] == 'f') st.fg = c; else st.bg = c;
            } else if (!strcmp(f, "attrs")) {
                if (fv->type != Y_SEQ)
                    return at(err, file, fv, "%sattrs must be a list, e.g. [bold, reverse]", "");
                for (size_t a = 0; a < fv->n; a++) {
                    const ynode *an = fv->items[a];
                    const char *s = an->type == Y_SCALAR ? an->value : "?";
                    if (!strcmp(s, "bold")) st.attrs |= TA_BOLD;
                    else if (!strcmp(s, "reverse")) st.attrs |= TA_REVERSE;
                    else if (!strcmp(s, "underline")) st.attrs |= TA_UNDERLINE;
                    else if (!strcmp(s, "dim")) st.attrs |= TA_DIM;
                    else return at(err, file, an, "unknown attribute '%s' (bold, reverse, underline, dim)", s);
                }
            } else {
                return at(err, file, v->items[j], "unknown field '%s' (fg, bg, attrs)", f);
            }
        }
        t->el[e] = st;
    }
    return 0;
}

int theme_load(theme *t, const char *path, strbuf *err)
{
    theme_default(t);
    static const ylimits lim = {16, 4096, 4096, "a theme", "themes"};
    arena ar = ARENA_INIT;
    ynode *root;
    if (ytree_load(&ar, path, THEME_MAX_BYTES, &lim, &root, err) < 0) {
        arena_release(&ar);
        return -1;
    }
    theme tmp = *t;
    int rc = root ? apply(&tmp, root, path, err)
                  : (strbuf_addf(err, "%s:1:1: found an empty file, expected a theme (see aotidbg-theme(5))", path), -1);
    arena_release(&ar);
    if (rc == 0)
        *t = tmp;
    return rc;
}

/* Returns a malloc'd path of an existing NAME.yaml in dir, or NULL. */
static char *try_dir(const char *dir, const char *name)
{
    char file[300];
    snprintf(file, sizeof file, "%s.yaml", name);
    char *p = path_join(dir, file);
    if (access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}

int theme_find_and_load(theme *t, const char *name, strbuf *err)
{
    theme_default(t);
    if (!name || !*name || !strcmp(name, "dark"))
        name = "dark";
    if (!strcmp(name, "mono") || !strcmp(name, "none")) {
        theme_mono(t);
        /* a themes/mono.yaml may refine it, but the built-in is complete */
    }
    if (strchr(name, '/'))
        return theme_load(t, name, err);
    if (strlen(name) > 200) {
        strbuf_addstr(err, "theme name too long");
        return -1;
    }
    char *path = NULL;
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) {
        char *d = path_join(xdg, "aotidbg/themes");
        path = try_dir(d, name);
        free(d);
    } else if (home && *home) {
        char *d = path_join(home, ".config/aotidbg/themes");
        path = try_dir(d, name);
        free(d);
    }
    if (!path) {
        char *d = path_join(aotidbg_data_dir(), "themes");
        path = try_dir(d, name);
        free(d);
    }
    if (!path) {
        if (!strcmp(name, "dark") || !strcmp(name, "mono"))
            return 0;   /* built-ins need no file */
        strbuf_addf(err, "theme '%s' not found in ~/.config/aotidbg/themes/ or %s/themes/; using dark",
                    name, aotidbg_data_dir());
        return -1;
    }
    int rc = theme_load(t, path, err);
    free(path);
    return rc;
}
