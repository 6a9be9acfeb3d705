/* menu.h — the tutorial menu: the walkthroughs found in
 * <datadir>/sessions/tutorials/ (sessions with narration), plus a live run of
 * the bundled CPU model when its source is installed (demo.h: compiled into
 * the cache on first use).
 * Driven by action names (up, down, top, bottom, next-step opens, quit) so
 * keys, --keys and key overrides work as everywhere else. Grid only.
 * Ownership: menu_load fills malloc'd lists freed by menu_free. */
#ifndef AOTIDBG_MENU_H
#define AOTIDBG_MENU_H
#include <stddef.h>
#include <stdint.h>
#include "grid.h"

typedef struct {
    size_t n;                  /* walkthroughs */
    char **names, **titles;
    size_t *steps;
    char *live_pkg;            /* bundled demo package (cache path; may not exist yet), or NULL */
    char *live_inputs;         /* its inputs spec, or NULL */
    int live_cached;           /* 1: already compiled */
    int64_t cursor;            /* 0..n-1 walkthroughs, n: live entry */
    int ascii;
} tmenu;

enum { MENU_STAY = 0, MENU_OPEN, MENU_LIVE, MENU_QUIT };

void menu_load(tmenu *m);
void menu_free(tmenu *m);
size_t menu_rows(const tmenu *m);
void menu_render(const tmenu *m, grid *g);
/* Applies an action by name; returns MENU_*. */
int menu_action(tmenu *m, const char *action);
/* Path of walkthrough i (malloc'd). */
char *menu_path(const tmenu *m, size_t i);

#endif
