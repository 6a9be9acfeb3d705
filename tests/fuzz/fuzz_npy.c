/* fuzz_npy.c — libFuzzer target for .npy files (core/inputs/tensor_file.c
 * tensor_file_load_npy, the inspector's .npy reference; its header reader is
 * also the inputs spec's `fill: file` reader). The loader takes a path, so
 * each input is written to one private temporary file first.
 * Checks besides "no crash, no leak, no UB": a refusal names the file and
 * leaves the tensor empty; a file that loads has a known dtype, row-major
 * strides, statistics whose counts add up to numel, and every value kept
 * (inputs are far below the values budget) matching the counts.
 * Build (from the repository root; tests/fuzz/run_all.sh links the
 * sanitizer-instrumented libraries instead):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/model -Icore/proto -Icore/package -Icore/inputs -Icore/check -Icore/router -Icore/session \
 *     tests/fuzz/fuzz_npy.c core/inputs/tensor_file.c core/model/host_stats.c core/inputs/inputs.c core/model/model.c core/util/paths.c core/util/arena.c \
 *     core/util/strbuf.c $(pkg-config --cflags --libs yaml-0.1 libcjson) -lm -o fuzz_npy
 * Run:
 *   mkdir -p /tmp/fuzz-npy && ./fuzz_npy -max_total_time=60 /tmp/fuzz-npy tests/fuzz/corpus/npy */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_target.h"
#include "inputs.h"
#include "tensor_file.h"

static char path[64];

static void write_input(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz-npy-%d.npy", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena ar = ARENA_INIT;
    strbuf err = STRBUF_INIT;
    tensor_rec t;
    write_input(data, size);
    if (tensor_file_load_npy(&ar, path, 0, &t, &err)) {
        if (strncmp(err.buf, path, strlen(path)) || err.len < strlen(path) + 8 || t.nvalues || t.values || t.ndim)
            abort();
    } else {
        const tensor_stats *s = &t.stats;
        uint64_t numel = 1;
        for (int d = 0; d < t.ndim; d++)
            numel *= (uint64_t)t.shape[d];
        int64_t stride = 1;
        for (int d = t.ndim - 1; d >= 0; d--) {
            if (t.strides[d] != stride)
                abort();
            stride *= t.shape[d] > 0 ? t.shape[d] : 1;
        }
        if (!dtype_size(t.dtype) || !t.has_stats || s->numel != numel || s->finite + s->nan + s->posinf + s->neginf
            != numel || s->zeros + s->subnormal > s->finite || t.nvalues != numel || !t.values_complete)
            abort();
        uint64_t nan = 0;
        for (size_t i = 0; i < t.nvalues; i++)
            nan += isnan(t.values[i]) != 0;
        if (nan != s->nan || (s->finite && !(s->min <= s->max)))
            abort();
    }
    arena_release(&ar);
    strbuf_release(&err);
    return 0;
}
