/* actions.h — THE action table: every thing the user can do has a name, default
 * keys, a help line and a handler. Keys, `:` commands, `--keys`/`--script`
 * input and walkthrough steps all go through actions_run(), and the `?` help
 * screen and the man page's key list come from the same table.
 *
 * Key overrides: $XDG_CONFIG_HOME/aotidbg/keys.yaml (else ~/.config/...):
 *     keys:
 *       step: [s, F10]      # replaces step's keys
 *       quit: Q
 * Handlers return AF_* flags (pane.h); bindings live in keymap.h.
 * Errors: 0/-1 with "file:line:col: ..." appended to err; the defaults stay. */
#ifndef AOTIDBG_ACTIONS_H
#define AOTIDBG_ACTIONS_H
#include "app.h"
#include "keymap.h"
#include "strbuf.h"

typedef struct action {
    const char *name;
    const char *keys;      /* default keys, space-separated key names */
    const char *args;      /* argument synopsis, "" when none */
    const char *help;
    int (*fn)(app *a, const char *arg);
} action;

size_t actions_count(void);
const action *actions_get(size_t i);
int actions_find(const char *name);               /* index or -1 */

/* Resets bindings to the defaults. */
void actions_bind_defaults(void);
/* Action index bound to the key, or -1. */
int actions_for_key(int code);
int actions_load_keys(const char *path, strbuf *err);
/* Loads the user's keys.yaml if it exists; 0 when absent. */
int actions_load_user_keys(strbuf *err);

/* Runs action i with arg (may be NULL); returns AF_* flags. Narration steps
 * waiting on this action advance. */
int actions_run(app *a, int i, const char *arg);
/* `:` command line and script lines: "name [arg]". Unknown names set a message
 * and return AF_FAILED. */
int actions_command(app *a, const char *line);
/* One token of --keys: an action name, "name:arg", or a key name. */
int actions_token(app *a, const char *tok);
/* Feeds a key code (interactive). Handles the prompt line editor too. */
int actions_key(app *a, int code);

/* Tutorials: shows narration step 0 (focus, selection, awaited action). */
void narration_start(app *a);

/* Help screen text (one line per entry) for the help pane and the man page. */
void actions_help_text(strbuf *out);

#endif
