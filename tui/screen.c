/* screen.c — the terminal layer (see screen.h). */
#define _GNU_SOURCE   /* memfd_create */
#define _XOPEN_SOURCE_EXTENDED 1
#include "screen.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <curses.h>
#include <term.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

static SCREEN *scr;
static int active, colors_on, mouse_on;
static attr_t el_attr[EL__COUNT];
static short el_pair[EL__COUNT];

volatile int screen_sig_term, screen_sig_int, screen_sig_cont;

/* ---- stderr while the screen is up -------------------------------------------
 * fd 2 is a memory file (memfd) from screen_open to screen_close, so that no
 * message (ours, a library's, a child's that shares our stderr) writes over
 * the panes. screen_take_stderr hands what came to the UI; screen_close (and
 * a fatal signal) puts fd 2 back and writes everything it caught there, after
 * the screen is gone. A file, not a pipe: a writer never blocks on a reader
 * that is busy drawing, and a crash's report is still there to copy. */
static int tap_fd = -1, real_err = -1;
static off_t tap_taken;          /* bytes of the tap screen_take_stderr handed on */
#define TAP_MAX (4 << 20)

static void tap_begin(void)
{
    fflush(stderr);
    int fd = memfd_create("aotidbg-stderr", MFD_CLOEXEC);
    int saved = fd < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || saved < 0 || dup2(fd, STDERR_FILENO) < 0) {   /* no tap: messages show as before */
        if (fd >= 0)
            close(fd);
        if (saved >= 0)
            close(saved);
        return;
    }
    tap_fd = fd;
    real_err = saved;
    tap_taken = 0;
}

/* Puts fd 2 back and copies what the tap caught there (async-signal-safe). */
static void tap_end(void)
{
    if (tap_fd < 0)
        return;
    dup2(real_err, STDERR_FILENO);
    close(real_err);
    real_err = -1;
    char buf[4096];
    ssize_t n;
    for (off_t at = 0; (n = pread(tap_fd, buf, sizeof buf, at)) > 0; at += n)
        if (write(STDERR_FILENO, buf, (size_t)n) < 0)
            break;
    close(tap_fd);
    tap_fd = -1;
}

size_t screen_take_stderr(strbuf *out)
{
    if (tap_fd < 0)
        return 0;
    fflush(stderr);
    size_t got = 0;
    char buf[4096];
    ssize_t n;
    while ((n = pread(tap_fd, buf, sizeof buf, tap_taken)) > 0) {
        strbuf_add(out, buf, (size_t)n);
        tap_taken += n;
        got += (size_t)n;
    }
    if (tap_taken > TAP_MAX && !ftruncate(tap_fd, 0)) {   /* O_APPEND-free: writers write at fd 2's offset */
        lseek(STDERR_FILENO, 0, SEEK_SET);
        tap_taken = 0;   /* what the UI took already goes: screen_close prints the rest */
    }
    return got;
}

void screen_close(void)
{
    if (!active)
        return;
    active = 0;
    if (mouse_on)
        mousemask(0, NULL);
    endwin();
    fflush(stdout);
    fflush(stderr);
    tap_end();
}

static void restore_at_exit(void) { screen_close(); }


static int open_ascii;

int screen_open(const screen_options *o, int *ascii_out)
{
    if (active) {   /* the tutorial menu hands its open screen to the app */
        *ascii_out = open_ascii;
        return 0;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fputs("aotidbg: the full-screen UI needs a terminal on stdin and stdout "
              "(use --headless WxH or `aotidbg replay S.yaml --dump` in scripts)\n", stderr);
        return -1;
    }
    const char *term = getenv("TERM");
    /* Ask terminfo first: a failed newterm() leaks ncurses' half-made screen. */
    int terr = 0;
    int ok = setupterm(NULL, STDOUT_FILENO, &terr) == OK;
    if (ok)
        del_curterm(cur_term);
    scr = ok ? newterm(NULL, stdout, stdin) : NULL;
    if (!scr) {
        fprintf(stderr,
                "aotidbg: cannot use terminal type '%s' (no terminfo entry).\n"
                "  try: TERM=xterm-256color aotidbg ...\n"
                "  or install the terminfo database: apt-get install ncurses-term\n",
                term ? term : "(unset)");
        return -1;
    }
    set_term(scr);
    active = 1;
    atexit(restore_at_exit);
    tap_begin();
    set_escdelay(25);
    cbreak();        /* not raw(): ^C stays a signal, which stops the runner */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    const char *cs = nl_langinfo(CODESET);
    *ascii_out = open_ascii = o->ascii || !cs || strcmp(cs, "UTF-8") != 0;
    colors_on = !o->no_color && has_colors();
    if (colors_on) {
        start_color();
        use_default_colors();
    }
    if (o->mouse) {
        mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
        mouseinterval(0);
        mouse_on = 1;
    }
    return 0;
}

