/* tui_main.c — the UI's entry point: options, modes (replay, live, tutorial),
 * scripted input, the headless renderer and the event loop.
 *
 * The loop never blocks on anything but poll(): stdin and the runner's fd,
 * with a timeout, so signals, the runner and keys are all seen promptly; it
 * renders once per batch of input and does one doupdate() per frame. */
#include <ctype.h>
#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "actions.h"
#include "app.h"
#include "cli_opts.h"
#include "opt.h"
#include "run_options.h"
#include "ui_options.h"
#include "commands.h"
#include "demo.h"
#include "hunt.h"
#include "live.h"
#include "menu.h"
#include "pane_inspector.h"
#include "panes.h"
#include "paths.h"
#include "render.h"
#include "tensor_diff.h"
#include "screen.h"
#include "session_io.h"
#include "tui.h"
#include "compat.h"


typedef struct {
    const char *target;            /* session, package or tutorial name */
    ui_options ui;
    run_options live;              /* live: the options `aotidbg run` takes (run_options.h) */
} options;

/* The options a command line gave (commands.h parsed them with the UI's and
 * the run's tables). */
static void from_args(const cli_args *a, options *o)
{
    memset(o, 0, sizeof *o);
    o->target = a->npos ? a->pos[0] : NULL;
    o->ui = a->ui;
    o->live = a->run;
    if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
        o->ui.no_color = 1;
    o->live.package = o->target;
}

/* ---- input scripts ---------------------------------------------------- */

typedef struct {
    char **items;
    size_t n;
    int is_line;   /* script lines ("name arg") vs --keys tokens */
} script;

static void script_add(script *s, const char *t, size_t len)
{
    char **p = xrealloc(s->items, (s->n + 1) * sizeof *p);
    s->items = p;
    s->items[s->n] = xstrndup(t, len);
    s->n++;
}

static void script_free(script *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
}

static int load_script(const options *o, script *keys, script *lines)
{
    if (o->ui.keys) {
        const char *p = o->ui.keys;
        while (*p) {
            while (isspace((unsigned char)*p)) p++;
            size_t n = 0;
            while (p[n] && !isspace((unsigned char)p[n])) n++;
            if (n)
                script_add(keys, p, n);
            p += n;
        }
    }
    if (o->ui.script) {
        strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
        if (strbuf_read_file(&sb, o->ui.script, 1 << 20, &err) < 0) {
            fprintf(stderr, "aotidbg: --script: %s\n", err.buf);
            strbuf_release(&sb);
            strbuf_release(&err);
            return -1;
        }
        lines->is_line = 1;
        const char *p = sb.buf;
        while (*p) {
            size_t n = strcspn(p, "\n");
            script_add(lines, p, n);
            p += n + (p[n] == '\n');
        }
        strbuf_release(&sb);
        strbuf_release(&err);
    }
    return 0;
}

/* Runs one scripted item; returns AF_* flags. */
static int run_item(app *a, const script *s, size_t i)
{
    return s->is_line ? actions_command(a, s->items[i]) : actions_token(a, s->items[i]);
}

/* ---- headless --------------------------------------------------------- */

static void print_frame(app *a, grid *g, const char *label)
{
    app_render(a, g);
    strbuf out = STRBUF_INIT;
    grid_dump(g, &out);
    printf("=== %s ===\n%s", label, out.buf);
    strbuf_release(&out);
}

static int run_headless(app *a, const options *o, script *scripts)
{
    grid g;
    grid_init(&g, o->ui.headless.w, o->ui.headless.h, a->ascii);
    int failed = 0;
    if (!o->ui.dump_screen)
        print_frame(a, &g, "start");
    for (int k = 0; k < 2 && !a->quit; k++)
        for (size_t i = 0; i < scripts[k].n && !a->quit; i++) {
            if (a->mode == MODE_LIVE && live_settle(a, 120000) < 0)
                fprintf(stderr, "aotidbg: the runner did not stop within 120 s\n");
            int r = run_item(a, &scripts[k], i);
            if (a->mode == MODE_LIVE)
                live_settle(a, 120000);
            if (r & AF_FAILED) {
                fflush(stdout);
                fprintf(stderr, "aotidbg: action '%s': %s\n", scripts[k].items[i], a->message.buf);
                failed = 1;
            }
            if (!o->ui.dump_screen && !(r & AF_QUIT))
                print_frame(a, &g, scripts[k].items[i]);
        }
    if (a->mode == MODE_LIVE)
        live_settle(a, 120000);
    if (o->ui.dump_screen)
        print_frame(a, &g, "screen");
    grid_free(&g);
    fflush(stdout);
    return failed ? EXIT_FAILED : EXIT_OK;
}

