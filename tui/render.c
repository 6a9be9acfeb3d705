/* render.c — the screen: the layout (computed once a frame; each pane
 * remembers where it was put), the panes, and the chrome around them: tabs,
 * status bar, message/prompt line, narration box, help and "too small"
 * screens. Grid only (see render.h). */
#include "render.h"
#include <stdio.h>
#include <string.h>
#include "actions.h"
#include "keymap.h"
#include "load.h"
#include "live.h"
#include "pane_util.h"
#include "ranks.h"
#include "textview.h"
#include "view.h"

static const char *mode_name(app_mode m)
{
    return m == MODE_LIVE ? "LIVE" : m == MODE_TUTORIAL ? "TUTORIAL" : "REPLAY";
}

static const char *base_name(const char *p)
{
    if (!p)
        return "-";
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

/* The status bar's hints, from the live keymap (keymap.h), so a keys.yaml
 * rebinding shows: "s step c cont ? help q quit"; an action with no key is
 * left out. */
typedef struct { const char *action, *word; } hint;
static const hint live_hints[] = {{"step", "step"}, {"continue", "cont"}, {"restart", "restart"},
                                  {"help", "help"}, {"quit", "quit"}, {NULL, NULL}};
static const hint tour_hints[] = {{"next-step", "next"}, {"help", "help"}, {"quit", "quit"}, {NULL, NULL}};
static const hint replay_hints[] = {{"step", "step"}, {"continue", "cont"}, {"search", "search"},
                                    {"help", "help"}, {"quit", "quit"}, {NULL, NULL}};

void render_hints(const app *a, strbuf *out)
{
    const hint *h = a->mode == MODE_LIVE ? live_hints : a->narration_on ? tour_hints : replay_hints;
    for (; h->action; h++) {
        char key[32];
        keymap_first_key(h->action, key, sizeof key);
        if (key[0])
            strbuf_addf(out, "%s%s %s", out->len ? " " : "", key, h->word);
    }
}

static void render_status(app *a, grid *g, int y)
{
    grid_fill(g, 0, y, g->w, 1, ' ', EL_STATUS);
    char mode[16];
    snprintf(mode, sizeof mode, " %s ", mode_name(a->mode));
    int x = grid_put(g, 0, y, g->w, EL_STATUS_MODE, mode);
    const session *s = a->s;
    const char *pkg = s->package.path ? s->package.path : a->source;
    const char *dev = s->device ? s->device : s->package.device_key ? s->package.device_key : "-";
    const kernel_event *k = app_selected_kernel(a);
    char kbuf[64] = "";
    int64_t frow;
    const fold_event *fe = app_selected_fold(a, &frow);
    if (fe)   /* a folded loop's line: no kernel of its own */
        snprintf(kbuf, sizeof kbuf, " | folded %lld..%lld of %s", (long long)fe->from, (long long)fe->to, fe->loop);
    else if (k)
        snprintf(kbuf, sizeof kbuf, " | k %lld/%zu", (long long)k->index, s->nkernels);
    char line[512], mbuf[80] = "";
    const char *lim = app_mode_limits(s->mode);
    if (s->mode)   /* the run's mode, and what it cannot see */
        snprintf(mbuf, sizeof mbuf, " %s%s%s |", s->mode, *lim ? ": " : "", lim);
    char lbuf[96];
    const char *state = load_status(a, lbuf, sizeof lbuf);   /* a big replay still loading */
    snprintf(line, sizeof line, " %s | %s |%s %s%s", base_name(pkg), dev, mbuf, state ? state : runner_state_text(a),
             kbuf);
    x += grid_put(g, x, y, g->w - x, EL_STATUS, line);
    strbuf hints = STRBUF_INIT;
    render_hints(a, &hints);
    int hl = (int)hints.len;
    if (g->w - x > hl + 2)
        grid_put(g, g->w - hl - 1, y, hl, EL_STATUS, hints.buf);
    strbuf_release(&hints);
}

static void render_bottom(app *a, grid *g, int y)
{
    if (a->prompt) {
        char p[2] = {(char)a->prompt, 0};
        int x = grid_put(g, 0, y, g->w, EL_CMDLINE, p);
        /* show the tail of a long line so the cursor end stays visible */
        const char *t = a->input.buf;
        int cols = utf8_columns(t);
        while (cols > g->w - 2 && *t) {
            t++;
            while ((*t & 0xc0) == 0x80) t++;
            cols--;
        }
        x += grid_put(g, x, y, g->w - x, EL_CMDLINE, t);
        grid_set(g, x, y, '_', EL_CMDLINE);
    } else if (a->message.len) {
        grid_put(g, 0, y, g->w, a->message_error ? EL_ERROR : EL_NORMAL, a->message.buf);
    }
}

static int render_narration(app *a, grid *g, int y, int h)
{
    if (!a->narration_on || !a->s->nnarration)
        return 0;
    const narration_step *st = &a->s->narration[a->step < a->s->nnarration ? a->step : 0];
    grid_fill(g, 0, y, g->w, h, ' ', EL_NARRATION);
    char title[256];
    snprintf(title, sizeof title, "walkthrough: %s  step %zu/%zu", a->s->title ? a->s->title : "",
             a->step + 1, a->s->nnarration);
    grid_box(g, 0, y, g->w, h, EL_NARRATION, title, EL_NARRATION);
    int used = wrap_text(g, 2, y + 1, g->w - 4, h - 3, EL_NARRATION, st->text);
    (void)used;
    char hint[160];
    if (a->narration_waiting) {
        strbuf kb = STRBUF_INIT;
        keymap_keys_text(a->narration_waiting, &kb);
        snprintf(hint, sizeof hint, "> do: %s%s%s%s", a->narration_waiting, kb.len ? " (key " : "", kb.buf, kb.len ? ")" : "");
        strbuf_release(&kb);
    } else if (a->step + 1 < a->s->nnarration) {
        snprintf(hint, sizeof hint, "> Enter: next step   Backspace: back");
    } else {
        snprintf(hint, sizeof hint, "> last step: q quits");
    }
    grid_put(g, 2, y + h - 2, g->w - 4, EL_NARRATION, hint);
    return h;
}

static void render_help(app *a, grid *g, rect r)
{
    grid_box(g, r.x, r.y, r.w, r.h, EL_BORDER_FOCUS, "help: keys and actions (q or ? closes)", EL_TITLE_FOCUS);
    strbuf t = STRBUF_INIT;
    strbuf_addstr(&t, "KEYS         ACTION [ARG]           WHAT IT DOES\n");
    actions_help_text(&t);
    strbuf_addstr(&t, "\nEvery action also works as :ACTION [ARG], in --keys and --script.\n");
    int y = 0, line = 0;
    const char *p = t.buf;
    if (a->help_top > 0) {
        int64_t total = 0;
        for (const char *q = p; *q; q++) total += *q == '\n';
        if (a->help_top > total - (r.h - 2))
            a->help_top = total - (r.h - 2) > 0 ? total - (r.h - 2) : 0;
    }
    while (*p && y < r.h - 2) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (line >= a->help_top) {
            char buf[512];
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, p, n);
            buf[n] = 0;
            grid_put(g, r.x + 1, r.y + 1 + y, r.w - 2, line == 0 ? EL_HEADER : EL_NORMAL, buf);
            y++;
        }
        line++;
        p = nl ? nl + 1 : p + n;
    }
    strbuf_release(&t);
}

