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

enum { TA_BOLD = 1, TA_REVERSE = 2, TA_UNDERLINE = 4, TA_DIM = 8 };

/* The screen elements, one row each: the enum value, the name theme files
 * and man/aotidbg-theme.5 use, the built-in dark theme's foreground,
 * background and attributes, and the attributes of the mono theme (NO_COLOR).
 * Adding an element: a row here, a line in man/aotidbg-theme.5
 * (test_tui_theme checks both). */
#define THEME_ELEMENTS(X)                                                    \
    X(EL_NORMAL, "normal", -1, -1, 0, 0)                                     \
    X(EL_BORDER, "border", 8, -1, 0, 0)                                      \
    X(EL_BORDER_FOCUS, "border-focus", 6, -1, TA_BOLD, TA_BOLD)              \
    X(EL_TITLE, "title", 7, -1, 0, 0)                                        \
    X(EL_TITLE_FOCUS, "title-focus", 14, -1, TA_BOLD, TA_BOLD | TA_UNDERLINE) \
    X(EL_HEADER, "header", 4, -1, TA_BOLD, TA_UNDERLINE)                     \
    X(EL_SELECTED, "selected", 0, 6, 0, TA_REVERSE)                          \
    X(EL_STATUS, "status", 15, 4, 0, TA_REVERSE)                             \
    X(EL_STATUS_MODE, "status-mode", 0, 3, TA_BOLD, TA_REVERSE | TA_BOLD)    \
    X(EL_DIM, "dim", 8, -1, 0, TA_DIM)                                       \
    X(EL_OK, "ok", 2, -1, 0, 0)                                              \
    X(EL_WARN, "warn", 3, -1, TA_BOLD, TA_BOLD)                              \
    X(EL_ERROR, "error", 9, -1, TA_BOLD, TA_BOLD)                            \
    X(EL_NAN, "nan", 13, -1, TA_BOLD, TA_BOLD | TA_UNDERLINE)                \
    X(EL_RUNNING, "running", 11, -1, TA_BOLD, TA_BOLD)                       \
    X(EL_MATCH, "match", 0, 3, 0, TA_UNDERLINE)                              \
    X(EL_NARRATION, "narration", 15, 5, 0, TA_REVERSE)                       \
    X(EL_CMDLINE, "cmdline", -1, -1, 0, 0)                                   \
    X(EL_HIST, "histogram", 6, -1, 0, 0)

#define THEME_ELEMENT_ENUM(id, name, fg, bg, attrs, mono) id,
typedef enum { THEME_ELEMENTS(THEME_ELEMENT_ENUM) EL__COUNT } element;
#undef THEME_ELEMENT_ENUM
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

void theme_default(theme *t);            /* built-in dark */
void theme_mono(theme *t);               /* attributes only (NO_COLOR) */
/* Loads a theme file over the defaults. On -1, t holds the default theme. */
int theme_load(theme *t, const char *path, strbuf *err);
/* Finds NAME (or a path) in ~/.config/aotidbg/themes/ ($XDG_CONFIG_HOME), then
 * the data dir's themes/; loads it. On -1, t holds the default theme. */
int theme_find_and_load(theme *t, const char *name, strbuf *err);

#endif