/* ---- interactive ------------------------------------------------------ */

/* A grid the size of the terminal now. */
static void grid_at_screen_size(grid *g, int ascii)
{
    int w, h;
    screen_size(&w, &h);
    grid_init(g, w, h, ascii);
}

/* Follows a resized terminal before each repaint. */
static void fit_to_screen(grid *g)
{
    int w, h;
    screen_size(&w, &h);
    if (w != g->w || h != g->h)
        grid_resize(g, w, h);
}

static int run_interactive(app *a, const options *o, script *scripts)
{
    screen_options so = {o->ui.ascii, o->ui.no_color, o->ui.mouse};
    int ascii = 0;
    if (screen_open(&so, &ascii) < 0)
        return EXIT_USAGE;
    screen_install_signals();
    a->ascii = ascii;
    if (o->ui.no_color)
        theme_mono(&a->th);
    screen_apply_theme(&a->th);
    char theme_seen[64];
    snprintf(theme_seen, sizeof theme_seen, "%s", a->th.name);
    grid g;
    grid_at_screen_size(&g, ascii);
    for (int k = 0; k < 2 && !a->quit; k++)
        for (size_t i = 0; i < scripts[k].n && !a->quit; i++)
            run_item(a, &scripts[k], i);
    int redraw = 1;
    int rc = EXIT_OK;
    while (!a->quit) {
        if (screen_sig_term) {
            /* SIGTERM/SIGHUP: keep what was recorded, give the terminal back */
            live_finish(a, 0);
            screen_close();
            fprintf(stderr, "aotidbg: terminated by signal %d\n", screen_sig_term);
            rc = EXIT_FAILED;
            break;
        }
        if (screen_sig_int) {
            screen_sig_int = 0;
            if (live_interrupt(a) < 0)
                app_message(a, 0, "q quits");
            redraw = 1;
        }
        if (screen_sig_cont) {
            screen_sig_cont = 0;
            screen_force_redraw();
            redraw = 1;
        }
        if (strcmp(theme_seen, a->th.name)) {
            screen_apply_theme(&a->th);
            snprintf(theme_seen, sizeof theme_seen, "%s", a->th.name);
        }
        if (redraw) {
            fit_to_screen(&g);
            app_render(a, &g);
            screen_blit(&g);
            redraw = 0;
        }
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {live_fd(a), POLLIN, 0}};
        int nfds = fds[1].fd >= 0 ? 2 : 1;
        int pr = poll(fds, (nfds_t)nfds, 250);
        if (pr < 0 && errno != EINTR)
            break;
        if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            if (live_pump(a, 0) != 0)
                redraw = 1;
        } else if (a->mode == MODE_LIVE && a->rc && live_pump(a, 0) > 0) {
            redraw = 1;   /* a dead runner's fd can go away: still pump */
        }
        if (fds[0].revents & (POLLHUP | POLLERR)) {
            screen_sig_term = SIGHUP;   /* the terminal is gone */
            continue;
        }
        int key;
        while ((key = screen_getkey()) != -1) {
            if (key == -2)
                continue;
            if (key == KEY_RESIZE) {
                redraw = 1;
                continue;
            }
            if (key == KEY_MOUSE) {
                int mx, my, b;
                if (screen_mouse(&mx, &my, &b) == 0) {
                    if (b == 4) actions_run(a, actions_find("up"), "3");
                    else if (b == 5) actions_run(a, actions_find("down"), "3");
                    else {
                        int p = app_pane_at(a, mx, my);
                        if (p >= 0) a->focus = p;
                    }
                    redraw = 1;
                }
                continue;
            }
            if (g.w < a->min_w || g.h < a->min_h) {
                /* the too-small screen still quits on q */
                if (key == 'q' || actions_for_key(key) == actions_find("quit"))
                    a->quit = 1;
                continue;
            }
            int r = actions_key(a, key);
            if (r & AF_QUIT)
                break;
            if (r & AF_REPAINT)
                screen_force_redraw();
            redraw = 1;
        }
    }
    screen_close();
    grid_free(&g);
    return rc;
}

/* ---- tutorials -------------------------------------------------------- */

static int load_session(const char *path, session **out)
{
    strbuf err = STRBUF_INIT;
    int rc = session_load(path, out, &err);
    if (rc < 0)
        fprintf(stderr, "aotidbg: %s\n", err.buf);
    strbuf_release(&err);
    return rc;
}

