/* route_event.c — see route_event.h. */
#include "route_event.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oob_element.h"
#include "package.h"
#include "provenance.h"
#include "route_nan.h"
#include "route_provenance.h"
#include "router_session.h"
#include "triton_trace.h"
#include "compat.h"

/* The error's text after the run's last ROUTE_LOG_LINES log lines: the router
 * collapses repeats and picks the root cause (a device assert line on stderr
 * beats the generic "device-side assert triggered" of the ERROR frame). */
static void route_text(const router_rules *rules, const session *s, const error_event *e, route_result *out)
{
    size_t first = 0, nlog = 0;
    for (size_t i = s->nevents; i-- > 0;)
        if (s->events[i]->kind == EV_LOG && ++nlog >= ROUTE_LOG_LINES) {
            first = i;
            break;
        }
    router_stream *st = router_stream_new(rules);
    for (size_t i = first; i < s->nevents; i++) {
        const event *l = s->events[i];
        if (l->kind == EV_LOG && l->u.log.text[0]) {
            router_stream_feed(st, l->u.log.text, strlen(l->u.log.text));
            router_stream_feed(st, "\n", 1);
        }
    }
    const char *text = e->text ? e->text : "";
    router_stream_feed(st, text, strlen(text));
    router_stream_feed(st, "\n", 1);
    router_stream_finish(st, out);
}

/* The platform a package was compiled for (AOTI_DEVICE_KEY); NULL when it
 * cannot be read. */
static const char *package_platform(const char *pkg)
{
    package_t *p = NULL;
    strbuf err = STRBUF_INIT;
    const char *plat = NULL;
    if (package_open(&p, pkg, &err) == 0) {
        package_model *m = package_find_model(p, NULL, &err);
        if (m)
            plat = router_platform_of_device(m->device_key);
    }
    package_close(p);
    strbuf_release(&err);
    return plat;
}

static void set_platform(const router_rules *rules, const session *s, const char *source, route_result *out)
{
    const char *dev = s->device ? s->device : s->package.device_key;
    const char *plat = router_platform_of_device(dev);
    char origin[64 + 1024];
    if (plat) {
        snprintf(origin, sizeof origin, "session: device %.64s", dev);
        route_result_set_platform(out, rules, plat, origin);
    } else if (!out->platform && source && (plat = package_platform(source))) {
        /* a log's own words say where it ran; else the compile device */
        snprintf(origin, sizeof origin, "package %.1024s: AOTI_DEVICE_KEY", source);
        route_result_set_platform(out, rules, plat, origin);
    }
    const char *k = route_result_field(out, "kernel");
    if (k && starts_with(k, "cpp_") && (!out->platform || strcmp(out->platform, "cpu")))
        route_result_set_platform(out, rules, "cpu", "the failing kernel is a generated C++ kernel");
}

/* With the inputs the session ran with: the shape of the input an error
 * names, and the runtime size of the dimension behind it (a traced ksM). */
static void add_runtime_size(const session *s, route_result *r)
{
    const char *ii = route_result_field(r, "input_index"), *dd = route_result_field(r, "dim");
    char *end;
    long i = ii ? strtol(ii, &end, 10) : -1;
    if (!ii || *end || end == ii || i < 0 || (size_t)i >= s->ninputs)
        return;
    const input_spec *in = &s->inputs[i];
    strbuf shape = STRBUF_INIT;
    strbuf_addch(&shape, '[');
    for (int k = 0; k < in->ndim; k++)
        strbuf_addf(&shape, "%s%" PRId64, k ? ", " : "", in->shape[k]);
    strbuf_addch(&shape, ']');
    route_result_set_field(r, "input_shape", shape.buf);
    strbuf_release(&shape);
    long d = dd ? strtol(dd, &end, 10) : -1;
    if (!dd || *end || end == dd || d < 0 || d >= in->ndim)
        return;
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, in->shape[d]);
    route_result_set_field(r, "dim_value", buf);
}

/* The failing kernel's source line and graph nodes: from the session's
 * calls, else from the package's. */
