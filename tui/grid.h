/* grid.h — the virtual screen: a W x H grid of cells that panes draw into.
 *
 * Panes never touch curses: they render into a grid, headless mode and the
 * golden tests dump it as text (grid_dump), and screen.c blits it to the
 * terminal. Every write is clipped to the grid and to the caller's width, so
 * untrusted strings (kernel names, error text) can never spill past a pane.
 * Ownership: grid_init allocates cells, grid_free releases them.
 * Errors: allocation failure aborts (sizes are capped by the caller). */
#ifndef AOTIDBG_GRID_H
#define AOTIDBG_GRID_H
#include <stdint.h>
#include "strbuf.h"

typedef struct {
    uint32_t ch;      /* Unicode code point, printable (controls become '?') */
    uint8_t el;       /* theme element (theme.h) */
} cell;

typedef struct {
    int w, h;
    int ascii;        /* 1: line drawing with + - | */
    cell *cells;
} grid;

/* Line-drawing pieces, picked once from the locale / --ascii. */
enum { LD_H, LD_V, LD_TL, LD_TR, LD_BL, LD_BR, LD_BLOCK, LD_ELLIPSIS, LD__N };

void grid_init(grid *g, int w, int h, int ascii);
void grid_free(grid *g);
void grid_resize(grid *g, int w, int h);
void grid_clear(grid *g, int el);
uint32_t grid_ld(const grid *g, int piece);
void grid_set(grid *g, int x, int y, uint32_t ch, int el);
/* Writes UTF-8 text at (x, y), at most maxw columns; a string that does not
 * fit ends in an ellipsis. Returns the columns written. */
int grid_put(grid *g, int x, int y, int maxw, int el, const char *utf8);
int grid_printf(grid *g, int x, int y, int maxw, int el, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void grid_fill(grid *g, int x, int y, int w, int h, uint32_t ch, int el);
void grid_hline(grid *g, int x, int y, int w, int el);
/* A frame with the title on its top edge. */
void grid_box(grid *g, int x, int y, int w, int h, int el, const char *title, int title_el);
/* Appends the grid as UTF-8 text, one line per row, trailing blanks trimmed. */
void grid_dump(const grid *g, strbuf *out);
/* Number of display columns of the UTF-8 text as grid_put counts them. */
int utf8_columns(const char *s);

#endif