static char *tutorial_path(const char *name)
{
    if (strchr(name, '/') || (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".yaml")))
        return xstrdup(name);
    char *dir = path_join(aotidbg_data_dir(), "sessions/tutorials");
    char file[512];
    snprintf(file, sizeof file, "%s.yaml", name);
    char *p = path_join(dir, file);
    free(dir);
    return p;
}

/* The action a script token or key names, for the menu: NULL when none. */
static const char *token_action(const char *tok)
{
    int i = actions_find(tok);
    if (i < 0) {
        int k = key_from_name(tok);
        i = k >= 0 ? actions_for_key(k) : -1;
    }
    return i >= 0 ? actions_get((size_t)i)->name : NULL;
}

/* Drops the first n items of a script (the menu used them). */
static void script_drop(script *s, size_t n)
{
    for (size_t i = 0; i < n && i < s->n; i++)
        free(s->items[i]);
    if (n > s->n)
        n = s->n;
    memmove(s->items, s->items + n, (s->n - n) * sizeof *s->items);
    s->n -= n;
}

/* Runs the menu until a walkthrough is chosen (MENU_OPEN, *choice set),
 * the live demo (MENU_LIVE) or quit (MENU_QUIT). Headless: scripted tokens
 * drive it and frames are printed; interactive: the terminal stays open for
 * what comes next. */
static int run_menu(tmenu *m, const options *o, script *scripts, int *screen_opened)
{
    if (o->ui.headless.on) {
        grid g;
        grid_init(&g, o->ui.headless.w, o->ui.headless.h, o->ui.ascii);
        m->ascii = o->ui.ascii;
        int r = MENU_STAY;
        if (!o->ui.dump_screen) {
            menu_render(m, &g);
            strbuf out = STRBUF_INIT;
            grid_dump(&g, &out);
            printf("=== menu ===\n%s", out.buf);
            strbuf_release(&out);
        }
        for (int k = 0; k < 2 && r == MENU_STAY; k++) {
            size_t used = 0;
            for (; used < scripts[k].n && r == MENU_STAY; used++) {
                const char *item = scripts[k].items[used];
                const char *act = token_action(item);
                if (!act) {
                    fprintf(stderr, "aotidbg: menu: unknown action or key '%s'\n", item);
                    continue;
                }
                r = menu_action(m, act);
                if (r == MENU_STAY && !o->ui.dump_screen) {
                    menu_render(m, &g);
                    strbuf out = STRBUF_INIT;
                    grid_dump(&g, &out);
                    printf("=== menu %s ===\n%s", item, out.buf);
                    strbuf_release(&out);
                }
            }
            script_drop(&scripts[k], used);
        }
        if (r == MENU_STAY) {   /* the script ended in the menu */
            if (o->ui.dump_screen) {
                menu_render(m, &g);
                strbuf out = STRBUF_INIT;
                grid_dump(&g, &out);
                printf("=== screen ===\n%s", out.buf);
                strbuf_release(&out);
            }
            r = MENU_QUIT;
        }
        grid_free(&g);
        return r;
    }
    screen_options so = {o->ui.ascii, o->ui.no_color, o->ui.mouse};
    int ascii = 0;
    if (screen_open(&so, &ascii) < 0)
        return -1;
    *screen_opened = 1;
    screen_install_signals();
    m->ascii = ascii;
    theme th;
    if (o->ui.no_color)
        theme_mono(&th);
    else {
        strbuf err = STRBUF_INIT;
        theme_find_and_load(&th, o->ui.theme, &err);
        strbuf_release(&err);
    }
    screen_apply_theme(&th);
    grid g;
    grid_at_screen_size(&g, ascii);
    int r = MENU_STAY, redraw = 1;
    while (r == MENU_STAY) {
        if (screen_sig_term) {
            r = MENU_QUIT;
            break;
        }
        if (redraw) {
            fit_to_screen(&g);
            menu_render(m, &g);
            screen_blit(&g);
            redraw = 0;
        }
        struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
        poll(&pfd, 1, 250);
        if (pfd.revents & (POLLHUP | POLLERR)) {
            r = MENU_QUIT;
            break;
        }
        if (screen_sig_cont) {
            screen_sig_cont = 0;
            screen_force_redraw();
            redraw = 1;
        }
        int key;
        while (r == MENU_STAY && (key = screen_getkey()) != -1) {
            redraw = 1;
            if (key == KEY_RESIZE || key == -2)
                continue;
            int i = actions_for_key(key);
            if (i >= 0)
                r = menu_action(m, actions_get((size_t)i)->name);
        }
    }
    grid_free(&g);
    return r;
}

