/* fuzz_session.c — libFuzzer target for the session reader (session_read.c),
 * which takes untrusted files. Build and run: see tests/fuzz/README.md.
 * Checks, besides "no crash, no leak, no UB": a refusal always carries
 * "fuzz.yaml:LINE:COL: found ..., expected ..."; a file that loads writes
 * back (session_write) to YAML that loads again to the same model, compared
 * through session_dump. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "session_io.h"

static char *dump_of(session *s, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    /* what the writer normalises: format version, cut-off marker, end_state default */
    s->format_minor = SESSION_FORMAT_MINOR;
    s->truncated = 0;
    if (!s->end_state)
        s->end_state = "complete";
    session_dump(s, f);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    if (session_load_mem("fuzz.yaml", (const char *)data, size, &s, &err)) {
        if (strncmp(err.buf, "fuzz.yaml:", 10) || !strstr(err.buf, ": found ") || !strstr(err.buf, ", expected "))
            abort();
        strbuf_release(&err);
        return 0;
    }
    char *yaml = NULL;
    size_t ylen = 0;
    FILE *f = open_memstream(&yaml, &ylen);
    if (!f || session_write(s, f, &err))
        abort();
    fclose(f);
    session *s2 = NULL;
    if (session_load_mem("rewritten.yaml", yaml, ylen, &s2, &err)) {
        fprintf(stderr, "rewritten session does not load: %s\n%s\n", err.buf, yaml);
        abort();
    }
    size_t l1, l2;
    char *d1 = dump_of(s, &l1), *d2 = dump_of(s2, &l2);
    if (l1 != l2 || memcmp(d1, d2, l1)) {
        fprintf(stderr, "round trip differs:\n--- first\n%s\n--- second\n%s\n", d1, d2);
        abort();
    }
    free(d1);
    free(d2);
    free(yaml);
    session_free(s);
    session_free(s2);
    strbuf_release(&err);
    return 0;
}
