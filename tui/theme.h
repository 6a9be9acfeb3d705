/* theme.h — colors as data: a table of scheme x element.
 *
 * A theme gives each screen element (EL_*) a foreground, a background and
 * attributes. Themes are YAML files (themes/NAME.yaml, ~/.config/aotidbg/themes,
 * man/aotidbg-theme.5). The built-in "dark" table is always there, so a bad
 * theme file only costs a warning ("file:line:col: ...") and the default.
 * No curses here: screen.c turns a theme into color pairs.
 * Errors: 0/-1 with the message appended to err. */
#ifndef AOTIDBG_THEME_H
#define AOTIDBG_THEME_H
#include "strbuf.h"

typedef enum {
    EL_NORMAL = 0, EL_BORDER, EL_BORDER_FOCUS, EL_TITLE, EL_TITLE_FOCUS, EL_HEADER,
    EL_SELECTED, EL_STATUS, EL_STATUS_MODE, EL_DIM, EL_OK, EL_WARN, EL_ERROR, EL_NAN,
    EL_RUNNING, EL_MATCH, EL_NARRATION, EL_CMDLINE, EL_HIST, EL__COUNT
} element;

enum { TA_BOLD = 1, TA_REVERSE = 2, TA_UNDERLINE = 4, TA_DIM = 8 };
#define TCOLOR_DEFAULT (-1)

typedef struct {
    int fg, bg;       /* TCOLOR_DEFAULT or 0..255 (0-7 base, 8-15 bright) */
    int attrs;        /* TA_* */
} theme_style;

typedef struct {
    char name[64];
    theme_style el[EL__COUNT];
} theme;

const char *element_name(element e);     /* "selected", "border-focus", ... */
int element_from_name(const char *s);    /* -1 unknown */
int color_from_name(const char *s);      /* "red", "bright-red", "default", "0".."255"; -2 unknown */

void theme_default(theme *t);            /* built-in dark */
void theme_mono(theme *t);               /* attributes only (NO_COLOR) */
/* Loads a theme file over the defaults. On -1, t holds the default theme. */
int theme_load(theme *t, const char *path, strbuf *err);
/* Finds NAME (or a path) in ~/.config/aotidbg/themes/ ($XDG_CONFIG_HOME), then
 * the data dir's themes/; loads it. On -1, t holds the default theme. */
int theme_find_and_load(theme *t, const char *name, strbuf *err);

#endif
