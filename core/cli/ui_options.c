/* ui_options.c — the UI options table; see ui_options.h. */
#include "ui_options.h"
#include <stdio.h>
#include <string.h>

static int store_headless(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    ui_headless *h = field;
    char x, tail;
    if (sscanf(v, "%d%c%d%c", &h->w, &x, &h->h, &tail) != 3 || (x != 'x' && x != 'X') || h->w < 1 || h->h < 1 ||
        h->w > 1000 || h->h > 1000) {
        strbuf_addf(err, "--headless wants WxH, e.g. 80x24, got '%s'", v);
        return -1;
    }
    h->on = 1;
    return 0;
}

static int store_ref_npy(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    ui_ref_npys *r = field;
    if (r->n >= UI_MAX_REF_NPY) {
        strbuf_addf(err, "--ref-npy: at most %d of them, got more at '%s'", UI_MAX_REF_NPY, v);
        return -1;
    }
    if (cli_parse_ref_npy(v, &r->items[r->n], err) < 0)
        return -1;
    r->n++;
    return 0;
}

#define F(field) offsetof(ui_options, field)
enum { ALL = UI_OPT_LIVE | UI_OPT_REPLAY | UI_OPT_TUTORIAL, REF = UI_OPT_LIVE | UI_OPT_REPLAY };

const opt_spec ui_option_specs[] = {
    {"--list", NULL, "list the walkthroughs and exit", F(list), NULL, 1, UI_OPT_TUTORIAL},
    {"--ascii", NULL, "ASCII line drawing (default: UTF-8 when the locale is)", F(ascii), NULL, 1, ALL},
    {"--no-color", NULL, "no colors (also when NO_COLOR is set)", F(no_color), NULL, 1, ALL},
    {"--theme", "NAME|FILE", "dark (default), light, high-contrast, mono, or a theme file", F(theme), NULL, 0, ALL},
    {"--mouse", NULL, "enable the mouse (off by default)", F(mouse), NULL, 1, ALL},
    {"--keys", "\"A B ...\"", "run these actions (names, name:arg, or key names) first", F(keys), NULL, 0, ALL},
    {"--script", "FILE", "run the actions in FILE (one `name [arg]` a line) first", F(script), NULL, 0, ALL},
    {"--headless", "WxH", "no terminal: render to stdout after each scripted action", F(headless), store_headless,
     0, ALL},
    {"--dump-screen", NULL, "with --headless: print only the final screen", F(dump_screen), NULL, 1, ALL},
    {"--reference", "S.yaml", "a second session of the same model, e.g. its CPU run:\n"
     "the inspector diffs each tensor against it; hunt-diverge uses it", F(reference), NULL, 0, REF},
    {"--ref-npy", "K:T=PATH", "a .npy file as the reference of kernel K's tensor T\n"
     "(after the kernel; before:T for before it); repeatable", F(ref_npy), store_ref_npy, 0, REF},
    {NULL},
};
