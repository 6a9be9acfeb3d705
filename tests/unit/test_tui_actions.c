/* test_tui_actions.c — the action table: default keys, key names, user
 * overrides from keys.yaml (with file:line:col errors that keep the
 * defaults), the generated help, the `:` command line and the prompt editor. */
#include <curses.h>
#include <stdlib.h>
#include <unistd.h>
#include "actions.h"
#include "panes.h"
#include "render.h"
#include "textview.h"
#include "check.h"
#include "test_tui_fixture.h"

static void test_defaults(void)
{
    actions_bind_defaults();
    CHECK(actions_for_key('j') == actions_find("down"));
    CHECK(actions_for_key(KEY_DOWN) == actions_find("down"));
    CHECK(actions_for_key('k') == actions_find("up"));
    CHECK(actions_for_key(KEY_NPAGE) == actions_find("page-down"));
    CHECK(actions_for_key(KEY_HOME) == actions_find("top"));
    CHECK(actions_for_key('G') == actions_find("bottom"));
    CHECK(actions_for_key('\t') == actions_find("next-pane"));
    CHECK(actions_for_key(KEY_BTAB) == actions_find("prev-pane"));
    CHECK(actions_for_key('1') == actions_find("pane-router"));
    CHECK(actions_for_key('4') == actions_find("pane-inspector"));
    CHECK(actions_for_key('/') == actions_find("search"));
    CHECK(actions_for_key('s') == actions_find("step"));
    CHECK(actions_for_key('c') == actions_find("continue"));
    CHECK(actions_for_key('r') == actions_find("restart"));
    CHECK(actions_for_key('b') == actions_find("break"));
    CHECK(actions_for_key('z') == actions_find("zoom"));
    CHECK(actions_for_key('?') == actions_find("help"));
    CHECK(actions_for_key(':') == actions_find("command"));
    CHECK(actions_for_key('q') == actions_find("quit"));
    CHECK(actions_for_key('\r') == actions_find("next-step"));
    /* every default key name in the table parses, and no two actions share a key */
    int owner[KEYMAP_MAX_KEYCODE] = {0};
    for (size_t i = 0; i < actions_count(); i++) {
        char tmp[128];
        snprintf(tmp, sizeof tmp, "%s", actions_get(i)->keys);
        for (char *sv = NULL, *t = strtok_r(tmp, " ", &sv); t; t = strtok_r(NULL, " ", &sv)) {
            int k = key_from_name(t);
            CHECK(k >= 0);
            if (k >= 0) {
                CHECK(owner[k] == 0);
                owner[k] = (int)i + 1;
                char nb[32];
                CHECK_STR(keyname_of(k, nb, sizeof nb), t);   /* names round-trip */
            }
        }
    }
}

static void test_help_lists_every_action(void)
{
    actions_bind_defaults();
    strbuf h = STRBUF_INIT;
    actions_help_text(&h);
    for (size_t i = 0; i < actions_count(); i++)
        CHECK_CONTAINS(h.buf, actions_get(i)->name);
    CHECK_CONTAINS(h.buf, "j Down");
    strbuf_release(&h);
}