static void add_provenance(route_result *r, const session *s, const char *source, int64_t ki)
{
    if (s->prov.ncalls) {
        route_add_provenance(r, s, ki);
        return;
    }
    if (!source || (ki < 0 && !route_result_field(r, "kernel")))
        return;
    session *tmp = session_new();
    strbuf ignore = STRBUF_INIT;   /* a package without provenance just adds nothing */
    provenance_load_path(tmp, source, &ignore);
    const event *ke = ki >= 0 ? session_kernel_event(s, ki) : NULL;
    if (ke && !route_result_field(r, "kernel"))   /* the recorded kernel's name picks its call */
        route_result_set_field(r, "kernel", ke->u.kernel.name);
    route_add_provenance(r, tmp, -1);
    strbuf_release(&ignore);
    session_free(tmp);
}

const char *router_session_package(const session *s)
{
    FILE *probe = s->package.path ? fopen(s->package.path, "rb") : NULL;
    if (!probe)
        return NULL;
    fclose(probe);
    return s->package.path;
}

void router_route_event(const router_rules *rules, const session *s, const error_event *e, const char *source,
                        route_result *out)
{
    if (e)
        route_text(rules, s, e, out);
    else
        router_route_session(rules, s, out);
    router_route_enrich(rules, s, e, source, out);
}

void router_route_enrich(const router_rules *rules, const session *s, const error_event *e, const char *source,
                         route_result *out)
{
    int64_t ki = e ? e->kernel_index : -1;
    for (size_t i = 0; i < s->nevents && ki < 0; i++)
        if (s->events[i]->kind == EV_ERROR)
            ki = s->events[i]->u.error.kernel_index;
    if (!source)
        source = router_session_package(s);
    strbuf err = STRBUF_INIT;
    if (source && triton_trace_apply_package(out, source, &err) < 0)
        route_result_set_field(out, "package_error", err.buf);
    set_platform(rules, s, source, out);
    route_result_refine_index_oob(out, rules);   /* the trace or the session shows a C++ kernel */
    add_runtime_size(s, out);
    if (source) {   /* the index's tensor, element and value from the recorded before-tensors */
        strbuf_reset(&err);
        oob_element_apply_package(out, source, s, ki, &err);
    }
    add_provenance(out, s, source, ki);
    route_add_nan(out, s);   /* nan-inf: down to the element, with that kernel's source line */
    if (e)
        router_keep_recorded_fields(out, e);
    strbuf_release(&err);
}

int route_element_line(route_field_fn get, const void *ctx, strbuf *sb)
{
    const char *hit = get(ctx, "memcheck_hit");   /* --memcheck: the address in the model's terms */
    if (hit) {
        strbuf_addf(sb, "compute-sanitizer: %s", hit);
        return 1;
    }
    const char *at = get(ctx, "index_at");
    if (at) {
        const char *t = get(ctx, "index_tensor"), *u = get(ctx, "index_user");
        const char *v = get(ctx, "index_value"), *range = get(ctx, "valid_range"), *of = get(ctx, "bound_of");
        strbuf_addstr(sb, "index ");
        if (u)
            strbuf_addf(sb, "%s (%s)", u, t ? t : "?");
        else
            strbuf_addstr(sb, t ? t : "?");
        strbuf_addf(sb, "%s = %s", at, v ? v : "?");
        if (range)
            strbuf_addf(sb, ", outside %s", range);
        if (of)
            strbuf_addf(sb, "; the bound is %s", of);
        return 1;
    }
    at = get(ctx, "bad_at");
    if (!at)
        return 0;
    const char *t = get(ctx, "bad_tensor"), *v = get(ctx, "bad_value");
    const char *from = get(ctx, "nan_from"), *ops = get(ctx, "suspect_ops");
    strbuf_addf(sb, "first bad %s%s = %s", t ? t : "?", at, v ? v : "?");
    if (from && !strncmp(from, "input ", 6))
        strbuf_addf(sb, "; %s", from);
    else if (ops)
        strbuf_addf(sb, "; %s", ops);
    return 1;
}
