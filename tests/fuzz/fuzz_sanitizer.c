/* fuzz_sanitizer.c — libFuzzer target for compute-sanitizer's reports
 * (core/run/sanitizer_report.c), which the front end reads back from a
 * --memcheck run: every input is parsed as XML and as text, and merged.
 * Checks besides "no crash, no leak, no UB": the kept records never exceed
 * the cap, a failed XML parse says where, strings stay within SAN_MAX_TEXT.
 *
 * Build (from the repository root):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/run \
 *     tests/fuzz/fuzz_sanitizer.c core/run/sanitizer_report.c core/util/arena.c core/util/strbuf.c \
 *     -lexpat -o fuzz_sanitizer
 * Run:
 *   mkdir -p /tmp/fuzz-san && ./fuzz_sanitizer -max_len=20000 -max_total_time=300 /tmp/fuzz-san \
 *     tests/fuzz/corpus/sanitizer
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "sanitizer_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a = ARENA_INIT;
    strbuf err = STRBUF_INIT;
    san_report x, t;
    int rc = san_parse_xml((const char *)data, size, &a, &x, &err);
    if (rc < 0 && !strstr(err.buf, "line "))
        abort();
    san_parse_text((const char *)data, size, &a, &t);
    if (x.n > SAN_MAX_RECORDS || t.n > SAN_MAX_RECORDS)
        abort();
    for (size_t i = 0; i < t.n; i++)
        if (t.r[i].text && strlen(t.r[i].text) > SAN_MAX_TEXT)
            abort();
    if (rc == 0)
        san_merge(&x, &t);
    arena_release(&a);
    strbuf_release(&err);
    return 0;
}
