/* test_tui_theme.c — the shipped themes load and say what their files say;
 * bad theme files give file:line:col and leave the default; user themes in
 * $XDG_CONFIG_HOME/aotidbg/themes are found by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "theme.h"

static const char *tmpdir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/aotidbg-theme-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    return dir;
}

static char *write_tmp(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir(), name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_shipped_themes(void)
{
    static const char *names[] = {"dark", "light", "high-contrast", "mono"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/themes/%s.yaml", AOTIDBG_SOURCE_DIR, names[i]);
        theme t;
        strbuf err = STRBUF_INIT;
        int rc = theme_load(&t, path, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.buf);
        CHECK(rc == 0);
        CHECK_STR(t.name, names[i]);
        strbuf_release(&err);
    }
    theme t;
    strbuf err = STRBUF_INIT;
    char path[512];
    snprintf(path, sizeof path, "%s/themes/light.yaml", AOTIDBG_SOURCE_DIR);
    CHECK(theme_load(&t, path, &err) == 0);
    CHECK(t.el[EL_SELECTED].fg == 7 && t.el[EL_SELECTED].bg == 4);   /* {fg: white, bg: blue} */
    CHECK(t.el[EL_BORDER].fg == 245);
    snprintf(path, sizeof path, "%s/themes/mono.yaml", AOTIDBG_SOURCE_DIR);
    CHECK(theme_load(&t, path, &err) == 0);
    for (int e = 0; e < EL__COUNT; e++)
        CHECK(t.el[e].fg == TCOLOR_DEFAULT && t.el[e].bg == TCOLOR_DEFAULT);
    CHECK(t.el[EL_SELECTED].attrs == TA_REVERSE);
    strbuf_release(&err);
}

static void expect_error(const char *text, const char *want)
{
    char *p = write_tmp("bad.yaml", text);
    theme t;
    strbuf err = STRBUF_INIT;
    CHECK(theme_load(&t, p, &err) == -1);
    CHECK_CONTAINS(err.buf, want);
    CHECK_STR(t.name, "dark");              /* the default stays */
    CHECK(t.el[EL_SELECTED].bg == 6);
    strbuf_release(&err);
}

static void test_bad_themes(void)
{
    expect_error("name: x\nelements:\n  selectd: {fg: red}\n", "bad.yaml:3:3: unknown element 'selectd'");
    expect_error("elements:\n  selected: {fg: reddish}\n", "bad.yaml:2:18: bad color 'reddish'");
    expect_error("elements:\n  selected: {fg: 256}\n", "bad.yaml:2:18: bad color '256'");
    expect_error("elements:\n  selected: {attrs: [blink]}\n", "bad.yaml:2:22: unknown attribute 'blink'");
    expect_error("elements:\n  ok: &a {fg: red}\n  warn: *a\n", "anchors and aliases are not allowed");
    expect_error("elements:\n  ok: {fg: red}\n  ok: {fg: blue}\n", "bad.yaml:3:3: duplicate key 'ok'");
    expect_error("elements: [\n", "bad.yaml:2:1:");
    expect_error("colours: {}\n", "bad.yaml:1:1: unknown key 'colours'");
    expect_error("- a\n- b\n", "bad.yaml:1:1: a theme is a mapping");
    /* deep nesting is cut off by the depth limit, not the stack */
    char deep[200];
    int n = 0;
    n += snprintf(deep + n, sizeof deep - n, "elements: ");
    for (int i = 0; i < 40; i++) deep[n++] = '[';
    deep[n] = 0;
    expect_error(deep, "nesting deeper than 16 levels");
    theme t;
    strbuf err = STRBUF_INIT;
    CHECK(theme_load(&t, "/nonexistent/theme.yaml", &err) == -1);
    CHECK_CONTAINS(err.buf, "/nonexistent/theme.yaml");
    strbuf_release(&err);
}

static void test_user_theme_dir(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/aotidbg", tmpdir());
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/aotidbg/themes", tmpdir());
    mkdir(dir, 0700);
    char file[400];
    snprintf(file, sizeof file, "%s/mine.yaml", dir);
    FILE *f = fopen(file, "w");
    fputs("name: mine\nelements:\n  selected: {fg: 16, bg: 214, attrs: [bold]}\n", f);
    fclose(f);
    setenv("XDG_CONFIG_HOME", tmpdir(), 1);
    theme t;
    strbuf err = STRBUF_INIT;
    CHECK(theme_find_and_load(&t, "mine", &err) == 0);
    CHECK_STR(t.name, "mine");
    CHECK(t.el[EL_SELECTED].bg == 214 && t.el[EL_SELECTED].attrs == TA_BOLD);
    CHECK(theme_find_and_load(&t, "high-contrast", &err) == 0);   /* falls through to the data dir */
    CHECK_STR(t.name, "high-contrast");
    CHECK(theme_find_and_load(&t, "nope", &err) == -1);
    CHECK_CONTAINS(err.buf, "theme 'nope' not found");
    CHECK_STR(t.name, "dark");
    strbuf_release(&err);
}

