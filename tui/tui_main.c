/* tui_main.c — the UI's entry point: options, the modes (replay, live,
 * tutorial: one setup function each), scripted input, and the app and the
 * tutorial menu as screens of the one loop (loop.h: poll, signals, resize,
 * headless frames). */
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
#include "compat.h"
#include "demo.h"
#include "hunt.h"
#include "live.h"
#include "load.h"
#include "loop.h"
#include "menu.h"
#include "pane_inspector.h"
#include "panes.h"
#include "ranks.h"
#include "paths.h"
#include "render.h"
#include "route_actions.h"
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

typedef loop_script script;   /* script lines ("name arg") vs --keys tokens */

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


/* ---- the app as a screen of the loop (loop.h) ------------------------- */

typedef struct {
    app *a;
    int on_terminal;      /* themes go to the terminal as they change */
    char theme_seen[64];
    strbuf err_line;      /* a partial line of what stderr said while the screen was up */
} app_screen;

static void app_screen_render(void *ctx, grid *g)
{
    app_screen *as = ctx;
    if (as->on_terminal && strcmp(as->theme_seen, as->a->th.name)) {
        screen_apply_theme(&as->a->th);
        snprintf(as->theme_seen, sizeof as->theme_seen, "%s", as->a->th.name);
    }
    app_render(as->a, g);
}

static int app_screen_mouse(app *a)
{
    int mx, my, b;
    if (screen_mouse(&mx, &my, &b) < 0)
        return 0;
    if (b == 4) actions_run(a, actions_find("up"), "3");
    else if (b == 5) actions_run(a, actions_find("down"), "3");
    else {
        int p = app_pane_at(a, mx, my);
        if (p >= 0) a->focus = p;
    }
    return LOOP_REDRAW;
}

/* AF_* flags (actions.h) as the loop's. */
static int app_flags(app *a, int r)
{
    return (r & AF_FAILED ? LOOP_FAILED : 0) | (r & AF_QUIT ? LOOP_QUIT | LOOP_SILENT : 0) |
           (a->quit ? LOOP_QUIT : 0) | (r & AF_REPAINT ? LOOP_REPAINT : 0) | LOOP_REDRAW;
}

static int app_screen_key(void *ctx, int key)
{
    app *a = ((app_screen *)ctx)->a;
    if (key == 27 && ra_repro_cancel(a))   /* Esc ends a live repro that runs (else Esc is Esc) */
        return LOOP_REDRAW;
    return key == KEY_MOUSE ? app_screen_mouse(a) : app_flags(a, actions_key(a, key));
}

static int app_screen_item(void *ctx, const char *item, int is_line, const char **why)
{
    app *a = ((app_screen *)ctx)->a;
    int r = is_line ? actions_command(a, item) : actions_token(a, item);
    *why = a->message.buf;
    return app_flags(a, r);
}

/* A live repro's runner while it runs (the live runner waits at a stop then,
 * or is looked at every tick), else the live runner. */
static int app_screen_fd(void *ctx)
{
    app *a = ((app_screen *)ctx)->a;
    int fd = ra_repro_fd(a);
    return fd >= 0 ? fd : live_fd(a);
}
static int app_screen_busy(void *ctx) { return load_busy(((app_screen *)ctx)->a); }
static int app_screen_fds(void *ctx, int *out, int max) { return live_fds(((app_screen *)ctx)->a, out, max); }

static int app_screen_tick(void *ctx)
{
    app *a = ((app_screen *)ctx)->a;
    int r = a->live && live_react(a, live_pump(a, 0)) ? LOOP_REDRAW : 0;
    r |= ra_repro_tick(a, 0) ? LOOP_REDRAW : 0;
    if (load_slice(a, 0.04))   /* a big replay: the next slice of its file */
        r |= LOOP_REDRAW;
    app_screen *as = ctx;   /* stderr of ours, the service's notes, a library's: on the message line, not the panes */
    if (as->on_terminal && screen_take_stderr(&as->err_line) && app_take_output(a, &as->err_line))
        r |= LOOP_REDRAW;
    return r | (a->quit ? LOOP_QUIT : 0);
}

