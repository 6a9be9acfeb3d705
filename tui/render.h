/* render.h — draws the whole UI into a grid: the layout (each pane's `at`),
 * the panes, tabs, status bar, message or prompt line, narration box, help
 * and the text view. Grid only; screen.c puts the grid on the terminal. */
#ifndef AOTIDBG_RENDER_H
#define AOTIDBG_RENDER_H
#include "app.h"

/* Lays the screen out for g's size and renders everything into g. */
void app_render(app *a, grid *g);
/* The pane drawn at (x, y) in the last render, or -1 (mouse clicks). */
int app_pane_at(const app *a, int x, int y);
/* The status bar's key hints for the app's mode, from the keys bound now
 * ("s step c cont ? help q quit"), appended to out. */
void render_hints(const app *a, strbuf *out);

#endif
