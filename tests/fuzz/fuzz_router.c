/* fuzz_router.c — libFuzzer target for the error router, which reads untrusted
 * logs (core/router/router.c), rules (core/router/router_rules.c) and generated sources
 * (core/router/triton_trace.c).
 *
 * Input modes, by prefix:
 *   "RULES\n" + YAML   parse as a rules file: either rules, or a refusal that
 *                      starts "fuzz.yaml:LINE:COL: "
 *   "TRACE\n" + "tmpN BOUND\n" + text   resolve the condition in text as a wrapper.cpp
 *   "NB\n" + text       parse as the learned fallback's weights (router_nb.h): either
 *                      weights (then text is classified with them: a known class,
 *                      a confidence in [0, 1]), or a refusal that starts "fuzz_nb.txt:"
 *   anything else      a log, routed with the shipped rules (core/router/routes.yaml)
 *                      and the shipped weights (core/router/router_nb.txt);
 *                      then again with its first line as a session fact and a
 *                      platform named by its first byte, and reworded for another
 * Checks besides "no crash, no leak, no UB": the route is one of the fixed ids;
 * routing the log in two chunks split anywhere gives the same result as one
 * buffer (long lines are windows: chunking must not matter); a fact never
 * counts as an input line; the YAML and text output are valid UTF-8.
 *
 * Build (from the repository root):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/model -Icore/proto -Icore/package -Icore/inputs -Icore/check -Icore/router -Icore/session \
 *     -DAOTIDBG_SOURCE_DIR='"'$PWD'"' tests/fuzz/fuzz_router.c core/router/router.c core/router/router_rules.c core/router/router_nb.c core/router/log_parts.c \
 *     core/router/router_format.c core/router/triton_trace.c core/package/package.c core/util/paths.c core/util/arena.c core/util/strbuf.c \
 *     $(pkg-config --cflags --libs yaml-0.1 libzip libcjson) -ldl -o fuzz_router
 * Run:
 *   mkdir -p /tmp/fuzz-router && ./fuzz_router -max_len=20000 -max_total_time=300 \
 *     /tmp/fuzz-router tests/fuzz/corpus/router
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "router.h"
#include "router_nb.h"
#include "router_rules.h"
#include "triton_trace.h"

#ifndef AOTIDBG_SOURCE_DIR
#define AOTIDBG_SOURCE_DIR "."
#endif

static router_rules *shipped;

static const char *const ids[] = {ROUTE_IDS(ROUTE_NAME_ELEM)};

static int valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
        i += len;
    }
    return 1;
}

static void check_result(const route_result *r)
{
    int ok = 0;
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        ok |= !strcmp(ids[i], r->route);
    if (!ok)
        abort();
    strbuf out = STRBUF_INIT;
    route_result_format_yaml(r, &out);
    route_result_format_text(r, &out);
    if (!valid_utf8((const unsigned char *)out.buf, out.len) || strncmp(out.buf, "route: ", 7))
        abort();
    strbuf_release(&out);
}

static void fuzz_log(const uint8_t *data, size_t size)
{
    route_result whole = {0}, split = {0};
    router_route_buffer(shipped, data, size, &whole);
    check_result(&whole);
    size_t cut = size ? data[0] % (size + 1) : 0;
    router_stream *s = router_stream_new(shipped);
    router_stream_feed(s, data, cut);
    router_stream_feed(s, data + cut, size - cut);
    router_stream_finish(s, &split);
    if (strcmp(whole.route, split.route) || whole.score != split.score || whole.lines != split.lines ||
        whole.nfields != split.nfields)
        abort();
    route_result_release(&split);

    /* the first line (up to 300 bytes) as a fact, the rest as input, a platform from byte 0 */
    static const char *const plats[] = {"cuda", "rocm", "xpu", "mps", "cpu", "tpu"};
    const uint8_t *nl = memchr(data, '\n', size);
    size_t fl = nl ? (size_t)(nl - data) : size;
    char fact[301];
    if (fl > 300)
        fl = 300;
    memcpy(fact, data, fl);
    fact[fl] = 0;
    router_stream *f = router_stream_new(shipped);
    router_stream_fact(f, "fuzz: fact", fact);
    router_stream_set_platform(f, size ? plats[data[0] % 6] : NULL, "fuzz");
    router_stream_feed(f, data, size);
    route_result withfact = {0};
    router_stream_finish(f, &withfact);
    check_result(&withfact);
    if (withfact.lines != whole.lines)
        abort();
    route_result_set_platform(&withfact, shipped, plats[size % 6], "fuzz: later");
    check_result(&withfact);
    route_result_release(&withfact);
    route_result_release(&whole);
}

