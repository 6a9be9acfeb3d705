/* ui_options.h — the options of the full-screen UI (live, replay, tutorial)
 * as one opt_spec table (opt.h), so the UI and the command table (--help,
 * the man page test) read the same rows. Data only: no curses here; the UI
 * (tui/tui_main.c) reads the parsed struct.
 * Strings point into argv; nothing is allocated. */
#ifndef AOTIDBG_UI_OPTIONS_H
#define AOTIDBG_UI_OPTIONS_H
#include "cli_opts.h"
#include "opt.h"

/* The UI commands a row applies to (opt_spec.scope of ui_option_specs). */
enum { UI_OPT_LIVE = 1, UI_OPT_REPLAY = 2, UI_OPT_TUTORIAL = 4 };

#define UI_MAX_REF_NPY 32

typedef struct {
    int on, w, h;              /* --headless WxH */
} ui_headless;

typedef struct {
    cli_ref_npy items[UI_MAX_REF_NPY];
    int n;
} ui_ref_npys;

typedef struct {
    const char *keys, *script, *theme;
    const char *reference;     /* --reference S.yaml */
    ui_ref_npys ref_npy;       /* --ref-npy K:T=PATH, repeatable */
    int ascii, no_color, mouse, dump_screen, list;
    ui_headless headless;
} ui_options;

extern const opt_spec ui_option_specs[];

#endif