/* Mutated theme files (flipped, dropped, duplicated bytes) never crash or
 * hang the reader: each loads or fails with a located message. */
static void test_mutations(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/themes/high-contrast.yaml", AOTIDBG_SOURCE_DIR);
    strbuf base = STRBUF_INIT, err = STRBUF_INIT;
    CHECK(strbuf_read_file(&base, path, 1 << 20, &err) == 0);
    unsigned seed = 12345;
    int failed = 0, loaded = 0;
    for (int it = 0; it < 400 && base.len; it++) {
        strbuf m = STRBUF_INIT;
        strbuf_add(&m, base.buf, base.len);
        for (int k = 0; k < 1 + it % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % m.len;
            int op = (seed >> 4) % 3;
            static const char bytes[] = "{}[]:,&*!|>-#'\"\n \t\x00\xff\xc3";
            if (op == 0)
                m.buf[pos] = bytes[(seed >> 16) % (sizeof bytes - 1)];
            else if (op == 1 && m.len > 1) {
                memmove(m.buf + pos, m.buf + pos + 1, m.len - pos - 1);
                strbuf_setlen(&m, m.len - 1);
            } else {
                strbuf_addch(&m, ' ');
                memmove(m.buf + pos + 1, m.buf + pos, m.len - pos - 1);
            }
        }
        char *p = write_tmp("mut.yaml", "");
        FILE *f = fopen(p, "wb");
        fwrite(m.buf, 1, m.len, f);
        fclose(f);
        theme t;
        strbuf_reset(&err);
        if (theme_load(&t, p, &err) == 0)
            loaded++;
        else {
            failed++;
            CHECK_CONTAINS(err.buf, "mut.yaml");
        }
        strbuf_release(&m);
    }
    CHECK(failed > 0 && loaded > 0);
    strbuf_release(&base);
    strbuf_release(&err);
}

/* The man page documents every element a theme can set. */
static void test_man_page_lists_elements(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/man/aotidbg-theme.5", AOTIDBG_SOURCE_DIR);
    strbuf man = STRBUF_INIT, err = STRBUF_INIT;
    CHECK(strbuf_read_file(&man, path, 1 << 20, &err) == 0);
    for (int e = 0; e < EL__COUNT; e++) {
        char want[64];
        snprintf(want, sizeof want, ".B %s", element_name(e));
        CHECK_CONTAINS(man.buf, want);
    }
    strbuf_release(&man);
    strbuf_release(&err);
}

/* THEME_ELEMENTS is the one list: each row's name, dark default and mono
 * attributes are what the theme code gives, and the shipped mono theme file
 * agrees with the built-in mono table. */
static void test_element_table(void)
{
    theme d, m, f;
    theme_default(&d);
    theme_mono(&m);
    int n = 0;
#define ROW(id, name, fg_, bg_, attrs_, mono_)                                             \
    CHECK((int)id == n);                                                                   \
    CHECK_STR(element_name(id), name);                                                     \
    CHECK(element_from_name(name) == (int)id);                                             \
    CHECK(d.el[id].fg == (fg_) && d.el[id].bg == (bg_) && d.el[id].attrs == (attrs_));     \
    CHECK(m.el[id].fg == TCOLOR_DEFAULT && m.el[id].bg == TCOLOR_DEFAULT && m.el[id].attrs == (mono_)); \
    n++;
    THEME_ELEMENTS(ROW)
#undef ROW
    CHECK(n == EL__COUNT);
    char path[512];
    snprintf(path, sizeof path, "%s/themes/mono.yaml", AOTIDBG_SOURCE_DIR);
    strbuf err = STRBUF_INIT;
    CHECK(theme_load(&f, path, &err) == 0);
    for (int e = 0; e < EL__COUNT; e++) {
        if (f.el[e].attrs != m.el[e].attrs)
            fprintf(stderr, "  themes/mono.yaml: %s has attrs %d, the built-in mono %d\n", element_name(e),
                    f.el[e].attrs, m.el[e].attrs);
        CHECK(f.el[e].attrs == m.el[e].attrs);
    }
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_element_table);
    setenv("AOTIDBG_DATA_DIR", AOTIDBG_SOURCE_DIR, 1);
    RUN(test_shipped_themes);
    RUN(test_bad_themes);
    RUN(test_user_theme_dir);
    RUN(test_mutations);
    RUN(test_man_page_lists_elements);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir());
    if (system(cmd)) {}
    return CHECK_DONE();
}
