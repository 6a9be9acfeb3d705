/* route_provenance.c — provenance fields on a route result (see route_provenance.h). */
#include "route_provenance.h"
#include <string.h>
#include "stack_trace.h"

static const kernel_call *route_provenance_call(const route_result *r, const session *s, int64_t kernel_index)
{
    if (!s || !s->prov.ncalls)
        return NULL;
    const event *e = session_kernel_event(s, kernel_index);
    const kernel_call *c = e ? session_kernel_call(s, &e->u.kernel) : NULL;
    if (c)
        return c;
    const char *k = r ? route_result_field(r, "kernel") : NULL;
    if (!k && e)
        k = e->u.kernel.name;
    for (size_t i = 0; k && i < s->prov.ncalls; i++)
        if (s->prov.calls[i].kernel && !strcmp(s->prov.calls[i].kernel, k))
            return &s->prov.calls[i];
    return NULL;
}

static void set_list(route_result *r, const char *key, size_t n, const char *const *v)
{
    if (!n)
        return;
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&sb, i ? ", %s" : "%s", v[i]);
    route_result_set_field(r, key, sb.buf);
    strbuf_release(&sb);
}

void route_add_provenance(route_result *r, const session *s, int64_t kernel_index)
{
    const kernel_call *c = route_provenance_call(r, s, kernel_index);
    if (!c)
        return;
    st_frame f[16];
    size_t n = kernel_call_sites(c, f, 16);
    strbuf sb = STRBUF_INIT;
    if (n) {
        strbuf_addf(&sb, "%.*s:%lld", f[0].file_len, f[0].file, (long long)f[0].line);
        route_result_set_field(r, "source_line", sb.buf);
        if (f[0].code_len) {
            strbuf_reset(&sb);
            strbuf_add(&sb, f[0].code, (size_t)f[0].code_len);
            route_result_set_field(r, "source_code", sb.buf);
        }
        strbuf_reset(&sb);
        for (size_t i = 1; i < n; i++)
            strbuf_addf(&sb, "%s%.*s:%lld", i > 1 ? ", " : "", f[i].file_len, f[i].file, (long long)f[i].line);
        if (sb.len)
            route_result_set_field(r, "also_at", sb.buf);
    }
    strbuf_release(&sb);
    size_t nn;
    const char *which;
    const char *const *nodes = kernel_call_nodes(c, &nn, &which);
    set_list(r, "graph_nodes", nn, nodes);
    set_list(r, "aten_ops", c->naten, c->aten);
    if (c->handle)
        route_result_set_field(r, "kernel_call", c->handle);
}
