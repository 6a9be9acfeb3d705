/* fuzz_keys.c — libFuzzer target for the key map loader (tui/actions.c
 * actions_load_keys, the user's keys.yaml). It takes a path, so each input is
 * written to one private temporary file first.
 * Checks besides "no crash, no leak, no UB": a refusal names the file and
 * leaves every default binding as it was (the loader restores them); a map
 * that loads binds only known actions.
 * Build: needs the whole TUI library (actions.c calls into every pane), so
 * tests/fuzz/run_all.sh links it against sanitizer-instrumented static
 * libraries built by CMake (libaotidbg_tui.a, libaotidbg_core.a,
 * libaotidbg_proto.a) with -lyaml -lzip -lcjson -lelf -lncursesw -lm -ldl.
 * Run:
 *   mkdir -p /tmp/fuzz-keys && ./fuzz_keys -max_total_time=60 /tmp/fuzz-keys tests/fuzz/corpus/keys */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_target.h"
#include "actions.h"

static char path[64];

static void write_input(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz-keys-%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int before[KEYMAP_MAX_KEYCODE];
    strbuf err = STRBUF_INIT;
    write_input(data, size);
    actions_bind_defaults();
    for (int k = 0; k < KEYMAP_MAX_KEYCODE; k++)
        before[k] = actions_for_key(k);
    if (actions_load_keys(path, &err)) {
        if (strncmp(err.buf, path, strlen(path)))
            abort();
        for (int k = 0; k < KEYMAP_MAX_KEYCODE; k++)
            if (actions_for_key(k) != before[k])
                abort();
    } else {
        for (int k = 0; k < KEYMAP_MAX_KEYCODE; k++) {
            int a = actions_for_key(k);
            if (a < -1 || a >= (int)actions_count())
                abort();
        }
    }
    strbuf_release(&err);
    return 0;
}