int tui_print_actions(FILE *f)
{
    for (size_t i = 0; i < actions_count(); i++) {
        const action *ac = actions_get(i);
        fprintf(f, "%s\t%s\t%s\n", ac->name, ac->keys, ac->help);
    }
    return 0;
}

/* --ref-npy: loads each file onto its tensor. A replay knows every tensor,
 * so one that is not there is an error now; live kernels come later. */
static int attach_ref_npy(app *a, const options *o)
{
    for (int i = 0; i < o->ui.ref_npy.n; i++) {
        const cli_ref_npy *r = &o->ui.ref_npy.items[i];
        if (a->mode == MODE_REPLAY && !session_find_tensor(a->s, r->kernel, r->name, r->phase)) {
            fprintf(stderr, "aotidbg: --ref-npy %lld:%s%s=%s: the session has no %s tensor %s at kernel #%lld "
                    "(%lld kernels); `aotidbg replay %s --dump` lists the tensors\n", (long long)r->kernel,
                    r->phase == PHASE_BEFORE ? "before:" : "", r->name, r->path, phase_name(r->phase), r->name,
                    (long long)r->kernel, (long long)session_kernel_count(a->s), a->source ? a->source : "S.yaml");
            return -1;
        }
        strbuf err = STRBUF_INIT;
        if (inspector_npy_attach(a, r->kernel, r->name, r->phase, r->path, &err) < 0) {
            fprintf(stderr, "aotidbg: --ref-npy: %s\n", err.buf);
            strbuf_release(&err);
            return -1;
        }
        strbuf_release(&err);
    }
    return 0;
}

/* What tui_main owns on every way out: the scripts and the live demo's paths. */
static void main_free(script *scripts, char *live_pkg_path, char *live_inputs_path)
{
    script_free(&scripts[0]);
    script_free(&scripts[1]);
    free(live_pkg_path);
    free(live_inputs_path);
}