/* Maps a theme color to what the terminal has: bright colors fall back to the
 * base color (plus bold for foregrounds) on 8-color terminals, and 256-color
 * indexes to their base color modulo 8 on 8/16-color ones. */
static short map_color(int c, int fg, attr_t *extra)
{
    if (c < 0)
        return -1;
    if (c < COLORS)
        return (short)c;
    if (c < 16) {
        if (fg)
            *extra |= A_BOLD;
        return (short)(c - 8);
    }
    return (short)(c % 8);
}

void screen_apply_theme(const theme *t)
{
    for (int e = 0; e < EL__COUNT; e++) {
        const theme_style *st = &t->el[e];
        attr_t a = 0;
        if (st->attrs & TA_BOLD) a |= A_BOLD;
        if (st->attrs & TA_REVERSE) a |= A_REVERSE;
        if (st->attrs & TA_UNDERLINE) a |= A_UNDERLINE;
        if (st->attrs & TA_DIM) a |= A_DIM;
        el_pair[e] = 0;
        if (colors_on && e + 1 < COLOR_PAIRS) {
            short fg = map_color(st->fg, 1, &a), bg = map_color(st->bg, 0, &a);
            init_pair((short)(e + 1), fg, bg);
            el_pair[e] = (short)(e + 1);
        } else if (!colors_on && (st->bg >= 0) && !(st->attrs & TA_REVERSE) && (e == EL_SELECTED || e == EL_STATUS ||
                                                                                   e == EL_STATUS_MODE || e == EL_MATCH || e == EL_NARRATION)) {
            a |= A_REVERSE;   /* without colors a colored bar must still stand out */
        }
        el_attr[e] = a;
    }
}

void screen_blit(const grid *g)
{
    int w = g->w < COLS ? g->w : COLS, h = g->h < LINES ? g->h : LINES;
    cchar_t *line = xcalloc((size_t)w + 1, sizeof *line);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const cell *c = &g->cells[y * g->w + x];
            wchar_t wc[2] = {(wchar_t)c->ch, 0};
            int el = c->el < EL__COUNT ? c->el : 0;
            setcchar(&line[x], wc, el_attr[el], el_pair[el], NULL);
        }
        mvadd_wchnstr(y, 0, line, w);
    }
    free(line);
    wnoutrefresh(stdscr);
    doupdate();
}

void screen_size(int *w, int *h)
{
    *w = COLS;
    *h = LINES;
}

int screen_getkey(void)
{
    wint_t wc;
    int r = wget_wch(stdscr, &wc);
    if (r == ERR)
        return -1;
    if (r == KEY_CODE_YES)
        return (int)wc;
    return wc < 256 ? (int)wc : -2;   /* other characters are not bound */
}

int screen_mouse(int *x, int *y, int *button)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return -1;
    *x = ev.x;
    *y = ev.y;
    *button = (ev.bstate & BUTTON4_PRESSED) ? 4 : (ev.bstate & BUTTON5_PRESSED) ? 5 : 1;
    return 0;
}

void screen_force_redraw(void)
{
    clearok(curscr, TRUE);
}

/* ---- signals ---------------------------------------------------------- */

static void on_fatal(int sig)
{
    /* restore the terminal, then die of the same signal for the core dump */
    if (active) {
        active = 0;
        endwin();
    }
    tap_end();   /* what stderr said while the screen was up, the crash's report too */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_term(int sig) { screen_sig_term = sig; }
static void on_int(int sig) { screen_sig_int++; }

static void on_tstp(int sig);
static void on_cont(int sig)
{
    signal(SIGTSTP, on_tstp);
    if (active) {
        reset_prog_mode();
        screen_sig_cont = 1;
    }
}

static void on_tstp(int sig)
{
    if (active) {
        def_prog_mode();
        endwin();
    }
    signal(SIGTSTP, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTSTP);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(SIGTSTP);
}

void screen_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sa.sa_flags = 0;   /* no SA_RESTART: poll() returns EINTR and the loop looks */
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_int;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_tstp;
    sigaction(SIGTSTP, &sa, NULL);
    sa.sa_handler = on_cont;
    sigaction(SIGCONT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int screen_run_external(char *const argv[])
{
    int was = active;
    if (was) {
        def_prog_mode();
        endwin();
    }
    int status = -1;
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTSTP, SIG_DFL);
        if (real_err >= 0)   /* the program the user asked for has the terminal, stderr too */
            dup2(real_err, STDERR_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    if (was) {
        reset_prog_mode();
        screen_force_redraw();
    }
    if (pid < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}
