/* fuzz_theme.c — libFuzzer target for theme files (tui/theme.c theme_load),
 * which users copy from other people. theme_load takes a path, so each input
 * is written to one private temporary file first.
 * Checks besides "no crash, no leak, no UB": a refusal names the file and
 * leaves the default theme in place (the header's promise); a theme that
 * loads has every colour in range (default or 0..255).
 * Build (from the repository root; tests/fuzz/run_all.sh links the
 * sanitizer-instrumented libraries instead):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/model -Icore/proto -Icore/package -Icore/inputs -Icore/check -Icore/router -Icore/session -Itui \
 *     -DAOTIDBG_SOURCE_DIR='"'$PWD'"' tests/fuzz/fuzz_theme.c tui/theme.c tui/ytree.c core/util/paths.c \
 *     core/util/arena.c core/util/strbuf.c $(pkg-config --cflags --libs yaml-0.1) -lm -o fuzz_theme
 * Run:
 *   mkdir -p /tmp/fuzz-theme && ./fuzz_theme -max_total_time=60 /tmp/fuzz-theme tests/fuzz/corpus/theme */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_target.h"
#include "theme.h"

static char path[64];

static void write_input(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fuzz-theme-%d.yaml", (int)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    theme t, def;
    strbuf err = STRBUF_INIT;
    write_input(data, size);
    theme_default(&def);
    if (theme_load(&t, path, &err)) {
        if (strncmp(err.buf, path, strlen(path)) || memcmp(t.el, def.el, sizeof t.el) || strcmp(t.name, def.name))
            abort();
    } else {
        for (int e = 0; e < EL__COUNT; e++)
            if (t.el[e].fg < TCOLOR_DEFAULT || t.el[e].fg > 255 || t.el[e].bg < TCOLOR_DEFAULT || t.el[e].bg > 255)
                abort();
    }
    strbuf_release(&err);
    return 0;
}
