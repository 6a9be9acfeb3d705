/* route_nan.c — nan-inf route fields from the session (see route_nan.h). */
#include "route_nan.h"
#include <string.h>
#include "nan_element.h"
#include "route_provenance.h"
#include "stack_trace.h"

static void add(void *ctx, const char *k, const char *v) { route_result_set_field(ctx, k, v); }

/* A fused kernel computes several lines: the one with the op that can make
 * NaN/Inf leads (source_line, source_code), the others go to also_at. */
static void lead_with_op_line(route_result *r, const session *s, int64_t kernel_index)
{
    const event *e = session_kernel_event(s, kernel_index);
    const kernel_call *c = e ? session_kernel_call(s, &e->u.kernel) : NULL;
    st_frame op, f[16];
    if (!c || !nan_element_op_site(c, e->u.kernel.name, &op))
        return;
    size_t n = kernel_call_sites(c, f, 16);
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%.*s:%lld", op.file_len, op.file, (long long)op.line);
    route_result_set_field(r, "source_line", sb.buf);
    strbuf_reset(&sb);
    strbuf_add(&sb, op.code, (size_t)op.code_len);
    route_result_set_field(r, "source_code", sb.buf);
    strbuf_reset(&sb);
    for (size_t i = 0; i < n; i++)
        if (f[i].line != op.line || f[i].file_len != op.file_len || memcmp(f[i].file, op.file, (size_t)op.file_len))
            strbuf_addf(&sb, "%s%.*s:%lld", sb.len ? ", " : "", f[i].file_len, f[i].file, (long long)f[i].line);
    if (sb.len)
        route_result_set_field(r, "also_at", sb.buf);
    strbuf_release(&sb);
}

void route_add_nan(route_result *r, const session *s)
{
    if (!s || !r->route || strcmp(r->route, "nan-inf"))
        return;
    nan_event made;
    arena ar = ARENA_INIT;
    const nan_event *ev = nan_event_of(s, &ar, &made);
    if (!ev) {
        arena_release(&ar);
        return;
    }
    /* the kernel that wrote it is the one to read, whatever kernel an error text named */
    nan_event_fields(s, ev, add, r);
    route_add_provenance(r, s, ev->kernel_index);
    lead_with_op_line(r, s, ev->kernel_index);
    arena_release(&ar);
}