static void fuzz_rules(const char *text, size_t len)
{
    router_rules *r = NULL;
    strbuf err = STRBUF_INIT;
    if (router_rules_parse(&r, text, len, "fuzz.yaml", &err)) {
        if (strncmp(err.buf, "fuzz.yaml:", 10) || r)
            abort();
    } else {
        route_result res = {0};
        router_route_buffer(r, text, len, &res);   /* route the rules text with themselves */
        check_result(&res);
        route_result_release(&res);
        router_rules_free(r);
    }
    strbuf_release(&err);
}

static void fuzz_nb(const char *text, size_t len)
{
    router_nb *nb = NULL;
    strbuf err = STRBUF_INIT;
    if (router_nb_parse(&nb, text, len, "fuzz_nb.txt", &err)) {
        if (strncmp(err.buf, "fuzz_nb.txt", 11) || nb)
            abort();
    } else {
        router_nb_answer a;
        if (router_nb_classify(nb, text, len, &a) == 0 &&
            (!a.route || !(a.confidence >= 0 && a.confidence <= 1.0000001) || a.nnearest > NB_NEAREST))
            abort();
        router_nb_free(nb);
    }
    strbuf_release(&err);
}

static void fuzz_trace(const char *text, size_t len)
{
    const char *nl = memchr(text, '\n', len);
    if (!nl)
        return;
    char head[256];
    size_t hl = (size_t)(nl - text) < sizeof head - 1 ? (size_t)(nl - text) : sizeof head - 1;
    memcpy(head, text, hl);
    head[hl] = 0;
    char *sp = strchr(head, ' ');
    if (!sp)
        return;
    *sp = 0;
    /* the trace's own text need not be NUL-terminated: copy exactly len bytes */
    size_t wl = len - (size_t)(nl + 1 - text);
    char *w = malloc(wl ? wl : 1);
    memcpy(w, nl + 1, wl);
    arena a = ARENA_INIT;
    triton_trace t;
    strbuf err = STRBUF_INIT;
    triton_trace_resolve(w, wl, w, wl / 2, head, sp + 1, NULL, &a, &t, &err);
    arena_release(&a);
    strbuf_release(&err);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!shipped) {
        strbuf err = STRBUF_INIT;
        if (router_rules_load(&shipped, AOTIDBG_SOURCE_DIR "/core/router/routes.yaml", &err)) {
            fprintf(stderr, "fuzz_router: %s\n", err.buf);
            abort();
        }
        if (router_nb_load(&shipped->nb, AOTIDBG_SOURCE_DIR "/core/router/router_nb.txt", &err)) {
            fprintf(stderr, "fuzz_router: %s\n", err.buf);
            abort();
        }
        strbuf_release(&err);
    }
    if (size >= 6 && !memcmp(data, "RULES\n", 6))
        fuzz_rules((const char *)data + 6, size - 6);
    else if (size >= 3 && !memcmp(data, "NB\n", 3))
        fuzz_nb((const char *)data + 3, size - 3);
    else if (size >= 6 && !memcmp(data, "TRACE\n", 6))
        fuzz_trace((const char *)data + 6, size - 6);
    else
        fuzz_log(data, size);
    return 0;
}
