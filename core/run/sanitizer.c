/* sanitizer.c — compute-sanitizer around the runner, its reports into the session; see sanitizer.h. */
#include "sanitizer.h"
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "addr_map.h"
#include "sanitizer_report.h"
#include "stack_trace.h"

static int executable(const char *p) { return p && *p && access(p, X_OK) == 0; }

static int found(char *out, size_t n, const char *p)
{
    if (!executable(p) || strlen(p) >= n)
        return 0;
    snprintf(out, n, "%s", p);
    return 1;
}

int sanitizer_find(char *out, size_t n, strbuf *err)
{
    const char *env = getenv("AOTIDBG_COMPUTE_SANITIZER");
    if (env) {
        if (found(out, n, env))
            return 0;
        strbuf_addf(err, "--memcheck: AOTIDBG_COMPUTE_SANITIZER is %s, which is not an executable file; point it at "
                    "compute-sanitizer (it comes with the CUDA toolkit: cuda-sanitizer-13-0 or the toolkit's "
                    "installer) or unset it", env);
        return -1;
    }
    char buf[4096];
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/compute-sanitizer", (int)len, len ? path : ".");
        if (found(out, n, buf))
            return 0;
        path += len + (path[len] == ':');
    }
    const char *home = getenv("CUDA_HOME");
    if (home) {
        snprintf(buf, sizeof buf, "%s/bin/compute-sanitizer", home);
        if (found(out, n, buf))
            return 0;
    }
    static const char *const pats[] = {"/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda-*/bin/compute-sanitizer",
                                       "/usr/local/cuda-*/compute-sanitizer/compute-sanitizer"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        glob_t g;
        int hit = 0;
        if (glob(pats[i], 0, NULL, &g) == 0)
            for (size_t j = g.gl_pathc; j-- > 0 && !hit;)   /* the newest toolkit sorts last */
                hit = found(out, n, g.gl_pathv[j]);
        globfree(&g);
        if (hit)
            return 0;
    }
    strbuf_addf(err, "--memcheck needs NVIDIA compute-sanitizer, which is not on PATH, in $CUDA_HOME/bin (%s) or "
                "under /usr/local/cuda*/: install the CUDA toolkit's sanitizer (apt install cuda-sanitizer-13-0, or "
                "the toolkit's installer), or set AOTIDBG_COMPUTE_SANITIZER to it", home ? home : "unset");
    return -1;
}

void sanitizer_argv(const char *cs, const char *tool, const char *xml, const char *txt, const char **v)
{
    const char *a[] = {cs, "--tool", tool, "--xml", "--save", xml, "--log-file", txt, "--print-limit", "1000", NULL};
    memcpy(v, a, sizeof a);
}

/* ---- reports into events ---------------------------------------------------- */

/* The launch a report is in: the last kernel of that name, else the one that failed, else the last. */
static event *launch_of(const session *s, const char *func)
{
    for (size_t i = s->nkernels; func && i-- > 0;)
        if (!strcmp(s->kernels[i]->u.kernel.name, func))
            return s->kernels[i];
    for (size_t i = s->nkernels; i-- > 0;)
        if (s->kernels[i]->u.kernel.status == KSTAT_ERROR)
            return s->kernels[i];
    return s->nkernels ? s->kernels[s->nkernels - 1] : NULL;
}

/* "model.py:7: h = torch.log(h)" from the launch's provenance; NULL unknown. */
static const char *user_line(session *s, const kernel_event *k)
{
    const kernel_call *call = session_kernel_call(s, k);
    st_frame f;
    if (!call || kernel_call_sites(call, &f, 1) != 1)
        return NULL;
    return arena_printf(&s->arena, "%.*s:%lld%s%.*s", f.file_len, f.file, (long long)f.line, f.code_len ? ": " : "",
                        f.code_len, f.code);
}

#define MAX_TABLES 256   /* launches looked through for an address, newest first */

