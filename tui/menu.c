/* menu.c — the tutorial menu (see menu.h). */
#include "menu.h"
#include "compat.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "demo.h"
#include "model.h"
#include "paths.h"
#include "session_io.h"
#include "theme.h"

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static char *tutorial_dir(void)
{
    return path_join(aotidbg_data_dir(), "sessions/tutorials");
}

char *menu_path(const tmenu *m, size_t i)
{
    char *dir = tutorial_dir();
    char file[300];
    snprintf(file, sizeof file, "%s.yaml", m->names[i]);
    char *p = path_join(dir, file);
    free(dir);
    return p;
}

void menu_load(tmenu *m)
{
    memset(m, 0, sizeof *m);
    char *dir = tutorial_dir();
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, alloc = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < 1000) {
            size_t l = strlen(e->d_name);
            if (l < 6 || l > 250 || strcmp(e->d_name + l - 5, ".yaml"))
                continue;
            ALLOC_GROW(names, n + 1, alloc);
            names[n++] = xstrndup(e->d_name, l - 5);
        }
        closedir(d);
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    m->names = xcalloc(n + 1, sizeof *m->names);
    m->titles = xcalloc(n + 1, sizeof *m->titles);
    m->steps = xcalloc(n + 1, sizeof *m->steps);
    for (size_t i = 0; i < n; i++) {
        char file[300];
        snprintf(file, sizeof file, "%s.yaml", names[i]);
        char *p = path_join(dir, file);
        session *s = NULL;
        strbuf err = STRBUF_INIT;
        /* only sessions with narration are walkthroughs */
        if (session_load(p, &s, &err) == 0 && s->nnarration) {
            m->names[m->n] = names[i];
            m->titles[m->n] = xstrdup(s->title ? s->title : names[i]);
            m->steps[m->n] = s->nnarration;
            m->n++;
        } else {
            free(names[i]);
        }
        strbuf_release(&err);
        session_free(s);
        free(p);
    }
    free(names);
    free(dir);
    /* the live entry: the bundled demo model, compiled into the cache on first use */
    demo_paths dp;
    strbuf derr = STRBUF_INIT;
    if (demo_locate(&dp, &derr) == 0) {
        m->live_pkg = xstrdup(dp.pkg);
        m->live_inputs = xstrdup(dp.inputs);
        m->live_cached = demo_ready(&dp);
        demo_paths_free(&dp);
    }
    strbuf_release(&derr);
}

void menu_free(tmenu *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->names[i]);
        free(m->titles[i]);
    }
    free(m->names);
    free(m->titles);
    free(m->steps);
    free(m->live_pkg);
    free(m->live_inputs);
    memset(m, 0, sizeof *m);
}

size_t menu_rows(const tmenu *m)
{
    return m->n + (m->live_pkg ? 1 : 0);
}

void menu_render(const tmenu *m, grid *g)
{
    grid_clear(g, EL_NORMAL);
    if (g->w < 30 || g->h < 8) {
        grid_put(g, 0, 0, g->w, EL_ERROR, "terminal too small; q quits");
        return;
    }
    grid_box(g, 0, 0, g->w, g->h - 1, EL_BORDER_FOCUS, "aotidbg: guided walkthroughs", EL_TITLE_FOCUS);
    int y = 2;
    grid_put(g, 2, y++, g->w - 4, EL_NORMAL, "Real recorded debugging sessions with narration; no GPU needed.");
    grid_put(g, 2, y++, g->w - 4, EL_DIM, "Up/Down choose, Enter opens, q quits.");
    y++;
    size_t rows = menu_rows(m);
    if (!rows) {
        grid_printf(g, 2, y, g->w - 4, EL_WARN, "No walkthroughs installed in %s/sessions/tutorials.",
                    aotidbg_data_dir());
    }
    int avail = g->h - 2 - y;
    int64_t top = m->cursor >= avail ? m->cursor - avail + 1 : 0;
    for (int64_t r = top; r < (int64_t)rows && y < g->h - 2; r++, y++) {
        int sel = r == m->cursor;
        char line[512];
        if ((size_t)r < m->n)
            snprintf(line, sizeof line, "%c %-24s %s (%zu steps)", sel ? '>' : ' ', m->names[r], m->titles[r],
                     m->steps[r]);
        else
            snprintf(line, sizeof line, "%c %-24s step through the bundled CPU model yourself%s", sel ? '>' : ' ',
                     "live-demo", m->live_cached ? "" : " (compiled on first use)");
        if (sel)
            grid_fill(g, 1, y, g->w - 2, 1, ' ', EL_SELECTED);
        grid_put(g, 2, y, g->w - 4, sel ? EL_SELECTED : EL_NORMAL, line);
    }
    grid_fill(g, 0, g->h - 1, g->w, 1, ' ', EL_STATUS);
    grid_put(g, 0, g->h - 1, g->w, EL_STATUS_MODE, " TUTORIAL ");
    grid_put(g, 11, g->h - 1, g->w - 11, EL_STATUS, " choose a walkthrough   Enter open   q quit");
}

int menu_action(tmenu *m, const char *action)
{
    int64_t n = (int64_t)menu_rows(m);
    if (!strcmp(action, "down"))
        m->cursor++;
    else if (!strcmp(action, "up"))
        m->cursor--;
    else if (!strcmp(action, "top"))
        m->cursor = 0;
    else if (!strcmp(action, "bottom"))
        m->cursor = n - 1;
    else if (!strcmp(action, "page-down"))
        m->cursor += 10;
    else if (!strcmp(action, "page-up"))
        m->cursor -= 10;
    else if (!strcmp(action, "quit"))
        return MENU_QUIT;
    else if (!strcmp(action, "next-step") || !strcmp(action, "right")) {
        if (m->cursor < 0 || m->cursor >= n)
            return MENU_STAY;
        return (size_t)m->cursor < m->n ? MENU_OPEN : MENU_LIVE;
    }
    if (m->cursor >= n)
        m->cursor = n - 1;
    if (m->cursor < 0)
        m->cursor = 0;
    return MENU_STAY;
}