static void help_scroll(app *a, int64_t d)
{
    a->help_top = d > (1 << 20) - a->help_top ? 1 << 20 : a->help_top + d;   /* render_help keeps it on the text */
    if (a->help_top < 0)
        a->help_top = 0;
}

static int64_t help_top(const app *a) { return a->help_top; }

const view_ops help_view = {"help", render_help, help_scroll, help_top, NULL, 0, 1};

static void render_tabs(app *a, grid *g, int y)
{
    int x = 0;
    for (int i = 0; i < PANE__COUNT && x < g->w; i++) {
        char t[32];
        snprintf(t, sizeof t, "%d %s", i + 1, a->panes[i].ops->name);
        x += grid_put(g, x, y, g->w - x, a->focus == i ? EL_SELECTED : EL_DIM, t);
        x += grid_put(g, x, y, g->w - x, EL_NORMAL, " ");
    }
}

/* The parts of the screen besides the panes (which get pane->at). */
typedef struct {
    int too_small;
    int tabs;          /* compact layout: the tab row on top */
    rect narration;    /* h == 0: none */
    rect full;         /* the area of the panes: help, text view and zoom cover it */
    rect ranks;        /* the ranks strip above the panes (ranks.h); h == 0: none */
} layout;

static void compute_layout(app *a, int w, int h, layout *L)
{
    memset(L, 0, sizeof *L);
    for (int i = 0; i < PANE__COUNT; i++)
        a->panes[i].at = (rect){0, 0, 0, 0};
    if (w < a->min_w || h < a->min_h) {
        L->too_small = 1;
        return;
    }
    int area_h = h - 2;   /* the status bar and the message line below */
    if (a->narration_on && a->s->nnarration) {
        int nh = h >= 30 ? 7 : 6;
        if (area_h - nh >= 6) {
            area_h -= nh;
            L->narration = (rect){0, area_h, w, nh};
        }
    }
    int top = ranks_rows(a);   /* the ranks strip, when the panes keep 10 rows under it */
    if (top && area_h - top < 10)
        top = area_h - 10 > 2 ? area_h - 10 : 0;
    L->ranks = (rect){0, 0, w, top};
    area_h -= top;
    L->full = (rect){0, top, w, area_h};
    if (a->over) {
        L->full = (rect){0, 0, w, area_h + top};
        return;
    }
    pane *p = a->panes;
    if (a->zoom) {
        p[a->focus].at = (rect){0, 0, w, area_h};
    } else if (w < 80 || area_h < 16) {   /* compact: one pane under tabs */
        L->tabs = 1;
        p[a->focus].at = (rect){0, 1, w, area_h - 1};
    } else if (w >= 120) {
        int top = area_h * 2 / 3, lw = w * 11 / 20;
        p[PANE_KERNELS].at = (rect){0, 0, lw, top};
        p[PANE_INSPECTOR].at = (rect){lw, 0, w - lw, top};
        p[PANE_ROUTER].at = (rect){0, top, w / 2, area_h - top};
        p[PANE_CHECKLIST].at = (rect){w / 2, top, w - w / 2, area_h - top};
    } else {
        int kh = area_h * 2 / 5, ih = area_h * 7 / 20;
        p[PANE_KERNELS].at = (rect){0, 0, w, kh};
        p[PANE_INSPECTOR].at = (rect){0, kh, w, ih};
        p[PANE_ROUTER].at = (rect){0, kh + ih, w / 2, area_h - kh - ih};
        p[PANE_CHECKLIST].at = (rect){w / 2, kh + ih, w - w / 2, area_h - kh - ih};
    }
    for (int i = 0; i < PANE__COUNT; i++)   /* below the ranks strip */
        if (p[i].at.w)
            p[i].at.y += top;
}