static void app_screen_settle(void *ctx)
{
    app *a = ((app_screen *)ctx)->a;
    load_finish(a);   /* headless frames show the whole session */
    if (a->live && live_settle(a, 120000) < 0)
        fprintf(stderr, "aotidbg: the runner did not stop within 120 s\n");
    if (ra_repro_settle(a, 600000) < 0)
        fprintf(stderr, "aotidbg: the repro did not end within 600 s\n");
}

static int app_screen_interrupt(void *ctx)
{
    app *a = ((app_screen *)ctx)->a;
    if (ra_repro_cancel(a))   /* ^C ends a live repro first, the live run untouched */
        return LOOP_REDRAW;
    if (live_interrupt(a) < 0)
        app_message(a, 0, "q quits");
    return LOOP_REDRAW;
}

static loop_screen app_loop_screen(app_screen *as)
{
    loop_screen sc = {.ctx = as, .render = app_screen_render, .key = app_screen_key, .item = app_screen_item,
                      .fd = app_screen_fd, .fds = app_screen_fds, .tick = app_screen_tick, .settle = app_screen_settle, .busy = app_screen_busy,
                      .interrupt = app_screen_interrupt, .min_w = as->a->min_w, .min_h = as->a->min_h,
                      .quit_key_action = actions_find("quit")};
    return sc;
}

static int run_headless(app *a, const options *o, script *scripts)
{
    app_screen as = {.a = a};
    loop_screen sc = app_loop_screen(&as);
    grid g;
    grid_init(&g, o->ui.headless.w, o->ui.headless.h, a->ascii);
    int failed = 0, quit = a->quit;
    load_finish(a);   /* every frame shows the whole session */
    if (!o->ui.dump_screen)
        loop_print_frame(&sc, &g, "start");
    for (int k = 0; k < 2 && !quit; k++)
        loop_headless(&sc, &g, &scripts[k], "", o->ui.dump_screen, &failed, &quit);
    app_screen_settle(&as);
    if (o->ui.dump_screen)
        loop_print_frame(&sc, &g, "screen");
    grid_free(&g);
    fflush(stdout);
    return failed ? EXIT_FAILED : EXIT_OK;
}

/* The terminal open for a screen, its theme applied. */
static int open_terminal(const options *o, const theme *th, int *ascii)
{
    screen_options so = {o->ui.ascii, o->ui.no_color, o->ui.mouse};
    if (screen_open(&so, ascii) < 0)
        return -1;
    screen_install_signals();
    screen_apply_theme(th);
    return 0;
}

/* A grid the size of the terminal now. */
static void grid_at_screen_size(grid *g, int ascii)
{
    int w, h;
    screen_size(&w, &h);
    grid_init(g, w, h, ascii);
}

