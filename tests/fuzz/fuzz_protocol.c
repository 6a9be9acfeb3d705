/* fuzz_protocol.c — libFuzzer target for proto_decode(), the one parser of
 * bytes coming from another process. Build (clang only):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/model -Icore/proto -Icore/package -Icore/inputs -Icore/check -Icore/router -Icore/session \
 *     tests/fuzz/fuzz_protocol.c core/proto/protocol.c core/proto/protocol_table.c core/util/strbuf.c core/util/arena.c -lm -o fuzz_protocol
 *   ./fuzz_protocol tests/fuzz/corpus/protocol -max_total_time=60
 * Checks, besides "no crash": a decode never claims more bytes than it was
 * given, a refusal always says why, and a decoded frame re-encodes to the
 * very same bytes (the codec is a bijection on valid frames) — except an old
 * KERNEL frame that ends before its appended fields (source, branch,
 * device_us, device_note), which re-encodes with their defaults ("", "", -1,
 * "") appended. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a = ARENA_INIT;
    strbuf err = STRBUF_INIT, re = STRBUF_INIT;
    size_t off = 0;
    while (off < size) {
        proto_msg m;
        strbuf_reset(&err);
        long r = proto_decode(data + off, size - off, &m, &a, &err);
        if (r == 0) break;
        if (r < 0) {
            if (err.len == 0) abort();
            break;
        }
        if ((size_t)r > size - off) abort();
        strbuf_reset(&re);
        /* NaN payloads and the INPUT spec.file alias survive; byte equality must hold */
        if (proto_encode(&re, &m, &err) != 0)
            abort();
        /* a KERNEL frame from before its appended fields (source, branch,
         * device_us, device_note, then flags): it re-encodes 4, 8, 16, 20 or
         * 24 bytes longer with the defaults */
        size_t grown = re.len > (size_t)r ? re.len - (size_t)r : 0;
        int old_kernel = m.type == PROTO_KERNEL && !m.u.kernel.flags &&
                         (grown == 4 || (!*m.u.kernel.device_note &&
                                         (grown == 8 || (m.u.kernel.device_us == -1 &&
                                                         (grown == 16 || (grown == 20 && !*m.u.kernel.branch) ||
                                                          (grown == 24 && !*m.u.kernel.branch &&
                                                           !*m.u.kernel.source))))));
        /* a LAUNCHES frame from before its branch rows: 4 bytes longer, the count 0 */
        int old_launches = m.type == PROTO_LAUNCHES && grown == 4 && m.u.launches.nbranches == 0;
        /* a LOAD frame from before output_values: 8 bytes longer, the u64 0 */
        int old_load = m.type == PROTO_LOAD && grown == 8 && m.u.load.output_values == 0;
        /* a HELLO frame from before gpu_peak_gbps: 8 bytes longer, the f64 -1 */
        int old_hello = m.type == PROTO_HELLO && grown == 8 && m.u.hello.gpu_peak_gbps == -1;
        /* an INPUT frame from before file_format, key, low, high (16) and file_shown */
        static const unsigned char input_tail[25] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16};
        int old_input = m.type == PROTO_INPUT && (grown == 25 || grown == 24 || grown == 20 || grown == 12 ||
                                                  grown == 4);
        if (old_input) {
            if (memcmp(re.buf + 4, data + off + 4, (size_t)r - 4) || memcmp(re.buf + r, input_tail + 25 - grown, grown))
                abort();
        } else if (old_launches) {
            static const unsigned char zero4[4];
            if (memcmp(re.buf + 4, data + off + 4, (size_t)r - 4) || memcmp(re.buf + r, zero4, 4))
                abort();
        } else if (old_load || old_hello) {
            static const unsigned char zero8[8];
            double minus1 = -1;
            if (memcmp(re.buf + 4, data + off + 4, (size_t)r - 4) ||
                memcmp(re.buf + r, old_hello ? (const void *)&minus1 : zero8, 8))
                abort();
        } else if (old_kernel) {
            /* same bytes but the length field, then the last `grown` bytes of the defaults:
             * source "", branch "", device_us -1, device_note "", flags 0 */
            double minus1 = -1;
            unsigned char tail[24] = {0};
            memcpy(tail + 8, &minus1, 8);   /* put_f64: the double's bytes, little-endian host */
            if (memcmp(re.buf + 4, data + off + 4, (size_t)r - 4) || memcmp(re.buf + r, tail + 24 - grown, grown))
                abort();
        } else if (re.len != (size_t)r || memcmp(re.buf, data + off, re.len)) {
            abort();
        }
        off += (size_t)r;
    }
    arena_release(&a);
    strbuf_release(&err);
    strbuf_release(&re);
    return 0;
}