int tui_main(const cli_args *args)
{
    const char *mode = args->cmd->ui_mode;
    options o;
    from_args(args, &o);
    actions_bind_defaults();
    strbuf err = STRBUF_INIT;
    if (actions_load_user_keys(&err) < 0) {
        fprintf(stderr, "aotidbg: warning: %s (using the default keys)\n", err.buf);
        strbuf_reset(&err);
    }
    session *s = NULL;
    app_mode m = MODE_REPLAY;
    script scripts[2] = {{0}, {0}};
    int scripts_loaded = 0;
    char *live_pkg_path = NULL, *live_inputs_path = NULL;   /* the menu's live demo */
    int screen_opened = 0;
    if (!strcmp(mode, "tutorial")) {
        if (o.ui.list) {
            tmenu menu;
            menu_load(&menu);
            for (size_t i = 0; i < menu.n; i++)
                printf("%-28s %s (%zu steps)\n", menu.names[i], menu.titles[i], menu.steps[i]);
            if (menu.live_pkg)
                printf("%-28s a live run of the bundled CPU model%s\n", "live-demo",
                       menu.live_cached ? "" : " (compiled on first use: python3 and torch)");
            if (!menu_rows(&menu))
                printf("no walkthroughs found in %s/sessions/tutorials\n", aotidbg_data_dir());
            menu_free(&menu);
            return EXIT_OK;
        }
        char *path = NULL;
        if (o.target && !strcmp(o.target, "live-demo")) {
            tmenu menu;
            menu_load(&menu);
            if (!menu.live_pkg) {
                demo_paths dp;
                strbuf derr = STRBUF_INIT;
                demo_locate(&dp, &derr);
                fprintf(stderr, "aotidbg: %s\n", derr.buf);
                strbuf_release(&derr);
                menu_free(&menu);
                return EXIT_USAGE;
            }
            live_pkg_path = xstrdup(menu.live_pkg);
            live_inputs_path = menu.live_inputs ? xstrdup(menu.live_inputs) : NULL;
            menu_free(&menu);
        } else if (o.target) {
            path = tutorial_path(o.target);
        } else {
            tmenu menu;
            menu_load(&menu);
            if (load_script(&o, &scripts[0], &scripts[1]) < 0) {
                menu_free(&menu);
                return EXIT_USAGE;
            }
            scripts_loaded = 1;
            int r = run_menu(&menu, &o, scripts, &screen_opened);
            if (r == MENU_OPEN)
                path = menu_path(&menu, (size_t)menu.cursor);
            else if (r == MENU_LIVE) {
                live_pkg_path = xstrdup(menu.live_pkg);
                live_inputs_path = menu.live_inputs ? xstrdup(menu.live_inputs) : NULL;
            }
            menu_free(&menu);
            if (r < 0 || r == MENU_QUIT) {
                screen_close();
                script_free(&scripts[0]);
                script_free(&scripts[1]);
                return r < 0 ? EXIT_USAGE : EXIT_OK;
            }
        }
        if (path) {
            int rc = load_session(path, &s);
            free(path);
            if (rc < 0) {
                screen_close();
                return EXIT_USAGE;
            }
            m = MODE_TUTORIAL;
        } else {
            /* the demo: compile it now if the cache has none (progress on screen) */
            demo_paths dp;
            int prc = demo_locate(&dp, &err);
            if (prc == 0 && !demo_ready(&dp) && !o.ui.headless.on && !screen_opened) {
                /* `tutorial live-demo` in a terminal: the progress goes on screen too */
                screen_options so = {o.ui.ascii, o.ui.no_color, o.ui.mouse};
                int sa = 0;
                if (screen_open(&so, &sa) == 0) {
                    screen_install_signals();
                    theme th;
                    theme_default(&th);
                    if (o.ui.no_color)
                        theme_mono(&th);
                    screen_apply_theme(&th);
                    screen_opened = 1;
                }
            }
            if (prc == 0)
                prc = demo_prepare(&dp, screen_opened, o.ui.ascii, &err);
            demo_paths_free(&dp);
            if (prc < 0) {
                screen_close();
                fprintf(stderr, "aotidbg: live demo: %s\n", err.buf);
                strbuf_release(&err);
                main_free(scripts, live_pkg_path, live_inputs_path);
                return EXIT_FAILED;
            }
            s = session_new();
            m = MODE_LIVE;
            o.target = o.live.package = live_pkg_path;
            o.live.inputs = live_inputs_path;
        }
    } else if (!strcmp(mode, "replay")) {
        if (!o.target)
            return cli_usage_error(args->cmd, "missing SESSION.yaml");
        if (load_session(o.target, &s) < 0)
            return EXIT_USAGE;
    } else {
        if (!o.target)
            return cli_usage_error(args->cmd, "missing package");
        s = session_new();
        m = MODE_LIVE;
    }
    app a;
    app_init(&a, s, m);
    a.owns_session = 1;
    a.source = o.target;
    a.ascii = o.ui.ascii;
    if (o.ui.theme || !o.ui.no_color) {
        if (theme_find_and_load(&a.th, o.ui.theme, &err) < 0) {
            fprintf(stderr, "aotidbg: warning: %s\n", err.buf);
            strbuf_reset(&err);
        }
    }
    if (o.ui.reference) {
        if (load_session(o.ui.reference, &a.ref) < 0) {
            app_release(&a);
            main_free(scripts, live_pkg_path, live_inputs_path);
            return EXIT_USAGE;
        }
        a.ref_path = o.ui.reference;
    }
    if (attach_ref_npy(&a, &o) < 0) {
        app_release(&a);
        main_free(scripts, live_pkg_path, live_inputs_path);
        return EXIT_USAGE;
    }
    if (m == MODE_TUTORIAL) {
        a.narration_on = 1;
        narration_start(&a);
    }
    if (m == MODE_LIVE && live_start(&a, &o.live, &err) < 0) {
        screen_close();
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        live_finish(&a, 0);
        app_release(&a);
        free(live_pkg_path);
        free(live_inputs_path);
        return EXIT_USAGE;
    }
    strbuf_release(&err);
    if (!scripts_loaded && load_script(&o, &scripts[0], &scripts[1]) < 0) {
        app_release(&a);
        return EXIT_USAGE;
    }
    if (m == MODE_LIVE)
        live_pump(&a, 100);
    int rc = o.ui.headless.on ? run_headless(&a, &o, scripts) : run_interactive(&a, &o, scripts);
    /* A live run exits as `aotidbg run` would (1 when the model failed). */
    int run_rc = live_finish(&a, 0);
    if (run_rc && rc != EXIT_USAGE)
        rc = run_rc;
    script_free(&scripts[0]);
    script_free(&scripts[1]);
    app_release(&a);
    free(live_pkg_path);
    free(live_inputs_path);
    return rc;
}
