/* screen.h — the terminal: newterm, colors from the theme, the grid blitter,
 * keys, and restoring the terminal on every exit path (atexit and signals).
 * Curses is included here and by actions.c, keymap.c, loop.c, tui_main.c
 * and demo.c (key codes).
 * Errors: screen_open returns -1 after printing advice to stderr. */
#ifndef AOTIDBG_SCREEN_H
#define AOTIDBG_SCREEN_H
#include "app.h"

typedef struct {
    int ascii;      /* force ASCII line drawing */
    int no_color;   /* --no-color or NO_COLOR */
    int mouse;      /* --mouse */
} screen_options;

int screen_open(const screen_options *o, int *ascii_out);
void screen_apply_theme(const theme *t);
/* Draws the grid and does the frame's single doupdate(). */
void screen_blit(const grid *g);
void screen_size(int *w, int *h);
/* Next key or -1 when none is waiting (non-blocking). KEY_RESIZE passes through. */
int screen_getkey(void);
/* Mouse event after a KEY_MOUSE key: 0 ok with x, y and button (1 click, 4 wheel up, 5 wheel down). */
int screen_mouse(int *x, int *y, int *button);
void screen_close(void);         /* idempotent; also runs at exit */
/* While the screen is up, stderr (fd 2) goes to a memory file, not the
 * terminal: no message of ours, a library's or a child's (one that shares our
 * stderr) writes over the panes. Appends to out what came since the last
 * call; how many bytes. screen_close puts stderr back and prints there all
 * that came while it was up (past 4 MiB, what the UI took already is
 * dropped). 0 without a screen (headless: stderr is the
 * terminal's or the caller's). */
size_t screen_take_stderr(strbuf *out);
/* Runs argv (a program the user asked for: $EDITOR) on the terminal: the
 * screen is given back while it runs and restored after. Without an open
 * screen (headless) it just runs. Returns its exit status, -1 when it could
 * not start or died by a signal. */
int screen_run_external(char *const argv[]);
void screen_force_redraw(void);

/* Signal flags the main loop polls (set by handlers). */
extern volatile int screen_sig_term;    /* SIGTERM/SIGHUP number, 0 none */
extern volatile int screen_sig_int;     /* SIGINT count */
extern volatile int screen_sig_cont;    /* resumed after SIGTSTP */
void screen_install_signals(void);

#endif
