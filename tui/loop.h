/* loop.h — the one UI loop: every screen (the app in replay, live and
 * walkthroughs; the tutorial menu) is a loop_screen handed to it, so input,
 * signals, resize, the too-small screen, scripted input and headless frames
 * are handled once.
 *
 * loop_run drives a screen on the terminal: one poll() over stdin and the
 * screen's fd (the run service's, through live.h), with a 250 ms timeout so
 * signals and a runner without an fd are seen promptly (no wait while the
 * screen is busy: a big replay loading, its tick reading a slice each
 * turn); one render and one doupdate() per batch of input. loop_headless drives it from a script and
 * prints each frame (loop_print_frame, the only frame printer).
 * Ownership: the loop borrows the screen and its grid. Threads: one. */
#ifndef AOTIDBG_LOOP_H
#define AOTIDBG_LOOP_H
#include <stddef.h>
#include "grid.h"

/* What a screen's hooks answer. */
enum {
    LOOP_REDRAW = 1,    /* render again */
    LOOP_REPAINT = 2,   /* and repaint the whole terminal */
    LOOP_QUIT = 4,      /* the screen is done */
    LOOP_FAILED = 8,    /* a scripted item failed (headless: "action 'ITEM': MESSAGE" is printed) */
    LOOP_SILENT = 16,   /* headless: no frame for this item */
};

#define LOOP_MAX_FDS 72   /* the fds a screen may ask to poll, besides stdin */

typedef struct {
    void *ctx;
    void (*render)(void *ctx, grid *g);
    /* A key on the terminal (not KEY_RESIZE): LOOP_* flags. */
    int (*key)(void *ctx, int key);
    /* A scripted item (a --keys token, or a --script line when is_line):
     * LOOP_* flags; *message says why it failed. */
    int (*item)(void *ctx, const char *item, int is_line, const char **message);
    int (*fd)(void *ctx);          /* another fd to poll; NULL or -1: none */
    /* More fds to poll (a --ranks run: one per rank) into out (at most max): how many; NULL none */
    int (*fds)(void *ctx, int *out, int max);
    int (*tick)(void *ctx);        /* after each poll, without blocking: LOOP_* flags; NULL none */
    int (*busy)(void *ctx);        /* 1: tick has work (a session loading): poll without waiting; NULL none */
    void (*settle)(void *ctx);     /* headless, before and after each item: wait for the screen's news */
    int (*interrupt)(void *ctx);   /* ^C: LOOP_* flags (LOOP_QUIT ends the loop); NULL: ignored */
    int min_w, min_h;              /* smaller: "too small" (the quit key still works); 0: any */
    int quit_key_action;           /* actions.h index of quit, for the too-small screen; -1 none */
} loop_screen;

/* The screen on the terminal until it quits (0) or a signal or a lost
 * terminal ends it (the signal's number). The terminal is open. */
int loop_run(const loop_screen *sc, grid *g);

typedef struct {
    char **items;
    size_t n;
    int is_line;
} loop_script;

/* Headless: the script's items in order until the screen quits (*quit set);
 * a frame after each ("=== PREFIXITEM ===") unless dump_only. Returns how
 * many items were used, *failed set when one failed. */
size_t loop_headless(const loop_screen *sc, grid *g, const loop_script *s, const char *prefix, int dump_only,
                     int *failed, int *quit);

/* Prints one frame: "=== label ===" and the grid's text. */
void loop_print_frame(const loop_screen *sc, grid *g, const char *label);

#endif