static void name_address(session *s, const event *ke, const san_record *r, memcheck_event *m, addr_hit *hp)
{
    addr_table t[MAX_TABLES];
    size_t n = 0, p = s->nkernels;
    int64_t at = ke ? ke->u.kernel.index : -1;
    while (ke && p-- > 0 && s->kernels[p] != ke)
        ;
    for (size_t i = p + 1; ke && i-- > 0 && n < MAX_TABLES;) {   /* the launch first, then the ones before it */
        const kernel_event *k = &s->kernels[i]->u.kernel;
        t[n++] = (addr_table){k->index, k->tensors, k->ntensors};
    }
    addr_hit h;
    if (addr_map(t, n, r->address, r->size > 0 ? (uint32_t)r->size : 0, &h) == ADDR_NONE)
        return;
    *hp = h;
    static const char *const places[] = {[ADDR_INSIDE] = "inside", [ADDR_IN_ALLOC] = "in-alloc",
                                         [ADDR_PAST_END] = "past-end", [ADDR_BEFORE] = "before"};
    strbuf sb = STRBUF_INIT;
    addr_hit_text(&h, &sb);
    if (h.launch != at)
        strbuf_addf(&sb, " (a tensor of kernel %" PRId64 ")", h.launch);
    m->hit = arena_strdup(&s->arena, sb.buf);
    strbuf_reset(&sb);
    addr_hit_index_text(&h, &sb);
    m->element = arena_strdup(&s->arena, sb.buf);
    m->tensor = h.t->name;
    m->tensor_user = h.t->user_name;
    m->place = places[h.place];
    m->distance = h.place >= ADDR_PAST_END && h.distance <= INT64_MAX ? (int64_t)h.distance : -1;
    if (h.index_t)
        m->index = arena_printf(&s->arena, "%s%s%s%s[%" PRId64 "] = %" PRId64, h.index_t->name,
                                h.index_t->user_name ? " (" : "", h.index_t->user_name ? h.index_t->user_name : "",
                                h.index_t->user_name ? ")" : "", h.index_flat, h.index_value);
    strbuf_release(&sb);
}

static void fill_event(session *s, const char *tool, const san_record *r, memcheck_event *m, addr_hit *h)
{
    arena *a = &s->arena;
    const event *ke = launch_of(s, r->func);
    m->tool = tool;
    m->what = r->text ? arena_strdup(a, r->text) : "(no headline)";
    m->access = r->direction ? arena_strdup(a, r->direction) : NULL;
    m->size = r->size;
    m->kernel = r->func ? arena_strdup(a, r->func) : NULL;
    if (r->path) {
        const char *base = strrchr(r->path, '/');
        m->at = r->line > 0 ? arena_printf(a, "%s:%" PRId64, base ? base + 1 : r->path, r->line)
                            : arena_strdup(a, base ? base + 1 : r->path);
    }
    if (r->has_thread)
        m->thread = arena_printf(a, "(%" PRId64 ",%" PRId64 ",%" PRId64 ")", r->thread[0], r->thread[1], r->thread[2]);
    if (r->has_block)
        m->block = arena_printf(a, "(%" PRId64 ",%" PRId64 ",%" PRId64 ")", r->block[0], r->block[1], r->block[2]);
    m->nearest = r->nearest ? arena_strdup(a, r->nearest) : NULL;
    m->count = 1;
    if (ke) {
        m->kernel_index = ke->u.kernel.index;
        m->where = user_line(s, &ke->u.kernel);
    }
    if (r->has_address) {
        m->address = arena_printf(a, "0x%" PRIx64, r->address);
        if (r->space && (!strcmp(r->space, "__shared__") || !strcmp(r->space, "__local__")))   /* racecheck's hazards */
            m->hit = arena_printf(a, "a %s address: a block's or a thread's own scratch memory, where no tensor "
                                     "lives", r->space);
        else
            name_address(s, ke, r, m, h);
    }
}

/* The run's first error (the launch failure the tool's report explains) gains the first report's
 * names as route fields: memcheck_kernel, memcheck_tensor, memcheck_user (its user name),
 * memcheck_element, memcheck_index, memcheck_hit; and, when an index element led there, the
 * fields goto-element reads (index_tensor, index_at, index_value, index_user). */
static void add_route_fields(session *s, const memcheck_event *m, const addr_hit *h)
{
    error_event *e = NULL;
    for (size_t i = 0; i < s->nevents && !e; i++)
        if (s->events[i]->kind == EV_ERROR)
            e = &s->events[i]->u.error;
    if (!e)
        return;
    const char *at = NULL, *val = NULL;
    int64_t idx[TENSOR_MAX_DIMS];
    if (h->index_t && h->index_flat >= 0 && h->index_t->ndim > 0 && tensor_unflatten(h->index_t, h->index_flat, idx) == 0) {
        strbuf sb = STRBUF_INIT;
        strbuf_addch(&sb, '[');
        for (int d = 0; d < h->index_t->ndim; d++)
            strbuf_addf(&sb, "%s%" PRId64, d ? ", " : "", idx[d]);
        strbuf_addch(&sb, ']');
        at = arena_strdup(&s->arena, sb.buf);
        val = arena_printf(&s->arena, "%" PRId64, h->index_value);
        strbuf_release(&sb);
    }
    const char *kv[][2] = {{"memcheck_kernel", m->kernel}, {"memcheck_tensor", m->tensor}, {"memcheck_user", m->tensor_user},
                           {"memcheck_element", m->element}, {"memcheck_index", m->index}, {"memcheck_hit", m->hit},
                           {"index_tensor", at ? h->index_t->name : NULL}, {"index_at", at}, {"index_value", val},
                           {"index_user", at ? h->index_t->user_name : NULL}};
    size_t n = sizeof kv / sizeof kv[0];
    kv_pair *f = arena_alloc(&s->arena, (e->nfields + n) * sizeof *f);
    if (e->nfields)
        memcpy(f, e->fields, e->nfields * sizeof *f);
    for (size_t i = 0; i < n; i++)
        if (kv[i][1])
            f[e->nfields++] = (kv_pair){kv[i][0], kv[i][1]};
    e->fields = f;
}

