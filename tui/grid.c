/* grid.c — the virtual screen (see grid.h). */
#include "grid.h"
#include "compat.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static const uint32_t ld_utf8[LD__N] = {0x2500, 0x2502, 0x250c, 0x2510, 0x2514, 0x2518, 0x2588, 0x2026};
static const uint32_t ld_ascii[LD__N] = {'-', '|', '+', '+', '+', '+', '#', '~'};

void grid_init(grid *g, int w, int h, int ascii)
{
    g->w = g->h = 0;
    g->cells = NULL;
    g->ascii = ascii;
    grid_resize(g, w, h);
}

void grid_free(grid *g)
{
    free(g->cells);
    g->cells = NULL;
    g->w = g->h = 0;
}

void grid_resize(grid *g, int w, int h)
{
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (w > 4096) w = 4096;   /* caps: a terminal never reports more */
    if (h > 4096) h = 4096;
    cell *c = xrealloc(g->cells, (size_t)w * (size_t)h * sizeof *c);
    g->cells = c;
    g->w = w;
    g->h = h;
    grid_clear(g, 0);
}

void grid_clear(grid *g, int el)
{
    for (int i = 0; i < g->w * g->h; i++) {
        g->cells[i].ch = ' ';
        g->cells[i].el = (uint8_t)el;
    }
}

uint32_t grid_ld(const grid *g, int piece)
{
    return g->ascii ? ld_ascii[piece] : ld_utf8[piece];
}

void grid_set(grid *g, int x, int y, uint32_t ch, int el)
{
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        return;
    if (ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0))
        ch = '?';
    if (g->ascii && ch >= 0x80)
        ch = '?';
    cell *c = &g->cells[y * g->w + x];
    c->ch = ch;
    c->el = (uint8_t)el;
}

/* Decodes one UTF-8 sequence; invalid bytes decode to U+FFFD, one byte each. */
static uint32_t utf8_next(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    uint32_t c = p[0];
    int n = 0;
    if (c < 0x80) { *pp = p + 1; return c; }
    if ((c & 0xe0) == 0xc0) { n = 1; c &= 0x1f; }
    else if ((c & 0xf0) == 0xe0) { n = 2; c &= 0x0f; }
    else if ((c & 0xf8) == 0xf0) { n = 3; c &= 0x07; }
    else { *pp = p + 1; return 0xfffd; }
    for (int i = 1; i <= n; i++) {
        if ((p[i] & 0xc0) != 0x80) { *pp = p + 1; return 0xfffd; }
        c = (c << 6) | (p[i] & 0x3f);
    }
    *pp = p + n + 1;
    if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0xfffd;
    return c;
}

int utf8_columns(const char *s)
{
    int n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        utf8_next(&p);
        n++;
    }
    return n;
}

int grid_put(grid *g, int x, int y, int maxw, int el, const char *utf8)
{
    if (!utf8 || maxw <= 0 || y < 0 || y >= g->h)
        return 0;
    if (x + maxw > g->w)
        maxw = g->w - x;
    if (maxw <= 0)
        return 0;
    const unsigned char *p = (const unsigned char *)utf8;
    int col = 0;
    while (*p && col < maxw) {
        uint32_t c = utf8_next(&p);
        if (col == maxw - 1 && *p) {   /* more text than room: mark the cut */
            grid_set(g, x + col, y, grid_ld(g, LD_ELLIPSIS), el);
            return col + 1;
        }
        if (c == '\t' || c == '\n' || c == '\r')
            c = ' ';
        else if (c < 32 || c == 127 || (c >= 0x80 && c < 0xa0))
            c = '?';   /* control bytes from untrusted text never reach the terminal */
        else if (c >= 0x80 && wcwidth((wchar_t)c) != 1)
            c = '?';   /* wide or zero-width glyphs would shift the columns */
        grid_set(g, x + col, y, c, el);
        col++;
    }
    return col;
}

int grid_printf(grid *g, int x, int y, int maxw, int el, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return grid_put(g, x, y, maxw, el, buf);
}

void grid_fill(grid *g, int x, int y, int w, int h, uint32_t ch, int el)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            grid_set(g, i, j, ch, el);
}

void grid_hline(grid *g, int x, int y, int w, int el)
{
    grid_fill(g, x, y, w, 1, grid_ld(g, LD_H), el);
}

void grid_box(grid *g, int x, int y, int w, int h, int el, const char *title, int title_el)
{
    if (w < 2 || h < 2)
        return;
    grid_hline(g, x + 1, y, w - 2, el);
    grid_hline(g, x + 1, y + h - 1, w - 2, el);
    grid_fill(g, x, y + 1, 1, h - 2, grid_ld(g, LD_V), el);
    grid_fill(g, x + w - 1, y + 1, 1, h - 2, grid_ld(g, LD_V), el);
    grid_set(g, x, y, grid_ld(g, LD_TL), el);
    grid_set(g, x + w - 1, y, grid_ld(g, LD_TR), el);
    grid_set(g, x, y + h - 1, grid_ld(g, LD_BL), el);
    grid_set(g, x + w - 1, y + h - 1, grid_ld(g, LD_BR), el);
    if (title && w > 4) {
        int n = grid_put(g, x + 2, y, w - 4, title_el, " ");
        n += grid_put(g, x + 2 + n, y, w - 4 - n, title_el, title);
        grid_put(g, x + 2 + n, y, w - 4 - n, title_el, " ");
    }
}

static void put_utf8(strbuf *out, uint32_t c)
{
    char b[4];
    if (c < 0x80) { strbuf_addch(out, (int)c); return; }
    if (c < 0x800) {
        b[0] = (char)(0xc0 | (c >> 6)); b[1] = (char)(0x80 | (c & 0x3f));
        strbuf_add(out, b, 2);
    } else if (c < 0x10000) {
        b[0] = (char)(0xe0 | (c >> 12)); b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        b[2] = (char)(0x80 | (c & 0x3f));
        strbuf_add(out, b, 3);
    } else {
        b[0] = (char)(0xf0 | (c >> 18)); b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((c >> 6) & 0x3f)); b[3] = (char)(0x80 | (c & 0x3f));
        strbuf_add(out, b, 4);
    }
}

void grid_dump(const grid *g, strbuf *out)
{
    for (int y = 0; y < g->h; y++) {
        int last = g->w - 1;
        while (last >= 0 && g->cells[y * g->w + last].ch == ' ')
            last--;
        for (int x = 0; x <= last; x++)
            put_utf8(out, g->cells[y * g->w + x].ch);
        strbuf_addch(out, '\n');
    }
}
