/* screen_test.c — runs one screen scenario, tests/screens/NAME.screen (after
 * tig's test/main/ scenario files): what it shows in '#' lines, the command line, then
 * `---` and the screen expected after the keys, one file that reads top to
 * bottom as documentation:
 *
 *     # The kernel list steps to the NaN kernel; the inspector shows its tensors.
 *     $ aotidbg replay tests/screens/nan_hunt.yaml --headless 80x24 --ascii --keys "pane-kernels next-anomaly"
 *     ---
 *     +- 3 kernels (3) ----...
 *
 * The command runs in this process, as `aotidbg` would run it headless, with
 * one difference: the router pane gives no advice from routes.yaml (its
 * wording changes as rules improve; test_route checks that), so the screens
 * move only when the UI does. Modes: replay, tutorial (narration shown).
 * Each key must succeed. AOTIDBG_UPDATE_GOLDEN=1 rewrites the screen part.
 * Usage: screen_test FILE.screen (paths relative to the source tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "actions.h"
#include "app.h"
#include "panes.h"
#include "render.h"
#include "session_io.h"

typedef struct {
    char mode[16], session[512], keys[1024];
    int w, h, ascii;
} scenario;

/* The next word of a command line: plain, or "double quoted". */
static const char *word(const char *p, char *out, size_t n)
{
    while (*p == ' ')
        p++;
    size_t k = 0;
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (k + 1 < n)
                out[k++] = *p;
        if (*p == '"')
            p++;
    } else {
        for (; *p && *p != ' '; p++)
            if (k + 1 < n)
                out[k++] = *p;
    }
    out[k] = 0;
    return p;
}

static int parse_command(const char *line, scenario *sc, const char *file)
{
    char w[1024];
    const char *p = word(line + 1, w, sizeof w);
    if (strcmp(w, "aotidbg")) {
        fprintf(stderr, "%s: the command must start with '$ aotidbg', got '%s'\n", file, w);
        return -1;
    }
    p = word(p, sc->mode, sizeof sc->mode);
    p = word(p, sc->session, sizeof sc->session);
    while (*(p = word(p, w, sizeof w)) || *w) {
        char v[1024];
        if (!strcmp(w, "--ascii")) {
            sc->ascii = 1;
        } else if (!strcmp(w, "--headless")) {
            p = word(p, v, sizeof v);
            if (sscanf(v, "%dx%d", &sc->w, &sc->h) != 2) {
                fprintf(stderr, "%s: --headless wants WxH, got '%s'\n", file, v);
                return -1;
            }
        } else if (!strcmp(w, "--keys")) {
            p = word(p, sc->keys, sizeof sc->keys);
        } else {
            fprintf(stderr, "%s: option '%s' is not one a screen scenario runs (--headless, --ascii, --keys)\n",
                    file, w);
            return -1;
        }
    }
    if (strcmp(sc->mode, "replay") && strcmp(sc->mode, "tutorial")) {
        fprintf(stderr, "%s: mode '%s': replay or tutorial\n", file, sc->mode);
        return -1;
    }
    if (sc->w <= 0 || sc->h <= 0) {
        fprintf(stderr, "%s: the command needs --headless WxH\n", file);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: screen_test FILE.screen\n");
        return 2;
    }
    const char *file = argv[1];
    strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    if (strbuf_read_file(&text, file, 1 << 20, &err) < 0) {
        fprintf(stderr, "%s\n", err.buf);
        return 2;
    }
    scenario sc = {0};
    char *sep = strstr(text.buf, "\n---\n");
    if (!sep) {
        fprintf(stderr, "%s: no '---' line before the expected screen\n", file);
        return 2;
    }
    size_t head_len = (size_t)(sep - text.buf) + 5;
    const char *want = sep + 5;
    int have_cmd = 0;
    for (char *line = text.buf; line < sep;) {
        char *nl = strchr(line, '\n');
        *nl = 0;
        if (line[0] == '$') {
            if (parse_command(line, &sc, file) < 0)
                return 2;
            have_cmd = 1;
        }
        *nl = '\n';
        line = nl + 1;
    }
    if (!have_cmd) {
        fprintf(stderr, "%s: no '$ aotidbg ...' command line\n", file);
        return 2;
    }
    session *s;
    if (session_load(sc.session, &s, &err) < 0) {
        fprintf(stderr, "%s: %s\n", file, err.buf);
        return 2;
    }
    app a;
    int tutorial = !strcmp(sc.mode, "tutorial");
    app_init(&a, s, tutorial ? MODE_TUTORIAL : MODE_REPLAY);
    a.owns_session = 1;
    a.source = sc.session;
    a.router_off = 1;   /* see the header comment */
    if (tutorial) {
        a.narration_on = 1;
        narration_start(&a);
    }
    actions_bind_defaults();
    int failed = 0;
    char keys[1024];
    snprintf(keys, sizeof keys, "%s", sc.keys);
    for (char *save = NULL, *t = strtok_r(keys, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (actions_token(&a, t) & AF_FAILED) {
            fprintf(stderr, "%s: key '%s' failed: %s\n", file, t, a.message.buf);
            failed = 1;
        }
    grid g;
    grid_init(&g, sc.w, sc.h, sc.ascii);
    app_render(&a, &g);
    strbuf got = STRBUF_INIT;
    grid_dump(&g, &got);
    if (getenv("AOTIDBG_UPDATE_GOLDEN")) {
        FILE *f = fopen(file, "w");
        if (!f || fwrite(text.buf, 1, head_len, f) != head_len || fputs(got.buf, f) < 0)
            failed = 1;
        if (f)
            fclose(f);
    } else if (strcmp(want, got.buf)) {
        fprintf(stderr, "%s: the screen differs; got:\n%s", file, got.buf);
        failed = 1;
    }
    printf("%s: %s\n", file, failed ? "FAILED" : "ok");
    strbuf_release(&got);
    grid_free(&g);
    app_release(&a);
    strbuf_release(&text);
    strbuf_release(&err);
    return failed;
}