static int same_site(const san_record *a, const san_record *b)
{
    return a->pc == b->pc && !strcmp(a->func ? a->func : "", b->func ? b->func : "") &&
           !strcmp(a->text ? a->text : "", b->text ? b->text : "");
}

int sanitizer_report_done(const char *txt)
{
    strbuf buf = STRBUF_INIT, err = STRBUF_INIT;
    int done = 0;
    if (strbuf_read_file(&buf, txt, SAN_MAX_INPUT, &err) == 0) {
        arena a = ARENA_INIT;
        san_report r = {0};
        san_parse_text(buf.buf, buf.len, &a, &r);
        done = r.summary != NULL;
        arena_release(&a);
    }
    strbuf_release(&buf);
    strbuf_release(&err);
    return done;
}

int sanitizer_to_session(session *s, const char *tool, const char *xml, const char *txt, strbuf *err)
{
    arena a = ARENA_INIT;
    strbuf buf = STRBUF_INIT, rerr = STRBUF_INIT;
    san_report x = {0}, t = {0};
    int have_x = strbuf_read_file(&buf, xml, SAN_MAX_INPUT, &rerr) == 0;
    if (have_x && san_parse_xml(buf.buf, buf.len, &a, &x, &rerr) < 0) {
        session_add_note(s, arena_printf(&s->arena, "compute-sanitizer's XML report %s is malformed (%s): read "
                                                    "from its text report instead", xml, rerr.buf));
        have_x = 0;
    }
    strbuf_reset(&buf);
    int have_t = strbuf_read_file(&buf, txt, SAN_MAX_INPUT, &rerr) == 0;
    if (have_t)
        san_parse_text(buf.buf, buf.len, &a, &t);
    int rc = 0;
    if (!have_x && !have_t) {
        strbuf_addf(err, "compute-sanitizer wrote no report (%s, %s): %s", xml, txt, rerr.buf);
        session_add_note(s, arena_printf(&s->arena, "--memcheck=%s: %s", tool, err->buf));
        rc = -1;
        goto out;
    }
    san_report *use = have_x ? &x : &t;
    if (have_x && have_t)
        san_merge(&x, &t);
    if (have_x && x.n == 0 && t.n > 0)
        use = &t;   /* the text has records the XML lacks */
    size_t first = s->nevents;
    const san_record *site[SAN_MAX_EVENTS];
    event *ev[SAN_MAX_EVENTS];
    addr_hit first_hit = {0};
    size_t nev = 0, folded = 0;
    for (size_t i = 0; i < use->n; i++) {
        size_t j = 0;
        while (j < nev && !same_site(site[j], &use->r[i]))
            j++;
        if (j < nev) {
            ev[j]->u.memcheck.count++;
            continue;
        }
        if (nev == SAN_MAX_EVENTS) {
            folded++;
            continue;
        }
        site[nev] = &use->r[i];
        ev[nev] = session_add_event(s, EV_MEMCHECK);
        ev[nev]->t_ms = -1;
        addr_hit h = {0};
        fill_event(s, tool, &use->r[i], &ev[nev]->u.memcheck, &h);
        if (!nev)
            first_hit = h;
        nev++;
    }
    rc = (int)(s->nevents - first);
    if (nev)
        add_route_fields(s, &ev[0]->u.memcheck, &first_hit);
    int64_t total = use->total >= 0 ? use->total : (int64_t)use->n;
    if (total == 0)
        session_add_note(s, arena_printf(&s->arena, "compute-sanitizer %s reported no error over the %zu kernel "
                                                    "launch%s of this run%s", tool, s->nkernels,
                                         s->nkernels == 1 ? "" : "es",
                                         !strcmp(tool, "memcheck") ? " (it sees accesses outside every allocation: "
                                         "an index past a weight inside the package's constants blob is not seen)"
                                                                   : ""));
    else
        session_add_note(s, arena_printf(&s->arena, "compute-sanitizer %s reported %" PRId64 " error%s, %zu "
                                                    "recorded as %d memcheck event%s%s%s", tool, total,
                                         total == 1 ? "" : "s", use->n, rc, rc == 1 ? "" : "s",
                                         folded ? " (more sites than events kept)" : "",
                                         use->summary ? "; " : ""));
    if (use->summary && total != 0)   /* the tool's own words, appended to the note above */
        s->notes[s->nnotes - 1] = arena_printf(&s->arena, "%s%s", s->notes[s->nnotes - 1], use->summary);
out:
    strbuf_release(&buf);
    strbuf_release(&rerr);
    arena_release(&a);
    return rc;
}
