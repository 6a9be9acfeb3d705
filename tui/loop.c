/* loop.c — the one UI loop (see loop.h). */
#include "loop.h"
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "actions.h"
#include "screen.h"

void loop_print_frame(const loop_screen *sc, grid *g, const char *label)
{
    sc->render(sc->ctx, g);
    strbuf out = STRBUF_INIT;
    grid_dump(g, &out);
    printf("=== %s ===\n%s", label, out.buf);
    strbuf_release(&out);
}

size_t loop_headless(const loop_screen *sc, grid *g, const loop_script *s, const char *prefix, int dump_only,
                     int *failed, int *quit)
{
    size_t i = 0;
    for (; i < s->n && !*quit; i++) {
        const char *why = "";
        if (sc->settle)
            sc->settle(sc->ctx);
        int r = sc->item(sc->ctx, s->items[i], s->is_line, &why);
        if (sc->settle)
            sc->settle(sc->ctx);
        if (r & LOOP_FAILED) {
            fflush(stdout);
            fprintf(stderr, "aotidbg: action '%s': %s\n", s->items[i], why);
            *failed = 1;
        }
        if (r & LOOP_QUIT)
            *quit = 1;
        if (!dump_only && !(r & (LOOP_QUIT | LOOP_SILENT))) {
            char label[300];
            snprintf(label, sizeof label, "%s%s", prefix, s->items[i]);
            loop_print_frame(sc, g, label);
        }
    }
    return i;
}

/* A grid the size of the terminal now, before each repaint. */
static void fit_to_screen(grid *g)
{
    int w, h;
    screen_size(&w, &h);
    if (w != g->w || h != g->h)
        grid_resize(g, w, h);
}

/* The keys waiting: LOOP_* flags. */
static int read_keys(const loop_screen *sc, const grid *g)
{
    int key, flags = 0;
    while (!(flags & LOOP_QUIT) && (key = screen_getkey()) != -1) {
        if (key == -2)
            continue;
        flags |= LOOP_REDRAW;
        if (key == KEY_RESIZE)
            continue;
        if (g->w < sc->min_w || g->h < sc->min_h) {
            /* the too-small screen still quits on q */
            if (key == 'q' || (sc->quit_key_action >= 0 && actions_for_key(key) == sc->quit_key_action))
                flags |= LOOP_QUIT;
            continue;
        }
        flags |= sc->key(sc->ctx, key);
        if (flags & LOOP_REPAINT) {
            screen_force_redraw();
            flags &= ~LOOP_REPAINT;
        }
    }
    return flags;
}

int loop_run(const loop_screen *sc, grid *g)
{
    int redraw = 1;
    for (;;) {
        if (screen_sig_term)
            return screen_sig_term;
        if (screen_sig_int) {
            screen_sig_int = 0;
            if (sc->interrupt && (sc->interrupt(sc->ctx) & LOOP_QUIT))
                return 0;
            redraw = 1;
        }
        if (screen_sig_cont) {
            screen_sig_cont = 0;
            screen_force_redraw();
            redraw = 1;
        }
        if (redraw) {
            fit_to_screen(g);
            sc->render(sc->ctx, g);
            screen_blit(g);
            redraw = 0;
        }
        struct pollfd fds[1 + LOOP_MAX_FDS] = {{STDIN_FILENO, POLLIN, 0}};
        int nfds = 1, more[LOOP_MAX_FDS];
        int other = sc->fd ? sc->fd(sc->ctx) : -1;
        if (other >= 0)
            fds[nfds++] = (struct pollfd){other, POLLIN, 0};
        int nmore = sc->fds ? sc->fds(sc->ctx, more, LOOP_MAX_FDS - 1) : 0;
        for (int i = 0; i < nmore; i++)   /* every rank's runner: none is waited on alone */
            if (more[i] >= 0)
                fds[nfds++] = (struct pollfd){more[i], POLLIN, 0};
        int wait_ms = sc->busy && sc->busy(sc->ctx) ? 0 : 250;
        if (poll(fds, (nfds_t)nfds, wait_ms) < 0 && errno != EINTR)
            return SIGHUP;
        int r = sc->tick ? sc->tick(sc->ctx) : 0;   /* a dead runner's fd can go away: tick anyway */
        if (fds[0].revents & (POLLHUP | POLLERR))
            return SIGHUP;   /* the terminal is gone */
        r |= read_keys(sc, g);
        if (r & LOOP_QUIT)
            return 0;
        if (r & LOOP_REDRAW)
            redraw = 1;
    }
}
