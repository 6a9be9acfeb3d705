/* fuzz_inputs.c — libFuzzer target for the inputs spec parser (core/inputs/inputs.c
 * inputs_parse), which reads YAML written by users or other tools.
 * Checks besides "no crash, no leak, no UB": a refusal always names the
 * input ("fuzz.yaml:") and says something; a spec that parses has ninputs
 * inputs, each with a known dtype.
 * Build (from the repository root; tests/fuzz/run_all.sh does this):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/model -Icore/proto -Icore/package -Icore/inputs -Icore/check -Icore/router -Icore/session \
 *     tests/fuzz/fuzz_inputs.c core/inputs/inputs.c core/inputs/tensor_file.c core/model/host_stats.c core/model/model.c core/util/paths.c core/util/arena.c \
 *     core/util/strbuf.c \
 *     $(pkg-config --cflags --libs yaml-0.1 libcjson) -lm -o fuzz_inputs
 * Run:
 *   mkdir -p /tmp/fuzz-inputs && ./fuzz_inputs -max_total_time=60 /tmp/fuzz-inputs tests/fuzz/corpus/inputs */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    session *s = session_new();
    strbuf err = STRBUF_INIT;
    if (!s)
        abort();
    if (inputs_parse(s, "fuzz.yaml", (const char *)data, size, &err)) {
        if (strncmp(err.buf, "fuzz.yaml", 9) || err.len < 12)
            abort();
    } else {
        for (size_t i = 0; i < s->ninputs; i++)
            if (s->inputs[i].dtype && !dtype_size(s->inputs[i].dtype))
                abort();
    }
    strbuf_release(&err);
    session_free(s);
    return 0;
}