static char *write_keys(const char *text)
{
    static char path[] = "/tmp/aotidbg-keys-XXXXXX.yaml";
    static int made;
    if (!made) {
        int fd = mkstemps(path, 5);
        if (fd < 0)
            abort();
        close(fd);
        made = 1;
    }
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* pane-NAME: one focus action per row of pane_list.h, its key the pane's number. */
static void test_pane_focus_actions(void)
{
    actions_bind_defaults();
    app a;
    app_init(&a, session_new(), MODE_REPLAY);
    a.owns_session = 1;
    for (int p = 0; p < PANE__COUNT; p++) {
        char name[64];
        snprintf(name, sizeof name, "pane-%s", a.panes[p].ops->name);
        int i = actions_find(name);
        CHECK(i >= 0);
        CHECK(actions_for_key('1' + p) == i);
        a.focus = (p + 1) % PANE__COUNT;
        CHECK(actions_run(&a, i, NULL) & AF_HANDLED);
        CHECK(a.focus == p);
    }
    app_release(&a);
}

/* The status bar's hints follow keys.yaml. */
static void test_hints_follow_the_keymap(void)
{
    actions_bind_defaults();
    app a;
    app_init(&a, session_new(), MODE_REPLAY);
    a.owns_session = 1;
    strbuf h = STRBUF_INIT;
    render_hints(&a, &h);
    CHECK_STR(h.buf, "s step c cont / search ? help q quit");
    strbuf err = STRBUF_INIT;
    char *p = write_keys("keys:\n  step: n\n  quit: [Q, F10]\n  search: []\n");
    CHECK(actions_load_keys(p, &err) == 0);
    strbuf_reset(&h);
    render_hints(&a, &h);
    CHECK_STR(h.buf, "n step c cont ? help Q quit");   /* search has no key: left out */
    a.mode = MODE_LIVE;
    strbuf_reset(&h);
    render_hints(&a, &h);
    CHECK_STR(h.buf, "n step c cont r restart ? help Q quit");
    unlink(p);
    strbuf_release(&h);
    strbuf_release(&err);
    app_release(&a);
    actions_bind_defaults();
}

static void test_user_keys(void)
{
    actions_bind_defaults();
    strbuf err = STRBUF_INIT;
    char *p = write_keys("keys:\n  step: [n, F10]\n  quit: Q\n  search-next: C-n\n");
    CHECK(actions_load_keys(p, &err) == 0);
    CHECK(actions_for_key('n') == actions_find("step"));
    CHECK(actions_for_key(KEY_F(10)) == actions_find("step"));
    CHECK(actions_for_key('s') == -1);            /* replaced, not added */
    CHECK(actions_for_key('Q') == actions_find("quit"));
    CHECK(actions_for_key('q') == -1);
    CHECK(actions_for_key(14) == actions_find("search-next"));
    strbuf h = STRBUF_INIT;
    actions_help_text(&h);
    CHECK_CONTAINS(h.buf, "n F10");                /* help follows the bindings */
    strbuf_release(&h);

    /* errors: file:line:col, and the bindings stay as they were */
    actions_bind_defaults();
    p = write_keys("keys:\n  step: Z\n  stpe: y\n");
    CHECK(actions_load_keys(p, &err) == -1);
    CHECK_CONTAINS(err.buf, ":3:3: unknown action 'stpe'");
    CHECK(actions_for_key('s') == actions_find("step"));
    CHECK(actions_for_key('Z') == -1);
    strbuf_reset(&err);
    p = write_keys("keys:\n  quit: [q, Hyper-Q]\n");
    CHECK(actions_load_keys(p, &err) == -1);
    CHECK_CONTAINS(err.buf, ":2:13: unknown key 'Hyper-Q'");
    CHECK(actions_for_key('q') == actions_find("quit"));
    strbuf_reset(&err);
    p = write_keys("bindings: {}\n");
    CHECK(actions_load_keys(p, &err) == -1);
    CHECK_CONTAINS(err.buf, ":1:1: expected a mapping 'keys:'");
    strbuf_reset(&err);
    p = write_keys("keys: {step: s, step: t}\n");
    CHECK(actions_load_keys(p, &err) == -1);
    CHECK_CONTAINS(err.buf, "duplicate key 'step'");
    /* XDG lookup */
    strbuf_reset(&err);
    setenv("XDG_CONFIG_HOME", "/nonexistent-aotidbg", 1);
    CHECK(actions_load_user_keys(&err) == 0);      /* absent file is fine */
    unlink(p);
    strbuf_release(&err);
}

static void test_command_line_and_prompt(void)
{
    actions_bind_defaults();
    session *s = fx_session(100);
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    CHECK(actions_command(&a, "goto 42") & AF_HANDLED);
    CHECK(a.panes[PANE_KERNELS].cursor == 42);
    CHECK(actions_command(&a, "frobnicate") & AF_FAILED);
    CHECK_CONTAINS(a.message.buf, "unknown action 'frobnicate'");
    CHECK(actions_command(&a, "run-to 100000") & AF_FAILED);
    /* typing ":goto 7<Enter>" through the key path */
    actions_key(&a, ':');
    CHECK(a.prompt == ':');
    for (const char *p = "goto 77"; *p; p++)
        actions_key(&a, *p);
    actions_key(&a, KEY_BACKSPACE);
    actions_key(&a, '\r');
    CHECK(a.prompt == 0);
    CHECK(a.panes[PANE_KERNELS].cursor == 7);
    /* incremental search: each keystroke moves the selection */
    actions_key(&a, 'g');
    actions_key(&a, '/');
    for (const char *p = "mul_s"; *p; p++)
        actions_key(&a, *p);
    CHECK(a.panes[PANE_KERNELS].cursor == 6);     /* first cpp_fused_mul_sum_2: extra kernel 3 */
    actions_key(&a, '\n');
    actions_key(&a, 'n');
    CHECK(a.panes[PANE_KERNELS].cursor == 13);
    actions_key(&a, 'N');
    CHECK(a.panes[PANE_KERNELS].cursor == 6);
    /* Esc cancels a prompt without running anything */
    actions_key(&a, ':');
    actions_key(&a, 'q');
    actions_key(&a, 27);
    CHECK(!a.quit && a.prompt == 0);
    /* breakpoints and continue in replay */
    actions_token(&a, "goto:50");
    actions_token(&a, "b");
    CHECK(a.brk.kernel == 50);
    actions_token(&a, "g");
    actions_token(&a, "c");
    CHECK(a.panes[PANE_KERNELS].cursor == 2);     /* the NaN kernel comes first */
    actions_token(&a, "c");
    CHECK(a.panes[PANE_KERNELS].cursor == 50);    /* then the breakpoint */
    actions_token(&a, "r");
    CHECK(a.panes[PANE_KERNELS].cursor == 0);
    app_release(&a);
}

/* What stderr said while the screen was up (screen_take_stderr's bytes):
 * whole lines go to the message line, "aotidbg: " dropped, errors marked,
 * and to the messages log; a partial line waits for its end. */
static void test_outside_output_to_the_message_line(void)
{
    actions_bind_defaults();
    session *s = fx_session(3);
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    strbuf pending = STRBUF_INIT;
    strbuf_addstr(&pending, "aotidbg: eager reference: 12 node values for 6 kernel calls\nlibfoo: warn");
    CHECK(app_take_output(&a, &pending) == 1);
    CHECK_STR(a.message.buf, "eager reference: 12 node values for 6 kernel calls");
    CHECK(!a.message_error);
    CHECK_STR(pending.buf, "libfoo: warn");   /* not a line yet */
    strbuf_addstr(&pending, "ing: a library's own line\r\n\n");
    CHECK(app_take_output(&a, &pending) == 1);
    CHECK_STR(a.message.buf, "libfoo: warning: a library's own line");
    CHECK(a.message_error);
    CHECK(pending.len == 0);
    CHECK(app_take_output(&a, &pending) == 0);
    CHECK_STR(a.messages.buf, "eager reference: 12 node values for 6 kernel calls\n"
                              "libfoo: warning: a library's own line\n");
    /* the messages action shows the log over the panes */
    CHECK(actions_command(&a, "messages") & AF_HANDLED);
    CHECK(textview_is_open(&a));
    CHECK_CONTAINS(a.view.buf, "eager reference: 12 node values");
    strbuf_release(&pending);
    app_release(&a);
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_help_lists_every_action);
    RUN(test_user_keys);
    RUN(test_pane_focus_actions);
    RUN(test_hints_follow_the_keymap);
    RUN(test_command_line_and_prompt);
    RUN(test_outside_output_to_the_message_line);
    return CHECK_DONE();
}
