/* fuzz_provenance.c — libFuzzer target for the provenance a package carries:
 * wrapper.cpp's comments and launches and kernel_information.json
 * (core/package/provenance.c), the stack traces' frames (core/model/stack_trace.c),
 * the kernel source finder (core/package/source_view.c), the session keys that
 * keep it and the kernel list's groups (tui/kernel_groups.c).
 *
 * Input: wrapper.cpp text, then optionally "\n@@JSON@@\n" and the JSON text.
 * Checks besides "no crash, no leak, no UB": every call has a kernel name and
 * at most PROV_MAX_LIST items per list; launches of every call's kernel match
 * a call of that name; a call's user lines come from its traces; the session
 * written with its calls reads back and, written again, is a fixed point; the groups'
 * display lines map back to the kernels they show.
 *
 * Build and run: tests/fuzz/run_all.sh (it builds every fuzz_*.c the same way).
 * The seeds in tests/fuzz/corpus/provenance replay in ctest (fuzz_seeds_provenance). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "kernel_groups.h"
#include "provenance.h"
#include "session_io.h"
#include "source_view.h"
#include "stack_trace.h"

#define SEP "\n@@JSON@@\n"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_provenance: %s\n", what);
        abort();
    }
}

static char *write_mem(const session *s, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    strbuf err = STRBUF_INIT;
    check(f && session_write(s, f, &err) == 0, "session_write failed");
    fclose(f);
    strbuf_release(&err);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *sep = memmem(text, size, SEP, strlen(SEP));
    size_t wlen = sep ? (size_t)(sep - text) : size;
    const char *json = sep ? sep + strlen(SEP) : NULL;
    size_t jlen = sep ? size - wlen - strlen(SEP) : 0;
    session *s = session_new();
    strbuf err = STRBUF_INIT;
    provenance_scan(s, text, wlen, json, jlen, "fuzz.json", &err);
    for (size_t i = 0; i < s->prov.ncalls; i++) {
        const kernel_call *c = &s->prov.calls[i];
        check(c->kernel != NULL, "a call without a kernel name");
        check(c->nnodes <= PROV_MAX_LIST && c->naten <= PROV_MAX_LIST && c->nstack <= PROV_MAX_LIST &&
              c->npre <= PROV_MAX_LIST && c->npost <= PROV_MAX_LIST, "a list over its cap");
        st_frame f[8];
        size_t n = kernel_call_sites(c, f, 8);
        check(n <= c->nstack && n <= 8, "more user lines than traces");
        for (size_t j = 0; j < n; j++)
            check(f[j].file && f[j].file_len >= 0 && f[j].line >= 0, "a frame out of shape");
        strbuf w = STRBUF_INIT;
        kernel_call_where(c, &w, 64);
        check(w.len <= 64, "where longer than asked");
        strbuf_release(&w);
        char layer[64];
        check(kernel_call_layer(c, layer, sizeof layer) < sizeof layer, "layer key over its buffer");
        source_spot sp;
        if (kernel_source_find(text, wlen, NULL, 0, c->kernel, c->line, "index out of bounds", 0, &sp) == 0)
            check(sp.line >= 1, "a source spot before line 1");
        /* a launch of this call's kernel matches a call of that name */
        event *e = session_add_event(s, EV_KERNEL);
        e->u.kernel.name = c->kernel;
        e->u.kernel.call = session_match_call(s, (int64_t)s->nkernels - 1, c->kernel);
        check(e->u.kernel.call >= 0 && !strcmp(s->prov.calls[e->u.kernel.call].kernel, c->kernel),
              "a launch matched no call of its name");
    }
    size_t len, len2;
    s->end_state = "complete";
    char *yaml = write_mem(s, &len);
    session *r = NULL;
    strbuf_reset(&err);
    check(session_load_mem("fuzz.yaml", yaml, len, &r, &err) == 0, "the session written does not read back");
    check(r->prov.ncalls == s->prov.ncalls, "calls lost on the way back");
    /* invalid UTF-8 is written as escapes of U+FFFD, which read back as the character: from the
     * second writing on, the file is a fixed point */
    char *again = write_mem(r, &len2);
    session *r2 = NULL;
    check(session_load_mem("fuzz2.yaml", again, len2, &r2, &err) == 0, "the session rewritten does not read back");
    size_t len3;
    char *third = write_mem(r2, &len3);
    check(len2 == len3 && !memcmp(again, third, len2), "written a third time, the session differs");
    free(third);
    session_free(r2);
    kgroups *g = kgroups_new();
    for (int m = KG_LAYER; m <= KG_LINE; m++) {
        kgroups_sync(g, r, (kg_mode)m);
        if (kgroups_count(g))
            kgroups_fold(g, kgroups_count(g) / 2, 1);
        int64_t lines = kgroups_lines(g);
        for (int64_t l = 0; l < lines && l < 256; l++) {
            size_t gi;
            int64_t k;
            kgroups_item(g, l, &gi, &k);
            check(k < 0 || kgroups_line_of(g, k) == l, "a display line and its kernel disagree");
        }
    }
    kgroups_free(g);
    free(again);
    free(yaml);
    session_free(r);
    session_free(s);
    strbuf_release(&err);
    return 0;
}