void app_render(app *a, grid *g)
{
    grid_clear(g, EL_NORMAL);
    int w = g->w, h = g->h;
    layout L;
    compute_layout(a, w, h, &L);
    if (L.too_small) {
        /* one message, wrapped to whatever width there is */
        char msg[120];
        snprintf(msg, sizeof msg, "terminal too small (need %dx%d, have %dx%d); q quits", a->min_w, a->min_h, w, h);
        wrap_text(g, 0, 0, w, h, EL_ERROR, msg);
        return;
    }
    render_status(a, g, h - 2);
    render_bottom(a, g, h - 1);
    if (L.narration.h)
        render_narration(a, g, L.narration.y, L.narration.h);
    if (a->over) {
        a->over->render(a, g, L.full);
        return;
    }
    if (L.ranks.h)
        ranks_render(a, g, L.ranks);
    if (L.tabs)
        render_tabs(a, g, L.ranks.h);
    for (int i = 0; i < PANE__COUNT; i++) {
        pane *p = &a->panes[i];
        if (p->at.w >= 4 && p->at.h >= 3)
            p->ops->render(a, p, g, a->focus == i);
    }
}

int app_pane_at(const app *a, int x, int y)
{
    for (int i = 0; i < PANE__COUNT; i++) {
        rect r = a->panes[i].at;
        if (r.w && x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h)
            return i;
    }
    return -1;
}
