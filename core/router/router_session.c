/* router_session.c — see router_session.h. The facts are plain lines with a
 * fixed prefix (`aotidbg checklist: `, `aotidbg kernel: `, `aotidbg runner: `)
 * so that routes.yaml, not this file, says what each one points to. */
#include "router_session.h"
#include <stdio.h>
#include "route_nan.h"
#include <string.h>
#include "strbuf.h"

const char *router_platform_of_device(const char *device)
{
    static const struct { const char *prefix, *platform; } map[] = {
        {"cuda", "cuda"}, {"cpu", "cpu"}, {"xpu", "xpu"}, {"mps", "mps"}, {"hip", "rocm"}, {"rocm", "rocm"},
    };
    for (size_t i = 0; device && i < sizeof map / sizeof *map; i++) {
        size_t n = strlen(map[i].prefix);
        if (!strncmp(device, map[i].prefix, n) && (device[n] == 0 || device[n] == ':'))
            return map[i].platform;
    }
    return NULL;
}

static void feed_text(router_stream *st, const char *t)
{
    if (t && *t) {
        router_stream_feed(st, t, strlen(t));
        if (t[strlen(t) - 1] != '\n')
            router_stream_feed(st, "\n", 1);
    }
}

static const char *flag_of(const session *s, const char *key)
{
    for (size_t i = 0; i < s->nflags; i++)
        if (s->flags[i].key && !strcmp(s->flags[i].key, key))
            return s->flags[i].value;
    return NULL;
}

static int is_one(const char *v) { return v && !strcmp(v, "1"); }

/* The run already blocked on every launch: advice to rerun blocking does not
 * fit it. Steps are routes.yaml's prose; the blocking ones name the variable. */
static void drop_rerun_blocking(route_result *out)
{
    size_t n = 0, dropped = 0;
    for (size_t i = 0; i < out->nsteps; i++) {
        if (strstr(out->steps[i], "_LAUNCH_BLOCKING=1"))
            dropped++;
        else
            out->steps[n++] = out->steps[i];
    }
    out->nsteps = n;
    if (dropped)   /* room: a step was dropped */
        out->steps[out->nsteps++] = arena_strdup(&out->arena,
            "This run already blocked on every launch, so the kernel named is the one that failed.");
    n = 0;
    for (size_t i = 0; i < out->nactions; i++)
        if (strcmp(out->actions[i].name, "rerun-blocking"))
            out->actions[n++] = out->actions[i];
    out->nactions = n;
}

/* Points each action at its field's value in out. */
static void refresh_actions(route_result *out)
{
    for (size_t i = 0; i < out->nactions; i++)
        if (out->actions[i].field)
            out->actions[i].value = route_result_field(out, out->actions[i].field);
}

/* What the run itself worked out for its error, with the package at hand (the
 * kernel's name, the index's tensor, element and value), stays true when the
 * package is gone: it wins over what the text alone gives. */
void router_keep_recorded_fields(route_result *out, const error_event *err)
{
    if (!err || !err->route || !out->route ||
        (strcmp(err->route, out->route) && !(route_is_index_oob(err->route) && route_is_index_oob(out->route))))
        return;   /* a session recorded before cpp-index-oob was added calls that check triton-index-oob */
    for (size_t i = 0; i < err->nfields; i++) {
        const kv_pair *f = &err->fields[i];
        if (f->key && f->value)
            route_result_set_field(out, f->key, f->value);
    }
    refresh_actions(out);
}

static void add_fact(router_stream *st, const char *origin, strbuf *line)
{
    router_stream_fact(st, origin, line->buf);
    strbuf_reset(line);
}

void router_route_session(const router_rules *rules, const session *s, route_result *out)
{
    router_stream *st = router_stream_new(rules);
    strbuf line = STRBUF_INIT, origin = STRBUF_INIT;
    const char *dev = s->device ? s->device : s->package.device_key;
    const char *plat = router_platform_of_device(dev);
    if (plat) {
        strbuf_addf(&origin, "session: device %s", dev);
        router_stream_set_platform(st, plat, origin.buf);
        strbuf_reset(&origin);
    }
    const event *failed = NULL, *nan = NULL, *last_error = NULL;
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        switch (e->kind) {
        case EV_ERROR:
            feed_text(st, e->u.error.text);
            last_error = e;
            break;
        case EV_LOG:
            feed_text(st, e->u.log.text);
            break;
        case EV_KERNEL:
            if (e->u.kernel.status == KSTAT_ERROR && !failed)
                failed = e;
            if (e->u.kernel.status == KSTAT_NAN && !nan)
                nan = e;
            break;
        case EV_RUNNER_EXIT:
            feed_text(st, e->u.exit.stderr_tail);
            if (e->u.exit.how && !strcmp(e->u.exit.how, "signal")) {
                /* a runner killed by a signal often prints nothing: the death itself is the evidence */
                strbuf_addf(&line, "aotidbg runner: killed by signal %d (%s)", e->u.exit.signal,
                            signal_name(e->u.exit.signal));
                add_fact(st, "session: runner exit", &line);
            } else if (e->u.exit.how && !strcmp(e->u.exit.how, "timeout")) {
                strbuf_addstr(&line, "aotidbg runner: timed out");
                add_fact(st, "session: runner exit", &line);
            }
            break;
        default:
            break;
        }
    }
    const event *ks[2] = {failed, nan};
    for (int k = 0; k < 2; k++) {
        if (!ks[k])
            continue;
        const kernel_event *ke = &ks[k]->u.kernel;
        strbuf_addf(&line, "aotidbg kernel: #%lld %s (%s) %s", (long long)ke->index, ke->name,
                    kernel_type_name(ke->type), k ? "wrote NaN/Inf" : "failed");
        strbuf_addf(&origin, "session: kernel #%lld", (long long)ke->index);
        add_fact(st, origin.buf, &line);
        strbuf_reset(&origin);
    }
    for (size_t i = 0; i < s->nchecks; i++) {
        const check_row *c = &s->checks[i];
        if (c->status != CHECK_FAIL)
            continue;
        strbuf_addf(&line, "aotidbg checklist: FAIL %s: %s", c->id, c->subject ? c->subject : "");
        if (c->expected || c->got)
            strbuf_addf(&line, "; expected %s, got %s", c->expected ? c->expected : "?", c->got ? c->got : "?");
        strbuf_addf(&origin, "session: checklist row %s", c->id);
        add_fact(st, origin.buf, &line);
        strbuf_reset(&origin);
    }
    router_stream_finish(st, out);
    router_keep_recorded_fields(out, last_error ? &last_error->u.error : NULL);
    if (is_one(flag_of(s, "blocking")) || is_one(flag_of(s, "CUDA_LAUNCH_BLOCKING")) ||
        is_one(flag_of(s, "HIP_LAUNCH_BLOCKING")))
        drop_rerun_blocking(out);
    if (failed && !route_result_field(out, "kernel")) {
        char idx[32];
        snprintf(idx, sizeof idx, "%lld", (long long)failed->u.kernel.index);
        route_result_set_field(out, "kernel", failed->u.kernel.name);
        route_result_set_field(out, "kernel_index", idx);
        refresh_actions(out);
    }
    route_add_nan(out, s);   /* a nan-inf route: the first bad element and what computed it */
    strbuf_release(&line);
    strbuf_release(&origin);
}