static int run_interactive(app *a, const options *o, script *scripts)
{
    if (o->ui.no_color)
        theme_mono(&a->th);
    int ascii = 0;
    if (open_terminal(o, &a->th, &ascii) < 0)
        return EXIT_USAGE;
    a->ascii = ascii;
    app_screen as = {.a = a, .on_terminal = 1, .err_line = STRBUF_INIT};
    snprintf(as.theme_seen, sizeof as.theme_seen, "%s", a->th.name);
    loop_screen sc = app_loop_screen(&as);
    const char *why;
    if (scripts[0].n || scripts[1].n)
        load_finish(a);   /* scripted keys act on the whole session, as headless ones do */
    for (int k = 0; k < 2 && !a->quit; k++)   /* --keys/--script first, then the terminal */
        for (size_t i = 0; i < scripts[k].n && !a->quit; i++)
            app_screen_item(&as, scripts[k].items[i], scripts[k].is_line, &why);
    grid g;
    grid_at_screen_size(&g, ascii);
    int sig = a->quit ? 0 : loop_run(&sc, &g);
    int rc = EXIT_OK;
    if (sig) {   /* SIGTERM/SIGHUP: give the terminal back, keep what was recorded, say how it ended */
        screen_close();   /* first: what live_finish says goes to the terminal, not under the screen */
        live_interrupted(a, sig);
        ra_repro_cancel(a);
        live_finish(a, 0);
        fprintf(stderr, "aotidbg: terminated by signal %d\n", sig);
        rc = EXIT_FAILED;
    }
    screen_close();   /* prints what stderr said while it was up (screen.h) */
    grid_free(&g);
    strbuf_release(&as.err_line);
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

/* ---- the tutorial menu as a screen of the loop ------------------------- */

typedef struct {
    tmenu *m;
    int r;   /* MENU_* */
} menu_screen;

static void menu_screen_render(void *ctx, grid *g) { menu_render(((menu_screen *)ctx)->m, g); }

static int menu_screen_do(menu_screen *ms, const char *action)
{
    ms->r = menu_action(ms->m, action);
    return ms->r == MENU_STAY ? LOOP_REDRAW : LOOP_QUIT | LOOP_SILENT;
}

static int menu_screen_key(void *ctx, int key)
{
    int i = actions_for_key(key);
    return i >= 0 ? menu_screen_do(ctx, actions_get((size_t)i)->name) : LOOP_REDRAW;
}

static int menu_screen_item(void *ctx, const char *item, int is_line, const char **why)
{
    const char *act = token_action(item);
    if (!act) {
        fprintf(stderr, "aotidbg: menu: unknown action or key '%s'\n", item);
        return LOOP_SILENT;
    }
    return menu_screen_do(ctx, act);
}

/* Runs the menu until a walkthrough is chosen (MENU_OPEN, *choice set),
 * the live demo (MENU_LIVE) or quit (MENU_QUIT). Headless: scripted tokens
 * drive it (the walkthrough gets the rest) and frames are printed;
 * interactive: the terminal stays open for what comes next. */
static int run_menu(tmenu *m, const options *o, script *scripts, int *screen_opened)
{
    menu_screen ms = {m, MENU_STAY};
    loop_screen sc = {.ctx = &ms, .render = menu_screen_render, .key = menu_screen_key, .item = menu_screen_item,
                      .quit_key_action = -1};
    grid g;
    if (o->ui.headless.on) {
        grid_init(&g, o->ui.headless.w, o->ui.headless.h, o->ui.ascii);
        m->ascii = o->ui.ascii;
        int failed = 0, quit = 0;
        if (!o->ui.dump_screen)
            loop_print_frame(&sc, &g, "menu");
        for (int k = 0; k < 2 && !quit; k++)
            script_drop(&scripts[k], loop_headless(&sc, &g, &scripts[k], "menu ", o->ui.dump_screen, &failed, &quit));
        if (ms.r == MENU_STAY) {   /* the script ended in the menu */
            if (o->ui.dump_screen)
                loop_print_frame(&sc, &g, "screen");
            ms.r = MENU_QUIT;
        }
        grid_free(&g);
        return ms.r;
    }
    theme th;
    if (o->ui.no_color)
        theme_mono(&th);
    else {
        strbuf err = STRBUF_INIT;
        theme_find_and_load(&th, o->ui.theme, &err);
        strbuf_release(&err);
    }
    int ascii = 0;
    if (open_terminal(o, &th, &ascii) < 0)
        return -1;
    *screen_opened = 1;
    m->ascii = ascii;
    grid_at_screen_size(&g, ascii);
    if (loop_run(&sc, &g))   /* a signal or a lost terminal */
        ms.r = MENU_QUIT;
    grid_free(&g);
    return ms.r;
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

/* ---- the modes: each sets up the session, run_app drives it ------------ */

/* What a mode hands to run_app, and what tui_main owns on every way out. */
typedef struct {
    options o;
    script scripts[2];           /* --keys tokens, --script lines */
    int scripts_loaded;
    char *live_pkg, *live_inputs;   /* the tutorial's live demo */
    int screen_opened;           /* the menu (or the demo's progress) opened the terminal */
    session *s;
    struct session_reader *loader;   /* a replay still reading (load.h); run_app hands it to the app */
    rank_set *ranks;             /* replay of several rank files (ranks.h); the app takes it over */
    app_mode m;
} launch;

static void launch_free(launch *l)
{
    script_free(&l->scripts[0]);
    script_free(&l->scripts[1]);
    free(l->live_pkg);
    free(l->live_inputs);
}

/* Ends a mode's setup early: the terminal back, the exit code. */
static int setup_done(int *rc, int code)
{
    screen_close();
    *rc = code;
    return 1;
}

static int list_tutorials(void)
{
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

static void take_live_demo(launch *l, const tmenu *menu)
{
    l->live_pkg = xstrdup(menu->live_pkg);
    l->live_inputs = menu->live_inputs ? xstrdup(menu->live_inputs) : NULL;
}

/* `tutorial live-demo`: the bundled package, or why there is none. */
static int find_live_demo(launch *l)
{
    tmenu menu;
    menu_load(&menu);
    int ok = menu.live_pkg != NULL;
    if (ok)
        take_live_demo(l, &menu);
    else {
        demo_paths dp;
        strbuf derr = STRBUF_INIT;
        demo_locate(&dp, &derr);
        fprintf(stderr, "aotidbg: %s\n", derr.buf);
        strbuf_release(&derr);
    }
    menu_free(&menu);
    return ok ? 0 : -1;
}

/* The menu: *path for a walkthrough, the live demo taken, or 1 when it quit. */
static int from_menu(launch *l, char **path, int *rc)
{
    tmenu menu;
    menu_load(&menu);
    if (load_script(&l->o, &l->scripts[0], &l->scripts[1]) < 0) {
        menu_free(&menu);
        return setup_done(rc, EXIT_USAGE);
    }
    l->scripts_loaded = 1;
    int r = run_menu(&menu, &l->o, l->scripts, &l->screen_opened);
    if (r == MENU_OPEN)
        *path = menu_path(&menu, (size_t)menu.cursor);
    else if (r == MENU_LIVE)
        take_live_demo(l, &menu);
    menu_free(&menu);
    return r < 0 || r == MENU_QUIT ? setup_done(rc, r < 0 ? EXIT_USAGE : EXIT_OK) : 0;
}

/* The demo: compiled now if the cache has none (the progress on screen in
 * a terminal), then a live run of it. */
static int setup_demo(launch *l, int *rc)
{
    strbuf err = STRBUF_INIT;
    demo_paths dp;
    int prc = demo_locate(&dp, &err);
    if (prc == 0 && !demo_ready(&dp) && !l->o.ui.headless.on && !l->screen_opened) {
        theme th;
        theme_default(&th);
        if (l->o.ui.no_color)
            theme_mono(&th);
        int sa = 0;
        l->screen_opened = open_terminal(&l->o, &th, &sa) == 0;
    }
    if (prc == 0)
        prc = demo_prepare(&dp, l->screen_opened, l->o.ui.ascii, &err);
    demo_paths_free(&dp);
    if (prc < 0) {
        screen_close();
        fprintf(stderr, "aotidbg: live demo: %s\n", err.buf);
        strbuf_release(&err);
        return setup_done(rc, EXIT_FAILED);
    }
    strbuf_release(&err);
    l->s = session_new();
    l->m = MODE_LIVE;
    l->o.target = l->o.live.package = l->live_pkg;
    l->o.live.inputs = l->live_inputs;
    return 0;
}

/* `aotidbg tutorial [NAME|live-demo] [--list]`. 0: l->s is set up; 1: done. */
static int setup_tutorial(launch *l, int *rc)
{
    if (l->o.ui.list)
        return setup_done(rc, list_tutorials());
    char *path = NULL;
    if (l->o.target && !strcmp(l->o.target, "live-demo")) {
        if (find_live_demo(l) < 0)
            return setup_done(rc, EXIT_USAGE);
    } else if (l->o.target) {
        path = tutorial_path(l->o.target);
    } else if (from_menu(l, &path, rc)) {
        return 1;
    }
    if (!path)
        return setup_demo(l, rc);
    int lrc = load_session(path, &l->s);
    free(path);
    if (lrc < 0)
        return setup_done(rc, EXIT_USAGE);
    l->m = MODE_TUTORIAL;
    return 0;
}

static int setup_replay(launch *l, const cli_args *args, int *rc)
{
    if (!l->o.target)
        return setup_done(rc, cli_usage_error(args->cmd, "missing SESSION.yaml"));
    l->m = MODE_REPLAY;
    if (args->npos > 1) {   /* the ranks of one --ranks run, together */
        strbuf err = STRBUF_INIT;
        if (ranks_load(args->pos, (int)args->npos, &l->ranks, &err) < 0) {
            fprintf(stderr, "aotidbg: %s\n", err.buf);
            strbuf_release(&err);
            return setup_done(rc, EXIT_USAGE);
        }
        strbuf_release(&err);
        l->s = l->ranks->s[0];
        return 0;
    }
    if (load_open(l->o.target, &l->s, &l->loader) < 0)   /* a big file: the rest loads on screen */
        return setup_done(rc, EXIT_USAGE);
    return 0;
}

static int setup_live(launch *l, const cli_args *args, int *rc)
{
    if (!l->o.target)
        return setup_done(rc, cli_usage_error(args->cmd, "missing package"));
    const run_options *o = &l->o.live;
    if (o->ranks && (o->remote || o->eager || o->memcheck))
        return setup_done(rc, cli_usage_error(args->cmd, "--ranks runs every rank here, without an eager "
                                              "reference or compute-sanitizer: it does not take %s yet",
                                              o->remote ? "--remote" : o->eager ? "--eager" : "--memcheck"));
    l->s = session_new();
    l->m = MODE_LIVE;
    return 0;
}

/* The app's theme, reference session and --ref-npy files. -1: bad input. */
static int app_extras(app *a, const options *o)
{
    strbuf err = STRBUF_INIT;
    if ((o->ui.theme || !o->ui.no_color) && theme_find_and_load(&a->th, o->ui.theme, &err) < 0)
        fprintf(stderr, "aotidbg: warning: %s\n", err.buf);
    strbuf_release(&err);
    if (o->ui.reference) {
        if (load_session(o->ui.reference, &a->ref) < 0)
            return -1;
        a->ref_path = o->ui.reference;
    }
    return attach_ref_npy(a, o);
}

/* The app over the mode's session, to the end: the exit code. */
static int run_app(launch *l)
{
    app a;
    app_init(&a, l->s, l->m);
    a.owns_session = 1;
    a.loader = l->loader;
    l->loader = NULL;
    if (l->ranks)
        ranks_attach(&a, l->ranks);
    a.source = l->o.target;
    a.ascii = l->o.ui.ascii;
    int rc = EXIT_USAGE;
    if (app_extras(&a, &l->o) < 0)
        goto out;
    if (l->m == MODE_TUTORIAL) {
        a.narration_on = 1;
        narration_start(&a);
    }
    strbuf err = STRBUF_INIT;
    if (l->m == MODE_LIVE && l->o.live.ranks)
        ranks_new(&a, l->o.live.ranks);   /* one session per rank, for live_start */
    if (l->m == MODE_LIVE && live_start(&a, &l->o.live, &err) < 0) {
        screen_close();
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        goto out;
    }
    strbuf_release(&err);
    if (!l->scripts_loaded && load_script(&l->o, &l->scripts[0], &l->scripts[1]) < 0)
        goto out;
    if (l->m == MODE_LIVE)
        live_react(&a, live_pump(&a, 100));
    rc = l->o.ui.headless.on ? run_headless(&a, &l->o, l->scripts) : run_interactive(&a, &l->o, l->scripts);
out:;
    /* A live run exits as `aotidbg run` would (1 when the model failed); a repro still running ends first. */
    ra_repro_cancel(&a);
    int run_rc = live_finish(&a, 0);
    if (run_rc && rc != EXIT_USAGE)
        rc = run_rc;
    int load_rc = load_close(&a);   /* the rest of a big replay did not load: say why */
    if (load_rc)
        rc = load_rc;
    ranks_free(&a);
    app_release(&a);
    return rc;
}

int tui_main(const cli_args *args)
{
    const char *mode = args->cmd->ui_mode;
    launch l;
    memset(&l, 0, sizeof l);
    from_args(args, &l.o);
    actions_bind_defaults();
    strbuf err = STRBUF_INIT;
    if (actions_load_user_keys(&err) < 0)
        fprintf(stderr, "aotidbg: warning: %s (using the default keys)\n", err.buf);
    strbuf_release(&err);
    int rc = EXIT_OK;
    int done = !strcmp(mode, "tutorial") ? setup_tutorial(&l, &rc)
               : !strcmp(mode, "replay") ? setup_replay(&l, args, &rc)
                                         : setup_live(&l, args, &rc);
    if (!done)
        rc = run_app(&l);
    launch_free(&l);
    return rc;
}
