/* run_service.c — one run for every front end; see run_service.h. */
#include "run_service.h"
#include "index_bounds.h"
#include "random_inputs.h"
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "compat.h"
#include "checklist.h"
#include "eager_ref.h"
#include "inputs.h"
#include "package.h"
#include "provenance.h"
#include "reinstrument.h"
#include "route_load.h"
#include "sanitizer.h"
#include "remote_package.h"
#include "session_io.h"
#include "weights.h"
#include "wrapper_scan.h"

struct run_service {
    run_options o;             /* strings point into the caller's argv, or into s's arena */
    unsigned front;            /* RUN_OPT_RUN or RUN_OPT_LIVE */
    session *s;
    run_say say;
    package_t *pkg;
    remote *remote;            /* --remote: the connection, for the whole service (restarts reuse it) */
    host_facts hf;             /* --remote: the box the runner is on */
    char *rebuilt_so;          /* the re-instrumented copy; NULL when the shipped .so runs */
    launch_branch *branches;   /* kernel -> branch, for interposed launches (malloc'd; names in s's arena) */
    size_t nbranches, abranches;
    runner_options ro;         /* what the runner was started with */
    runner_client *rc;
    session_writer *w;
    char *record;              /* malloc'd */
    strbuf gate;               /* the FAIL rows, when gated */
    int gated, left_at_stop, write_failed;
    int last_state;
    int64_t last_kernel;
    char unmatched[160];
    const char *sources_at;    /* --remote: the copy here of the package's wrapper.cpp (and beside it) */
    eager_ref *eager;          /* --eager: the reference (the runner is held until it is ready) */
    int eager_done;            /* handed to the runner, or failed */
    int eager_code;            /* it failed: 2 bad program or inputs, 1 the program failed to run */
    strbuf eager_err;          /* why */
    package_model *m;          /* the model run */
    int extracting;            /* its extraction runs on a thread; the runner waits for LOAD */
    int extract_failed;        /* so the run failed before the model was loaded */
    uint64_t shown_pct;        /* the extraction's progress last reported as a change */
    char end_text[64];
    /* --memcheck: the command the runner runs under, and the tool's two report files */
    const char *san_argv[SAN_ARGV_MAX];
    char san_path[4096];
    char *san_xml, *san_txt;   /* malloc'd */
    char *random_spec;         /* --inputs random: the spec written (rs->o.inputs then); malloc'd */
    char *default_record;      /* the record path chosen early (--inputs random writes beside it); malloc'd */
    int san_read;              /* this run's reports are in the session */
    tensor_user_name *unames;  /* the runner's tensor names -> the user's (run_record.h); malloc'd */
    size_t nunames;
    char interrupted[48];      /* "interrupted (SIGHUP)": a signal ended the run (run_service_interrupt) */
};

static void say(const run_service *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const run_service *rs, const char *fmt, ...)
{
    if (!rs->say.say)
        return;
    strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    rs->say.say(rs->say.ctx, sb.buf);
    strbuf_release(&sb);
}

/* ---- the package ------------------------------------------------------------ */

/* A session file given where a package was expected (`aotidbg S.yaml`):
 * its name says so, or it starts as sessions do. */
static int is_session_file(const char *path)
{
    if (ends_with(path, ".yaml") || ends_with(path, ".yml"))
        return 1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char head[64] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = 0;
    return starts_with(head, "format_version:");
}

/* Scans the model's wrapper.cpp (when the package has one) for the printer
 * level and the inputs as compiled. 0 with ws filled, -1 when there is none
 * or it can't be read (the run goes on without it). */
static int scan_wrapper(package_t *pkg, package_model *m, wrapper_scan *ws, strbuf *text)
{
    strbuf err = STRBUF_INIT;
    int rc = -1;
    memset(ws, 0, sizeof *ws);
    if (m->wrapper_cpp_path && strbuf_read_file(text, m->wrapper_cpp_path, WS_MAX_BYTES, &err) == 0)
        rc = 0;
    else if (m->wrapper_cpp_entry && !pkg->is_bare_so &&
             package_read_entry(pkg, m->wrapper_cpp_entry, WS_MAX_BYTES, text, &err) == 0)
        rc = 0;
    if (rc == 0 && wrapper_scan_text(ws, text->buf, text->len, &err) < 0) {
        wrapper_scan_free(ws);
        memset(ws, 0, sizeof *ws);
        rc = -1;
    }
    strbuf_release(&err);
    return rc;
}

/* Where each kernel comes from (provenance.h): wrapper.cpp's launches (ws,
 * already scanned; may be NULL) joined to kernel_information.json. A package
 * that says little or says it wrong only gets a word, never a failed run. */
static void load_provenance(run_service *rs, const package_model *m, const wrapper_scan *ws)
{
    strbuf json = STRBUF_INIT, err = STRBUF_INIT;
    int have = m->kernel_info_entry &&
               package_read_entry(rs->pkg, m->kernel_info_entry, PROV_MAX_JSON_BYTES, &json, &err) == 0;
    if (provenance_from_scan(rs->s, ws, have ? json.buf : NULL, json.len, m->kernel_info_entry, &err) < 0 || err.len)
        say(rs, "provenance: %s", err.buf);
    strbuf_release(&json);
    strbuf_release(&err);
}

/* "this model takes N inputs" plus a spec to start from, from wrapper.cpp. */
static void suggest_spec(const wrapper_scan *ws, strbuf *err)
{
    strbuf_addf(err, "this model takes %zu input%s; give --inputs SPEC, for example:\ninputs:\n", ws->ninputs,
                ws->ninputs == 1 ? "" : "s");
    for (size_t i = 0; i < ws->ninputs; i++) {
        const ws_input *in = &ws->inputs[i];
        strbuf_addstr(err, "  - {");
        if (in->user_name && !starts_with(in->user_name, "args["))   /* a keyword: the spec may say it */
            strbuf_addf(err, strspn(in->user_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
                        == strlen(in->user_name) ? "name: %s, " : "name: \"%s\", ", in->user_name);
        strbuf_addstr(err, "shape: [");
        for (int d = 0; d < in->ndim; d++) {
            int64_t v = in->dims[d];
            if (v == WS_UNKNOWN)   /* dynamic: the smallest size the model accepts, at least 2 */
                v = in->dim_min[d] != WS_UNKNOWN && in->dim_min[d] > 2 ? in->dim_min[d] : 2;
            strbuf_addf(err, "%s%" PRId64, d ? ", " : "", v);
        }
        strbuf_addf(err, "], dtype: %s, device: %s, fill: %s}", in->dtype ? in->dtype : "float32",
                    in->device ? in->device : "cpu",
                    in->dtype && (strstr(in->dtype, "int") || !strcmp(in->dtype, "bool")) ? "zeros" : "randn");
        if (in->user_name)   /* the user's name (pytree.h) first: it is what they wrote */
            strbuf_addf(err, "   # %s (%s)", in->user_name, in->name ? in->name : "input");
        else
            strbuf_addf(err, "   # %s", in->name ? in->name : "input");
        strbuf_addf(err, "%s%s", in->ndim < 0 ? " (rank unknown: fill in the shape)" : "", i + 1 < ws->ninputs ? "\n" : "");
    }
}

/* ---- mode: how kernel boundaries are seen ---------------------------- */

typedef struct {
    const run_service *rs;
    const char *last;
} progress_ctx;

static void reinstrument_progress(const char *stage, double fraction, void *ctx)
{
    progress_ctx *p = ctx;
    if (p->last && !strcmp(p->last, stage))
        return;    /* one line per stage */
    p->last = stage;
    say(p->rs, "re-instrumenting: %s (%.0f%%)", stage, fraction * 100.0);
}

/* Appends one INFO row to s->checks (arena arrays have no spare room: copy). */
static void add_check_row(session *s, const char *id, const char *subject, const char *got, const char *source,
                          const char *fix)
{
    check_row *rows = arena_alloc(&s->arena, (s->nchecks + 1) * sizeof *rows);
    if (s->nchecks)
        memcpy(rows, s->checks, s->nchecks * sizeof *rows);
    check_row *r = &rows[s->nchecks];
    memset(r, 0, sizeof *r);
    r->id = arena_strdup(&s->arena, id);
    r->status = CHECK_INFO;
    r->subject = arena_strdup(&s->arena, subject);
    r->got = got ? arena_strdup(&s->arena, got) : NULL;
    r->source = source ? arena_strdup(&s->arena, source) : NULL;
    r->fix = fix ? arena_strdup(&s->arena, fix) : NULL;
    s->checks = rows;
    s->nchecks++;
}

/* The run.mode row: what the chosen mode can and cannot see. */
static void add_mode_row(session *s, const char *why)
{
    const char *m = s->mode, *subject, *fix = NULL;
    if (!strcmp(m, "printer"))
        subject = "run mode: the printer compiled into the package reports every kernel it instruments (Triton, "
                  "C++ and extern ops) with its tensors before and after; it cannot see custom ops through the "
                  "proxy executor, scatter/index_put fallbacks or device copies";
    else if (!strcmp(m, "reinstrument"))
        subject = "run mode: a private copy of the model .so, rebuilt from the package's own sources with a hook "
                  "around every kernel launch, reports each kernel with its tensors before and after; what runs is "
                  "that copy (this machine's compiler and torch), not the shipped .so";
    else if (!strcmp(m, "interpose"))
        subject = "run mode: launch interposition (cuLaunchKernel) names every Triton kernel in launch order and, "
                  "in blocking mode, the one that fails; it sees no tensor values and no C++ or extern ops";
    else
        subject = "run mode: no kernel boundaries are seen (wrapper.cpp has no printer calls and was not "
                  "re-instrumented); only the outputs and errors are recorded";
    if (!strcmp(m, "interpose"))
        fix = "aotidbg run --reinstrument rebuilds a copy with tensor hooks, for the values";
    else if (!strcmp(m, "none"))
        fix = "drop --no-reinstrument, or rebuild with inductor_configs={\"aot_inductor.debug_intermediate_value_"
              "printer\": \"1\"}";
    add_check_row(s, "run.mode", subject, m, why, fix);
}

/* Waits for the extraction thread (when there is one); -1 with err when it failed. */
static int extracted(run_service *rs, strbuf *err)
{
    if (!rs->extracting)
        return 0;
    rs->extracting = 0;
    return package_extract_finish(rs->pkg, err);
}

/* Builds the re-instrumented copy into rs->rebuilt_so; 0, or -1 said and noted. */
static int rebuild(run_service *rs, package_model *m, strbuf *why)
{
    session *s = rs->s;
    strbuf err = STRBUF_INIT;
    progress_ctx pc = {rs, NULL};
    char *so = NULL;
    const char *sha = NULL;
    if (extracted(rs, &err) == 0)   /* the rebuild compiles the extracted sources */
        sha = package_sha256(rs->pkg, &err);   /* the rebuild cache's key */
    if (sha && reinstrument_build(m->model_dir, sha, reinstrument_progress, &pc, &so, &err) == 0) {
        rs->rebuilt_so = so;
        s->mode = "reinstrument";
        strbuf_addf(why, "; rebuilt copy %s", so);
        session_add_note(s, arena_printf(&s->arena, "re-instrumented copy of the model .so: %s", so));
        strbuf_release(&err);
        return 0;
    }
    say(rs, "re-instrumenting failed: %s", err.buf);
    session_add_note(s, arena_printf(&s->arena, "re-instrumenting failed: %s", err.buf));
    strbuf_addstr(why, "; re-instrumenting failed");
    strbuf_release(&err);
    return -1;
}

/* The launches a mode leaves unseen, in the session (the kernel list says them). */
static void set_hidden(session *s, const reinstrument_stats *st, int is_cuda, int reinstr)
{
    s->hidden_kernels = (int64_t)st->launches;
    strbuf parts = STRBUF_INIT;
    reinstrument_hidden_why(st, &parts);
    s->hidden_why = arena_printf(&s->arena,
                                 "%zu kernel launch(es) the printer does not reach (%s)%s", st->launches, parts.buf,
                                 reinstr == RUN_REINSTR_OFF ? ": --no-reinstrument kept them hidden"
                                 : is_cuda ? ": on CUDA launch interposition names the Triton ones, without tensors; "
                                             "--reinstrument rebuilds a copy that hooks them all"
                                           : ": re-instrumenting failed (see the notes)");
    strbuf_release(&parts);
}

static void add_launch(const char *kernel, size_t n, const char *branch, int hooked, void *ctx)
{
    int hidden = *branch && !hooked;   /* a subgraph launch the printer does not hook: counted hidden */
    run_service *rs = ctx;
    for (size_t i = 0; i < rs->nbranches; i++) {
        launch_branch *b = &rs->branches[i];
        if (strlen(b->kernel) == n && !memcmp(b->kernel, kernel, n)) {
            if (b->branch && strcmp(b->branch, branch))
                b->branch = NULL;   /* launched in two places: say none */
            b->sites += (size_t)hidden;
            return;
        }
    }
    ALLOC_GROW(rs->branches, rs->nbranches + 1, rs->abranches);
    rs->branches[rs->nbranches].kernel = arena_printf(&rs->s->arena, "%.*s", (int)n, kernel);
    rs->branches[rs->nbranches].sites = (size_t)hidden;
    rs->branches[rs->nbranches++].branch = arena_strdup(&rs->s->arena, branch);
}

/* The printer hooks every launch but saves no output handle an extern call
 * makes (a convolution's, an attention's): on CPU a rebuilt copy saves them
 * too; otherwise the session says which outputs are missing. 0 when rebuilt. */
static int outputs_rebuild(run_service *rs, package_model *m, const reinstrument_stats *st, int is_cuda, strbuf *why)
{
    session *s = rs->s;
    int reinstr = rs->o.reinstrument;
    strbuf_addf(why, "; the printer saves no output of %zu extern call(s)", st->outputs);
    if (reinstr == RUN_REINSTR_FORCE || (reinstr == RUN_REINSTR_AUTO && !is_cuda)) {
        say(rs, "%s: the printer does not save the outputs of %zu call(s) (convolution, attention, a buffer updated in "
            "place, ...); "
            "re-instrumenting a private copy that saves them (the package is not modified; later runs hit the "
            "cache)", rs->o.package, st->outputs);
        if (rebuild(rs, m, why) == 0)
            return 0;
    }
    session_add_note(s, arena_printf(&s->arena, "the outputs of %zu extern call(s) are not recorded: the printer "
                                     "does not save the handles they make%s", st->outputs,
                                     reinstr == RUN_REINSTR_OFF ? " (--no-reinstrument)" : ""));
    return -1;
}

/* The exit code of a run the checklist stopped: 2 (bad input) when every
 * FAIL row is about the inputs or a damaged package, else 1 (a check failed). */
static int gate_code(const session *s)
{
    for (size_t i = 0; i < s->nchecks; i++)
        if (s->checks[i].status == CHECK_FAIL && !starts_with(s->checks[i].id, "input.") &&
            strcmp(s->checks[i].id, "package.so-intact"))
            return 1;
    return 2;
}

/* Picks the mode from the compiled-in printer level and the device, and for
 * "reinstrument" builds (or finds in the cache) the rebuilt copy into
 * rs->rebuilt_so. A failed rebuild is said and falls back to what the
 * shipped .so can give. */
static void choose_mode(run_service *rs, package_model *m, const char *device, int have_ws, const strbuf *text,
                        strbuf *why)
{
    session *s = rs->s;
    const char *pkg_path = rs->o.package;
    int reinstr = rs->o.reinstrument;
    int is_cuda = starts_with(device, "cuda");
    int level = have_ws ? s->printer_level : -1;
    if (!have_ws) {
        s->mode = "printer";
        strbuf_addstr(why, "no wrapper.cpp: printer level unknown; kernels appear only if the .so was built "
                           "with the printer");
        return;
    }
    strbuf_addf(why, "wrapper.cpp: printer level %d", level);
    /* what a rebuilt copy would add: every launch without a printer, and with one
     * those it does not reach (subgraphs, proxy calls) */
    reinstrument_stats st = {0};
    strbuf e2 = STRBUF_INIT;
    /* the same pass notes where each kernel is launched: interposition, and the
     * printer's hooks inside subgraphs (torch 2.11 on CUDA), say no branch */
    reinstrument_opts ro = {.each_launch = add_launch, .ctx = rs};
    rs->nbranches = 0;
    int counted = text->len && reinstrument_source(text->buf, text->len, &ro, NULL, &st, &e2) == 0;
    strbuf_release(&e2);
    int any_branch = 0;
    for (size_t i = 0; counted && i < rs->nbranches; i++)
        any_branch |= !rs->branches[i].branch || *rs->branches[i].branch;
    if (!counted || !any_branch)
        rs->nbranches = 0;   /* no subgraph: nothing to name */
    if (counted && !st.launches && !st.printer) {
        s->mode = "printer";   /* nothing is launched: nothing to instrument or miss */
        strbuf_addstr(why, "; the model launches no kernel");
        return;
    }
    if (level == 1 || level == 2) {
        if (counted && !st.launches && st.outputs) {
            if (outputs_rebuild(rs, m, &st, is_cuda, why) == 0)
                return;
            s->mode = "printer";
            return;
        }
        if (!counted || !st.launches) {
            if (reinstr == RUN_REINSTR_FORCE)
                say(rs, "note: --reinstrument ignored: the printer in %s already hooks every kernel launch", pkg_path);
            s->mode = "printer";
            return;
        }
        strbuf parts = STRBUF_INIT;
        reinstrument_hidden_why(&st, &parts);
        strbuf_addf(why, "; %zu launch(es) it does not reach (%s)", st.launches, parts.buf);
        int rebuild_it = reinstr == RUN_REINSTR_FORCE || (reinstr == RUN_REINSTR_AUTO && !is_cuda);
        if (rebuild_it)
            say(rs, "%s: the printer does not reach %zu kernel launch(es) (%s); re-instrumenting a private copy "
                "that hooks them too (the package is not modified; later runs hit the cache)", pkg_path,
                st.launches, parts.buf);
        strbuf_release(&parts);
        if (rebuild_it) {
            if (rebuild(rs, m, why) == 0)
                return;
        }
        s->mode = "printer";
        set_hidden(s, &st, is_cuda, reinstr);
        say(rs, "note: %s", s->hidden_why);
        return;
    }
    if (reinstr == RUN_REINSTR_FORCE || (reinstr == RUN_REINSTR_AUTO && !is_cuda)) {
        say(rs, "%s: wrapper.cpp has no printer calls; re-instrumenting a private copy (the package is not "
            "modified; later runs hit the cache)", pkg_path);
        if (rebuild(rs, m, why) == 0)
            return;
    }
    if (is_cuda) {
        s->mode = "interpose";
        say(rs, "note: %s has no printer calls: kernels are seen by launch interposition (names, no tensor values); "
            "--reinstrument rebuilds a copy with tensor hooks", pkg_path);
    } else {
        s->mode = "none";
        say(rs, "note: %s has no printer calls and was not re-instrumented, so no kernels will be reported; "
            "rebuild with inductor_configs={\"aot_inductor.debug_intermediate_value_printer\": \"1\"}%s", pkg_path,
            reinstr == RUN_REINSTR_OFF ? " or drop --no-reinstrument" : "");
    }
}

/* ---- the eager reference (--eager) ------------------------------------------ */

/* Finds the reference in the cache beside the session, or starts computing
 * it; the runner is held after loading until it is there (pump_eager). */
static int start_eager(run_service *rs, const char *device, const strbuf *wtext, strbuf *err)
{
    session *s = rs->s;
    if (!strcmp(s->mode, "interpose") || !strcmp(s->mode, "none")) {
        strbuf_addf(err, "--eager compares kernel outputs, and this run sees none (mode %s): rebuild the package "
                    "with the printer (python3 core/prepare/aotidbg_prepare.py %s -o DEBUG.pt2)%s", s->mode,
                    rs->o.eager, !strcmp(s->mode, "interpose") ? " or add --reinstrument" : "");
        return -1;
    }
    char *root = xstrdup(rs->o.record ? rs->o.record : "./x");
    char *slash = strrchr(root, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(root, ".");
    eager_opts eo = {.program = rs->o.eager, .device = rs->o.eager_device, .float64 = rs->o.eager_float64,
                     .atol = rs->o.tol.atol, .rtol = rs->o.tol.rtol, .cache_root = *root ? root : "/",
                     .map = eager_map_from_name(rs->o.eager_map), .wrapper = wtext->len ? wtext->buf : NULL,
                     .wrapper_len = wtext->len};
    int rc = eager_ref_start(&rs->eager, &eo, s, device, err);
    free(root);
    if (rc < 0)
        return -1;
    int code = 0;
    strbuf e = STRBUF_INIT;
    int ready = eager_ref_poll(rs->eager, 0, &code, &e);
    strbuf_release(&e);
    if (ready == 1) {
        rs->eager_done = 1;
        eager_ref_to_session(rs->eager, s);
        say(rs, "%s, cached", eager_ref_summary(rs->eager));
    } else {
        strbuf by = STRBUF_INIT;
        eager_ref_computer(rs->eager, &by);
        say(rs, "computing the eager reference: %s on %s%s with %s (once; later runs read it from %s)",
            rs->o.eager, s->eager.device, rs->o.eager_float64 ? " in float64" : "", by.buf, s->eager.dir);
        strbuf_release(&by);
    }
    return 0;
}

/* While the reference is being computed: hands it to the held runner once
 * it is there; a failure is an error event and ends the runner. */
static int pump_eager(run_service *rs, strbuf *err)
{
    int code = 0;
    strbuf e = STRBUF_INIT;
    int r = eager_ref_poll(rs->eager, 0, &code, &e);
    if (r == 0) {
        strbuf_release(&e);
        return 0;
    }
    rs->eager_done = 1;
    if (r == 1) {
        size_t n;
        const proto_msg *msgs = eager_ref_messages(rs->eager, &n);
        eager_ref_to_session(rs->eager, rs->s);
        rs->ro.pre_run = msgs;
        rs->ro.npre_run = n;
        rs->ro.hold_run = 0;
        runner_client_release(rs->rc, msgs, n);
        say(rs, "%s", eager_ref_summary(rs->eager));
        strbuf_release(&e);
        return RUN_CHANGED_STATE;
    }
    rs->eager_code = code;
    strbuf_addf(&rs->eager_err, "the eager reference failed: %s", e.buf);
    strbuf_addstr(err, rs->eager_err.buf);
    strbuf_release(&e);
    event *ev = session_add_event(rs->s, EV_ERROR);
    ev->u.error.text = arena_strdup(&rs->s->arena, rs->eager_err.buf);
    runner_client_kill(rs->rc, "killed");
    return RUN_CHANGED_EVENTS | RUN_PUMP_ERROR;
}

const char *run_service_eager_failure(const run_service *rs) { return rs->eager_code ? rs->eager_err.buf : NULL; }

/* A spec naming its inputs, put in model order by the user's or AOTI's names. */
static int order_inputs(session *s, const char *spec, const wrapper_scan *ws, int *labels, strbuf *err)
{
    const char **user = xcalloc(ws->ninputs ? ws->ninputs : 1, sizeof *user);
    const char **aoti = xcalloc(ws->ninputs ? ws->ninputs : 1, sizeof *aoti);
    for (size_t i = 0; i < ws->ninputs; i++) {
        user[i] = ws->inputs[i].user_name;
        aoti[i] = ws->inputs[i].name;
    }
    int rc = inputs_order_by_name(s, spec, user, aoti, ws->ninputs, labels, err);
    free(user);
    free(aoti);
    return rc;
}

/* The user's names of the inputs and outputs (pytree.h) into the header. */
static void names_to_session(session *s, const wrapper_scan *ws)
{
    package_info *pi = &s->package;
    int any = 0;   /* positional ones only ("args[0]") say no more than the index */
    for (size_t i = 0; i < ws->ninputs; i++)
        any |= ws->inputs[i].user_name && !starts_with(ws->inputs[i].user_name, "args[");
    if (any && ws->ninputs) {
        pi->input_names = arena_alloc(&s->arena, ws->ninputs * sizeof *pi->input_names);
        for (size_t i = 0; i < ws->ninputs; i++)
            pi->input_names[i] = arena_strdup(&s->arena, ws->inputs[i].user_name ? ws->inputs[i].user_name : "");
        pi->ninput_names = ws->ninputs;
    }
    if (ws->output_names && ws->noutputs) {
        pi->output_names = arena_alloc(&s->arena, ws->noutputs * sizeof *pi->output_names);
        for (size_t i = 0; i < ws->noutputs; i++)
            pi->output_names[i] = arena_strdup(&s->arena, ws->output_names[i] ? ws->output_names[i] : "");
        pi->noutput_names = ws->noutputs;
    }
}

/* Names the package's specs do not give, for the tensors the runner sends: each weight by its
 * original_fqn where that differs from its C++ name, and, where the spec labelled inputs the
 * package names only by position, those labels (a note says where they came from). */
static void user_names(run_service *rs, const wrapper_scan *ws, int labels)
{
    session *s = rs->s;
    size_t n = 0;
    free(rs->unames);
    rs->unames = xcalloc(ws->nconstants + ws->ninputs + 1, sizeof *rs->unames);
    for (size_t i = 0; i < ws->nconstants; i++)
        if (ws->constants[i].name && ws->constants[i].fqn && strcmp(ws->constants[i].name, ws->constants[i].fqn))
            rs->unames[n++] = (tensor_user_name){arena_strdup(&s->arena, ws->constants[i].name),
                                                 arena_strdup(&s->arena, ws->constants[i].fqn)};
    for (size_t i = 0; labels && i < ws->ninputs && i < s->ninputs; i++)
        if (ws->inputs[i].name && s->inputs[i].name)
            rs->unames[n++] = (tensor_user_name){arena_strdup(&s->arena, ws->inputs[i].name), s->inputs[i].name};
    if (labels && ws->ninputs)
        session_add_note(s, arena_printf(&s->arena, "the package names its inputs only by position (exported with "
                                                    "positional arguments): the names the inputs spec gives them "
                                                    "label them (%s is %s)", ws->inputs[0].name ? ws->inputs[0].name
                                                    : "input 0", s->inputs[0].name));
    rs->nunames = n;
}

/* ---- open ----------------------------------------------------------------- */

static int open_recording(run_service *rs, strbuf *err)
{
    const char *sha = package_sha256_ready(rs->pkg);   /* else the final save has it (run_service_finish) */
    if (sha)
        rs->s->package.sha256 = arena_strdup(&rs->s->arena, sha);
    char def[64];
    const char *rec = rs->o.record;
    if (!rec) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(def, sizeof def, "./aotidbg-session-%Y%m%d-%H%M%S.yaml", &tm);
        rec = def;
    }
    rs->record = xstrdup(rec);
    strbuf werr = STRBUF_INIT;
    int rc = session_writer_open(&rs->w, rs->record, rs->s, &werr);
    if (rc < 0)
        strbuf_addf(err, "cannot record the session: %s", werr.buf);
    strbuf_release(&werr);
    return rc;
}

/* --memcheck: the tool found, the package a CUDA one, its reports beside the session; the run
 * blocks at every kernel with the caching allocator off (--deterministic), and keeps the first
 * values of each tensor (an index tensor's say which row a gather read). */
static int memcheck_prepare(run_service *rs, const char *device, const package_model *m, strbuf *err)
{
    const run_options *o = &rs->o;
    if (o->remote) {
        strbuf_addstr(err, "--memcheck runs compute-sanitizer on this machine; not with --remote (run aotidbg on "
                           "the GPU box)");
        return -1;
    }
    if (sanitizer_find(rs->san_path, sizeof rs->san_path, err) < 0)
        return -1;
    if (!strcmp(device, "cpu")) {
        strbuf_addf(err, "--memcheck checks CUDA kernels, and %s runs on the CPU (%s%s%s): compute-sanitizer has "
                    "nothing to check there (for CPU memory errors run the runner under valgrind or ASan)",
                    o->package, o->device ? "--device cpu" : "AOTI_DEVICE_KEY '",
                    o->device ? "" : m->device_key ? m->device_key : "cpu", o->device ? "" : "'");
        return -1;
    }
    const char *base = o->record;
    char def[64];
    if (!base) {
        snprintf(def, sizeof def, "./aotidbg-memcheck-%ld.yaml", (long)getpid());
        base = def;
    }
    size_t n = strlen(base) + sizeof ".sanitizer.xml";
    rs->san_xml = xmalloc(n);
    rs->san_txt = xmalloc(n);
    snprintf(rs->san_xml, n, "%s.sanitizer.xml", base);
    snprintf(rs->san_txt, n, "%s.sanitizer.txt", base);
    unlink(rs->san_xml);   /* a report left by an earlier run must not be read as this one's */
    unlink(rs->san_txt);
    sanitizer_argv(rs->san_path, o->memcheck, rs->san_xml, rs->san_txt, rs->san_argv);
    rs->o.blocking = rs->o.deterministic = 1;
    if (!rs->o.max_values)
        rs->o.max_values = 1024;
    session_add_note(rs->s, arena_printf(&rs->s->arena, "run under %s --tool %s (reports: %s, %s)", rs->san_path,
                                         o->memcheck, rs->san_xml, rs->san_txt));
    return 0;
}

/* What the steps of run_service_open hand on to each other. */
typedef struct {
    package_model *m;
    const char *device;   /* --device, else the package's */
    wrapper_scan ws;
    int have_ws;
    strbuf wtext;         /* wrapper.cpp's text, for the mode */
    weights_plan wp;
} opening;

/* Options that go only with others. */
static int check_usage(const run_options *o, strbuf *err)
{
    if (!o->package) {
        strbuf_addstr(err, "which package? give a .pt2 file");
        return -1;
    }
    if (!o->eager && ((o->breaks.flags & BREAK_ON_DIVERGE) || o->eager_device || o->eager_float64 ||
                      o->eager_map || o->tol.atol >= 0)) {
        strbuf_addf(err, "%s goes with --eager PROGRAM.pt2 (the exported program to compare with)",
                    o->breaks.flags & BREAK_ON_DIVERGE ? "--break-on diverge" : o->eager_device ? "--eager-device"
                    : o->eager_float64 ? "--eager-float64" : o->eager_map ? "--eager-map" : "--tolerance");
        return -1;
    }
    if (o->eager_map && eager_map_from_name(o->eager_map) < 0) {
        strbuf_addf(err, "--eager-map %s: expected compiler or names", o->eager_map);
        return -1;
    }
    if (o->eager && o->remote) {
        strbuf_addstr(err, "--eager compares on this machine; not with --remote (record there with --values, or "
                           "run aotidbg on the GPU box)");
        return -1;
    }
    if (o->seed && !(o->inputs && !strcmp(o->inputs, "random"))) {
        strbuf_addstr(err, "--seed goes with --inputs random (a spec file gives each input's seed: 'seed: N')");
        return -1;
    }
    if ((o->push || o->remote_runner) && !o->remote) {
        strbuf_addf(err, "%s goes with --remote HOST", o->push ? "--push" : "--remote-runner");
        return -1;
    }
    if (o->remote && o->reinstrument == RUN_REINSTR_FORCE) {
        strbuf_addstr(err, "--reinstrument compiles where the package is; not with --remote");
        return -1;
    }
    return 0;
}

static int inputs_are_random(const run_options *o)
{
    return o->inputs && !strcmp(o->inputs, "random");
}

/* --inputs random: a spec from the package (random_inputs.h) written beside
 * the session as RECORD.inputs.yaml, then read as --inputs FILE would be. */
static int make_random_inputs(run_service *rs, const opening *op, strbuf *err)
{
    if (!op->have_ws) {
        strbuf_addf(err, "--inputs random makes inputs from the model's wrapper.cpp, and %s has none that could be "
                    "read; give an inputs spec", rs->o.package);
        return -1;
    }
    if (!rs->o.record) {   /* the live UI's default name, chosen now so the spec can go beside it */
        char def[64];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(def, sizeof def, "./aotidbg-session-%Y%m%d-%H%M%S.yaml", &tm);
        rs->default_record = xstrdup(def);
        rs->o.record = rs->default_record;
    }
    strbuf kernels = STRBUF_INIT, kerr = STRBUF_INIT, said = STRBUF_INIT, path = STRBUF_INIT;
    int have_k = op->m->kernel_cpp_entry &&
                 package_read_entry(rs->pkg, op->m->kernel_cpp_entry, WS_MAX_BYTES, &kernels, &kerr) == 0;
    index_bound *b = NULL;
    size_t nb = 0;
    index_bounds_scan(op->wtext.buf, op->wtext.len, have_k ? kernels.buf : NULL, kernels.len, &op->ws, &b, &nb);
    uint64_t seed = rs->o.seed ? strtoull(rs->o.seed, NULL, 10) : 0;
    strbuf_addf(&path, "%s.inputs.yaml", rs->o.record);
    int rc = random_inputs_write(&op->ws, b, nb, seed, op->device, path.buf, &said, err);
    if (rc == 0) {
        rs->random_spec = strbuf_detach(&path, NULL);
        rs->o.inputs = rs->random_spec;   /* hints and repeats name the file from here on */
        rs->o.seed = NULL;
        say(rs, "--inputs random --seed %" PRIu64 ": %zu input%s made from the package, written to %s (--inputs %s "
            "runs them again):\n%.*s", seed, op->ws.ninputs, op->ws.ninputs == 1 ? "" : "s", rs->random_spec,
            rs->random_spec, (int)(said.len && said.buf[said.len - 1] == '\n' ? said.len - 1 : said.len), said.buf);
        session_add_note(rs->s, arena_printf(&rs->s->arena, "--inputs random --seed %" PRIu64 ": inputs made from "
                                             "the package, spec %s:\n%s", seed, rs->random_spec, said.buf));
        rc = inputs_load(rs->s, rs->random_spec, err);
    }
    free(b);
    strbuf_release(&kernels);
    strbuf_release(&kerr);
    strbuf_release(&said);
    strbuf_release(&path);
    return rc;
}

/* What reading the inputs' files changed (a float32 file rounded to
 * bfloat16), said first and kept in the session. */
static void say_input_notes(run_service *rs)
{
    for (size_t i = 0; i < rs->s->ninputs; i++) {
        const char *note = rs->s->inputs[i].file_note;
        if (!note)
            continue;
        int exact = strstr(note, " exactly ") != NULL;
        say(rs, "%sinput %zu: %s", exact ? "" : "warning: ", i, note);
        session_add_note(rs->s, arena_printf(&rs->s->arena, "input %zu: %s", i, note));
    }
}

/* The inputs spec and the package (here, or there through --remote); its
 * SHA-256 starts on a thread. */
static int open_package(run_service *rs, const run_options *o, strbuf *err)
{
    if (o->remote) {
        rs->o.reinstrument = RUN_REINSTR_OFF;
        /* The UI owns the terminal only after this: ssh may still ask for a password here. */
        remote_cli rc = {.target = o->remote, .runner_path = o->remote_runner, .push = o->push,
                         .timeout_s = o->timeout_s, .env = o->remote_env};
        if (remote_open(&rc, o->package, inputs_are_random(o) ? NULL : o->inputs, rs->s, &rs->remote, &rs->pkg,
                        err) < 0)
            return -1;   /* its own words: the package and spec are named with the host */
    } else {
        if (o->inputs && !inputs_are_random(o) && inputs_load(rs->s, o->inputs, err) < 0)
            return -1;
        if (is_session_file(o->package) && access(o->package, R_OK) == 0) {
            strbuf_addf(err, "%s is a session file, not a package: `aotidbg replay %s` opens it", o->package,
                        o->package);
            return -1;
        }
        if (package_open(&rs->pkg, o->package, err) < 0)
            return -1;
    }
    package_sha256_start(rs->pkg);   /* the header's sha256: hashed while the rest goes on */
    say_input_notes(rs);
    return 0;
}

/* The model to run, and the device it runs on. */
static int pick_model(run_service *rs, const run_options *o, opening *op, strbuf *err)
{
    package_model *m = package_find_model(rs->pkg, o->model, err);
    if (!m)
        return -1;
    op->device = o->device;
    if (rs->pkg->is_bare_so) {
        if (!op->device) {
            strbuf_addf(err, "%s is a bare model .so, which records no device: give --device cpu|cuda", o->package);
            return -1;
        }
        const char *note = "bare model .so (torch._export.aot_compile, deprecated): cubins are looked up beside "
                           "it; the current API, torch._inductor.aoti_compile_and_package / aoti_load_package, "
                           "records the device in the package";
        say(rs, "note: %s is a %s", o->package, note);
        session_add_note(rs->s, note);
    } else if (!op->device) {
        op->device = m->device_key;
        if (!op->device || !run_device_ok(op->device)) {
            strbuf_addf(err, "%s does not say which device it was compiled for%s%s%s; give --device", o->package,
                        op->device ? " (AOTI_DEVICE_KEY '" : "", op->device ? op->device : "",
                        op->device ? "')" : "");
            return -1;
        }
    }
    if (o->memcheck && memcheck_prepare(rs, op->device, m, err) < 0)   /* sets rs->o's blocking, values */
        return -1;
    if (!m->so_entry && m->cmake_entry) {
        strbuf_addf(err, "%s: ", o->package);
        package_cpp_only_help(rs->pkg, m, err);
        return -1;
    }
    if (!m->so_entry) {
        strbuf_addf(err, "%s: model '%s' has no .wrapper.so; rebuild the package with aoti_compile_and_package",
                    o->package, m->name);
        return -1;
    }
    op->m = m;
    rs->m = m;
    return 0;
}

/* Locally the weights are written on a thread while the checklist runs,
 * the runner loads libtorch (it gets LOAD once the .so is on disk, in
 * run_service_pump) and the first screen is drawn. */
static int start_extraction(run_service *rs, package_model *m, strbuf *err)
{
    if (rs->remote ? remote_prepare_model(rs->remote, rs->pkg, m, 0, &rs->hf, err)
                   : package_extract_start(rs->pkg, m, err))
        return -1;
    rs->extracting = !rs->remote && package_extract_fd(rs->pkg) >= 0;
    return 0;
}

/* The wrapper.cpp scan: the printer level, the inputs' names and order (no
 * --inputs for a model that takes inputs: a spec to start from) and the
 * provenance. */
static int scan_inputs(run_service *rs, const run_options *o, opening *op, strbuf *err)
{
    session *s = rs->s;
    op->have_ws = scan_wrapper(rs->pkg, op->m, &op->ws, &op->wtext) == 0;
    if (inputs_are_random(o) && make_random_inputs(rs, op, err) < 0)
        return -1;
    if (op->have_ws) {
        s->printer_level = op->ws.printer_level;
        if (!o->inputs && op->ws.ninputs > 0) {
            suggest_spec(&op->ws, err);
            return -1;
        }
        names_to_session(s, &op->ws);
        int labels = 0;
        if (o->inputs && order_inputs(s, o->inputs, &op->ws, &labels, err) < 0)
            return -1;
        user_names(rs, &op->ws, labels);
    }
    load_provenance(rs, op->m, op->have_ws ? &op->ws : NULL);
    return 0;
}

/* Weights kept apart from the .so: pickled storages written out for the runner. */
static int plan_weights(run_service *rs, opening *op, strbuf *err)
{
    weights_plan *wp = &op->wp;
    if (weights_plan_read(rs->pkg, op->m, op->have_ws ? &op->ws : NULL, &rs->pkg->arena, wp, err) < 0)
        return -1;
    if (wp->form != WEIGHTS_PICKLE || wp->problem)
        return 0;
    if (rs->remote) {
        strbuf_addstr(err, "a pickle_weights package runs here, not through --remote yet: its weights are written "
                           "out for the runner on this machine");
        return -1;
    }
    /* written beside the extracted files: wait for them */
    if (extracted(rs, err) < 0 || weights_materialize(rs->pkg, op->m, wp, &rs->pkg->arena, err) < 0)
        return -1;
    return 0;
}

/* The header: the same keys whichever front end runs it. */
static void write_header(run_service *rs, const run_options *o, const opening *op)
{
    session *s = rs->s;
    s->tool_version = AOTIDBG_VERSION;
    package_to_session(rs->pkg, op->m, s);
    s->device = arena_strdup(&s->arena, op->device);
    rs->o.device = s->device;
    if (o->max_values)   /* the budget matters only when values are kept */
        s->values_budget = o->values_budget;
    char host[256];
    if (rs->remote) {   /* the box the model runs on */
        s->host = arena_strdup(&s->arena, rs->hf.hostname[0] ? rs->hf.hostname : o->remote);
        session_add_note(s, arena_printf(&s->arena, "ran on %s through ssh (aotidbg --remote %s; %s)", s->host,
                                         o->remote, rs->hf.runner));
    } else if (gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = 0;
        s->host = arena_strdup(&s->arena, host);
    }
}

/* The checklist: its rows go into the session either way. 1 when a FAIL row
 * stops the run (no --force): the session holds an error event saying so. */
static int run_checklist(run_service *rs, const run_options *o, const opening *op)
{
    session *s = rs->s;
    checklist_opts co = {.device = op->device, .model = op->m->name, .inputs = o->inputs ? s->inputs : NULL,
                         .ninputs = o->inputs ? s->ninputs : 0, .host = rs->remote ? &rs->hf : NULL,
                         .blocking = o->blocking};
    strbuf why = STRBUF_INIT;
    int gated = 0;
    if (checklist_gate(rs->pkg, &co, s, &why) == 1) {
        if (!o->force) {
            rs->gated = gate_code(s);
            gated = 1;
            strbuf_add(&rs->gate, why.buf, why.len);
            event *e = session_add_event(s, EV_ERROR);
            e->u.error.text = arena_printf(&s->arena, "checklist failed; not run:\n%s", why.buf);
            e->u.error.kernel_index = -1;
            s->end_state = "failed";
        } else {
            say(rs, "--force: running despite the checklist:\n%.*s",
                (int)(why.len && why.buf[why.len - 1] == '\n' ? why.len - 1 : why.len), why.buf);
            session_add_note(s, "started with --force over a failing checklist");
        }
    }
    strbuf_release(&why);
    return gated;
}

/* The runner, spawned now so libtorch loads meanwhile (LOAD goes once the
 * extraction is done). */
static int start_runner(run_service *rs, const run_options *o, unsigned front, const opening *op, strbuf *err)
{
    const package_model *m = op->m;
    const weights_plan *wp = &op->wp;
    runner_options ro = {
        .load_later = rs->extracting,
        .so_path = rs->rebuilt_so ? rs->rebuilt_so : m->so_path, .cubin_dir = m->model_dir, .device = op->device,
        .blocking = o->blocking, .deterministic = o->deterministic, .timeout_s = o->timeout_s,
        .break_flags = o->breaks.flags, .break_kernel = o->breaks.kernel, .break_index = o->breaks.index,
        .max_values = o->max_values, .values_budget = o->values_budget,
        /* ranks compare their after-tensors by value in every round */
        .round_stats = o->max_values && !o->loop_values_all && !o->ranks && o->rank < 0,
        .output_values = o->expect.n ? PROTO_MAX_VALUES : 0,   /* --expect compares every element */
        .trace_source = package_trace_source(rs->pkg, m), .remote = rs->remote,
        .constants = wp->form == WEIGHTS_PICKLE ? wp->refs : NULL,
        .nconstants = wp->form == WEIGHTS_PICKLE ? wp->nrefs : 0,
        .branches = rs->branches, .nbranches = rs->nbranches, .capture = o->capture,
        .user_names = rs->unames, .nuser_names = rs->nunames,
        .wrap = o->memcheck ? rs->san_argv : NULL, .alloc = o->memcheck != NULL, .env = o->env,
    };
    rs->sources_at = rs->remote ? m->wrapper_cpp_path : NULL;
    if (rs->eager) {   /* the runner loads while the reference is computed */
        ro.hold_run = !rs->eager_done;
        if (rs->eager_done)
            ro.pre_run = eager_ref_messages(rs->eager, &ro.npre_run);
        else if (!ro.wrap && !rs->remote)   /* in a fork of it: libtorch starts once */
            ro.first_fd = eager_ref_runner_env(rs->eager, &ro.first_env);
    }
    if (front & RUN_OPT_LIVE)   /* live stops at every kernel; c runs to the breaks */
        ro.break_flags |= BREAK_EACH_KERNEL | BREAK_ON_ERROR;
    rs->ro = ro;
    rs->ro.first_env = NULL;
    rs->ro.first_fd = 0;
    int rc = runner_client_start(&rs->rc, &ro, rs->s, err);
    if (rs->eager)
        eager_ref_runner_started(rs->eager, rc == 0 && ro.first_fd > 0);
    return rc;
}

/* The steps up to the checklist (run_service.h lists them). */
static int open_until_checklist(run_service *rs, const run_options *o, opening *op, strbuf *err)
{
    if (check_usage(o, err) < 0 || open_package(rs, o, err) < 0 || pick_model(rs, o, op, err) < 0 ||
        start_extraction(rs, op->m, err) < 0 || scan_inputs(rs, o, op, err) < 0 || plan_weights(rs, op, err) < 0)
        return -1;
    write_header(rs, o, op);
    return 0;
}

int run_service_open(run_service **out, const run_options *o, unsigned front, session *s, const run_say *sayer,
                     strbuf *err)
{
    *out = NULL;
    run_service *rs = xcalloc(1, sizeof *rs);
    rs->o = *o;
    o = &rs->o;   /* the steps read the run's own copy: --memcheck changes it */
    rs->front = front;
    rs->s = s;
    rs->last_state = -1;
    rs->last_kernel = -2;
    strbuf_init(&rs->gate, 0);
    strbuf_init(&rs->eager_err, 0);
    if (sayer)
        rs->say = *sayer;
    opening op;
    memset(&op, 0, sizeof op);
    strbuf_init(&op.wtext, 0);
    int rc = open_until_checklist(rs, o, &op, err);
    if (op.have_ws)
        wrapper_scan_free(&op.ws);
    int gated = rc == 0 && run_checklist(rs, o, &op);
    if (rc == 0 && !gated) {
        strbuf why = STRBUF_INIT;
        choose_mode(rs, op.m, op.device, op.have_ws, &op.wtext, &why);
        add_mode_row(s, why.buf);
        strbuf_release(&why);
        rc = (o->eager && start_eager(rs, op.device, &op.wtext, err) < 0) || start_runner(rs, o, front, &op, err) < 0 ? -1 : 0;
    }
    strbuf_release(&op.wtext);
    if (rc == 0)
        rc = open_recording(rs, err);
    if (rc < 0) {
        run_service_free(rs);
        return -1;
    }
    *out = rs;
    return gated ? RUN_OPEN_GATED : RUN_OPEN_STARTED;
}

/* ---- the run ----------------------------------------------------------------- */

/* The extraction thread ended: LOAD, or the run ends with why it could not. */
static int extraction_ended(run_service *rs, strbuf *err)
{
    strbuf xerr = STRBUF_INIT;
    if (extracted(rs, &xerr) < 0) {
        event *e = session_add_event(rs->s, EV_ERROR);
        e->u.error.text = arena_printf(&rs->s->arena, "extracting the package failed: %s", xerr.buf);
        e->u.error.kernel_index = -1;
        strbuf_addf(err, "extracting the package failed: %s", xerr.buf);
        strbuf_release(&xerr);
        rs->extract_failed = 1;
        runner_client_kill(rs->rc, "killed");
        return RUN_PUMP_ERROR | RUN_CHANGED_EVENTS;
    }
    strbuf_release(&xerr);
    rs->ro.load_later = 0;
    rs->ro.so_path = rs->m->so_path;
    rs->ro.cubin_dir = rs->m->model_dir;
    if (runner_client_load(rs->rc, rs->m->so_path, rs->m->model_dir, err) < 0)
        return RUN_PUMP_ERROR;
    return RUN_CHANGED_STATE;
}

/* While the weights are written: waits on the extraction (not the runner,
 * which waits for LOAD), says when its progress moved a percent. */
static int pump_extraction(run_service *rs, int *timeout_ms, strbuf *err)
{
    uint64_t done = 0, total = 0;
    if (package_extract_progress(rs->pkg, &done, &total) && *timeout_ms != 0) {
        struct pollfd pfd = {package_extract_fd(rs->pkg), POLLIN, 0};
        poll(&pfd, 1, *timeout_ms);
    }
    *timeout_ms = 0;
    if (!package_extract_progress(rs->pkg, &done, &total))
        return extraction_ended(rs, err);
    uint64_t pct = total ? done * 100 / total : 0;
    if (pct == rs->shown_pct)
        return 0;
    rs->shown_pct = pct;
    return RUN_CHANGED_STATE;
}

/* --memcheck: once the runner is dead (an illegal access ends it), the tool's reports become
 * events at once, so a live session shows them; the tool writes its summary last, right after
 * the runner's exit (waited for up to 3 s). A run that finished is read at run_service_finish. */
static int memcheck_collect(run_service *rs, int dead)
{
    if (!rs->san_xml || rs->san_read || !rs->rc || (dead && runner_client_state(rs->rc) != RUNNER_DEAD))
        return 0;
    for (int waited = 0; waited < 3000 && !sanitizer_report_done(rs->san_txt); waited += 20)
        poll(NULL, 0, 20);
    strbuf serr = STRBUF_INIT;
    sanitizer_to_session(rs->s, rs->o.memcheck, rs->san_xml, rs->san_txt, &serr);
    strbuf_release(&serr);
    rs->san_read = 1;
    return RUN_CHANGED_EVENTS;
}

/* A new run under the tool: the last run's reports must not be read as its own. */
static void memcheck_again(run_service *rs)
{
    if (!rs->san_xml)
        return;
    unlink(rs->san_xml);
    unlink(rs->san_txt);
    rs->san_read = 0;
}

int run_service_pump(run_service *rs, int timeout_ms, strbuf *err)
{
    if (!rs->rc)
        return 0;
    int changed = rs->extracting ? pump_extraction(rs, &timeout_ms, err) : 0;
    if (rs->eager && !rs->eager_done && timeout_ms > 10)
        timeout_ms = 10;   /* the held runner says nothing: look at the reference's process often */
    strbuf perr = STRBUF_INIT;
    int n = runner_client_pump(rs->rc, timeout_ms, &perr);
    if (n < 0) {
        strbuf_addf(err, "runner: %s", perr.buf);
        changed |= RUN_PUMP_ERROR;
    }
    if (n != 0)
        changed |= RUN_CHANGED_EVENTS;
    if (rs->eager && !rs->eager_done)
        changed |= pump_eager(rs, err);
    if (rs->san_xml && !rs->san_read && runner_client_state(rs->rc) == RUNNER_STOPPED &&
        runner_client_stop_reason(rs->rc) == PROTO_STOP_ERROR) {
        /* a CUDA error leaves the context unusable, and the tool writes its report only when
         * the runner exits: end it now so the report is shown with the error, not at quit */
        rs->left_at_stop = 1;
        runner_client_quit(rs->rc, 5000);
        changed |= RUN_CHANGED_STATE | memcheck_collect(rs, 0);
    }
    changed |= memcheck_collect(rs, 1);
    int st = (int)runner_client_state(rs->rc);
    int64_t ck = runner_client_current_kernel(rs->rc);
    if (st != rs->last_state || ck != rs->last_kernel)
        changed |= RUN_CHANGED_STATE;
    rs->last_state = st;
    rs->last_kernel = ck;
    strbuf_reset(&perr);
    if (changed && rs->w && !rs->write_failed && session_writer_sync(rs->w, &perr) < 0) {
        rs->write_failed = 1;
        strbuf_addf(err, "%swriting %s failed: %s", changed & RUN_PUMP_ERROR ? "; " : "", rs->record, perr.buf);
        changed |= RUN_WRITE_ERROR;
    }
    strbuf_release(&perr);
    return changed;
}

/* ---- run control ------------------------------------------------------------ */

int run_service_has_runner(const run_service *rs) { return rs->rc != NULL; }
int run_service_alive(const run_service *rs) { return rs->rc && runner_client_alive(rs->rc); }
runner_state run_service_state(const run_service *rs) { return rs->rc ? runner_client_state(rs->rc) : RUNNER_DEAD; }
int64_t run_service_current_kernel(const run_service *rs) { return rs->rc ? runner_client_current_kernel(rs->rc) : -1; }
int run_service_stop_reason(const run_service *rs) { return rs->rc ? runner_client_stop_reason(rs->rc) : -1; }
int64_t run_service_model_inputs(const run_service *rs) { return rs->rc ? runner_client_model_inputs(rs->rc) : -1; }

int run_service_set_breaks(run_service *rs, int break_flags)
{
    return rs->rc ? runner_client_set_breaks(rs->rc, break_flags) : -1;
}

int run_service_step(run_service *rs) { return rs->rc ? runner_client_step(rs->rc) : -1; }

/* A runner stopped at a kernel, told which breaks the next leg keeps. */
static int stopped_with(run_service *rs, int break_flags)
{
    if (!rs->rc || runner_client_state(rs->rc) != RUNNER_STOPPED)
        return -1;
    return runner_client_set_breaks(rs->rc, break_flags & ~BREAK_EACH_KERNEL);
}

int run_service_continue(run_service *rs, int break_flags)
{
    return stopped_with(rs, break_flags) < 0 ? -1 : runner_client_continue(rs->rc);
}

int run_service_run_to_index(run_service *rs, int64_t n, int break_flags)
{
    return stopped_with(rs, break_flags) < 0 ? -1 : runner_client_run_to_index(rs->rc, n);
}

int run_service_run_to_name(run_service *rs, const char *name, int break_flags)
{
    return stopped_with(rs, break_flags) < 0 ? -1 : runner_client_run_to_name(rs->rc, name);
}

int run_service_pause(run_service *rs) { return rs->rc ? runner_client_pause(rs->rc) : -1; }
int run_service_quit(run_service *rs, int wait_ms) { return rs->rc ? runner_client_quit(rs->rc, wait_ms) : 0; }

int run_service_fd(const run_service *rs)
{
    return rs->extracting ? package_extract_fd(rs->pkg) : runner_client_fd(rs->rc);
}

int run_service_extracting(const run_service *rs, uint64_t *done, uint64_t *total)
{
    return rs->extracting && package_extract_progress(rs->pkg, done, total);
}
const char *run_service_sources_at(const run_service *rs) { return rs->sources_at; }
const run_options *run_service_options(const run_service *rs) { return &rs->o; }
const char *run_service_record_path(const run_service *rs) { return rs->record; }
const char *run_service_gate_reason(const run_service *rs) { return rs->gate.buf; }
int run_service_write_failed(const run_service *rs) { return rs->write_failed; }
int run_service_left_at_stop(const run_service *rs) { return rs->left_at_stop; }

/* A package that could not be extracted has no model to load again. */
static int extract_failed(const run_service *rs, strbuf *err)
{
    if (rs->extract_failed)
        strbuf_addstr(err, "the package could not be extracted (the error pane says why): nothing to run again");
    return rs->extract_failed;
}

/* A lost --remote connection cannot start a runner: refuse before the
 * recorded kernels are cleared. */
static int connection_lost(const run_service *rs, strbuf *err)
{
    if (!rs->remote || remote_alive(rs->remote))
        return 0;
    strbuf_addf(err, "the connection to %s was lost, so no runner can start there; the %zu kernels recorded "
                "are kept (quit saves them; run aotidbg again to reconnect)", remote_host(rs->remote),
                rs->s->nkernels);
    return 1;
}

int run_service_restart(run_service *rs, strbuf *err)
{
    if (!rs->rc || extract_failed(rs, err) || connection_lost(rs, err))
        return -1;
    rs->left_at_stop = 0;
    memcheck_again(rs);
    return runner_client_restart(rs->rc, err);
}

int run_service_rerun(run_service *rs, int blocking, int deterministic, int break_flags, strbuf *err)
{
    if (!rs->rc || extract_failed(rs, err) || connection_lost(rs, err))
        return -1;
    runner_client_free(rs->rc);
    rs->rc = NULL;
    rs->left_at_stop = 0;
    memcheck_again(rs);
    rs->s->nevents = 0;   /* a fresh run, as runner_client_restart does */
    rs->s->nkernels = 0;
    runner_options ro = rs->ro;
    ro.blocking = blocking;
    ro.deterministic = deterministic;
    ro.break_flags = break_flags | (rs->ro.break_flags & BREAK_ON_DIVERGE);
    if (runner_client_start(&rs->rc, &ro, rs->s, err) < 0)
        return -1;
    rs->ro = ro;
    return 0;
}

void run_service_kill(run_service *rs, const char *how)
{
    if (rs->rc)
        runner_client_kill(rs->rc, how);
}

void run_service_interrupt(run_service *rs, const char *why)
{
    snprintf(rs->interrupted, sizeof rs->interrupted, "interrupted (%s)", why);
    run_service_kill(rs, "killed");
}

/* ---- how it ended ------------------------------------------------------------ */

static const event *last_of(const session *s, event_kind k)
{
    for (size_t i = s->nevents; i-- > 0;)
        if (s->events[i]->kind == k)
            return s->events[i];
    return NULL;
}

const char *run_service_end_state(const run_service *rs)
{
    session *s = rs->s;
    if (rs->gated || !rs->rc || rs->extract_failed)
        return "failed";
    if (rs->eager_code)   /* the runner was ended for it; the error event says why */
        return "no-reference";
    const runner_exit_event *x = session_runner_exit(s);
    if (x) {
        run_service *w = (run_service *)rs;   /* the words are kept in rs, not the arena: asked every frame */
        return runner_exit_text(x, w->end_text, sizeof w->end_text);
    }
    if (runner_client_state(rs->rc) != RUNNER_FINISHED)
        return NULL;
    if (last_of(s, EV_ERROR) || (!rs->left_at_stop && runner_client_done_status(rs->rc) != 0))
        return "failed";   /* also when it was left at the error's stop */
    return rs->left_at_stop ? "stopped" : "complete";
}

const tensor_rec *run_service_bad_output(const run_service *rs)
{
    const event *o = last_of(rs->s, EV_OUTPUT);
    for (size_t i = 0; o && i < o->u.output.ntensors; i++) {
        const tensor_rec *t = &o->u.output.tensors[i];
        if (t->has_stats && t->stats.numel && !t->stats.finite)
            return t;
    }
    return NULL;
}

const char *run_service_unmatched_break(const run_service *rs)
{
    const session *s = rs->s;
    const run_breaks *b = &rs->o.breaks;
    run_service *w = (run_service *)rs;   /* the text is cached in rs */
    if (!rs->rc || rs->left_at_stop || runner_client_state(rs->rc) != RUNNER_FINISHED ||
        runner_client_done_status(rs->rc) != 0 || last_of(s, EV_RUNNER_EXIT))
        return NULL;
    if (b->index >= 0 && (int64_t)s->nkernels <= b->index) {
        snprintf(w->unmatched, sizeof w->unmatched, "index=%" PRId64, b->index);
        return w->unmatched;
    }
    if (b->kernel) {
        for (size_t i = 0; i < s->nkernels; i++)
            if (run_break_matches(b->kernel, s->kernels[i]->u.kernel.name, s->kernels[i]->u.kernel.iteration))
                return NULL;
        snprintf(w->unmatched, sizeof w->unmatched, "kernel=%s", b->kernel);
        return w->unmatched;
    }
    return NULL;
}

int run_service_exit_code(const run_service *rs)
{
    const session *s = rs->s;
    if (rs->gated)
        return rs->gated;
    if (!rs->rc)
        return 1;
    if (rs->extract_failed)
        return 2;   /* an unreadable or damaged package is bad input */
    if (rs->eager_code)
        return rs->eager_code;
    int64_t want = runner_client_model_inputs(rs->rc);
    if (want >= 0 && (size_t)want != s->ninputs)
        return 2;
    if (runner_client_state(rs->rc) == RUNNER_FINISHED && runner_client_done_status(rs->rc) == PROTO_DONE_BAD_INPUT)
        return 2;   /* an input's file does not hold what the spec says: the model never ran */
    const event *x = last_of(s, EV_RUNNER_EXIT);
    if ((x && strcmp(x->u.exit.how, "killed")) || last_of(s, EV_ERROR))
        return 1;
    if (x)   /* the front end ended it (an interrupted run says so itself) */
        return 0;
    if (rs->left_at_stop) {   /* a nan or diverge break the options asked for is a failure */
        int why = runner_client_stop_reason(rs->rc);
        return (why == PROTO_STOP_NAN && (rs->o.breaks.flags & (BREAK_ON_NAN | BREAK_ON_INF | BREAK_ON_NONFINITE))) ||
               (why == PROTO_STOP_DIVERGE && (rs->o.breaks.flags & BREAK_ON_DIVERGE)) ? 1 : 0;
    }
    if (runner_client_state(rs->rc) != RUNNER_FINISHED)
        return 0;
    if (runner_client_done_status(rs->rc) != 0)
        return 1;
    return run_service_unmatched_break(rs) ? 2 : 0;
}

int run_service_finish(run_service *rs, strbuf *err)
{
    if (rs->rc) {
        runner_state st = runner_client_state(rs->rc);
        /* --timeout 0 never kills: its exit is awaited however long it takes
         * (valgrind checks leaks there, for tens of seconds). */
        int wait_ms = rs->o.timeout_s == 0 ? -1 : 3000;
        if (st == RUNNER_STOPPED) {
            rs->left_at_stop = 1;
            runner_client_quit(rs->rc, wait_ms);
        } else if (st == RUNNER_FINISHED) {
            /* The runner leaves after DONE; wait for it so a crash at teardown is seen too. */
            runner_client_quit(rs->rc, wait_ms);
        } else if (st != RUNNER_DEAD) {
            runner_client_kill(rs->rc, "killed");
        }
    }
    memcheck_collect(rs, 0);   /* the tool has written its reports once the runner is gone */
    const char *end = rs->interrupted[0] ? rs->interrupted : run_service_end_state(rs);
    rs->s->end_state = arena_strdup(&rs->s->arena, end ? end : "killed");
    if (!rs->s->package.sha256) {   /* hashed on its thread since the open; an interrupted run does not wait */
        if (!strcmp(rs->s->end_state, "killed") || rs->interrupted[0]) {
            const char *sha = package_sha256_ready(rs->pkg);
            if (sha)
                rs->s->package.sha256 = arena_strdup(&rs->s->arena, sha);
        } else {
            package_sha256_to_session(rs->pkg, rs->s);
        }
    }
    if (!rs->w)
        return 0;
    strbuf werr = STRBUF_INIT;
    size_t *index, nindex;
    route_session_picks(rs->s, &index, &nindex);   /* so that `route` reads these lines, not the file */
    int rc = session_writer_finish(rs->w, index, nindex, &werr);
    free(index);
    rs->w = NULL;
    if (rc < 0) {
        strbuf_addf(err, "writing %s failed: %s", rs->record, werr.buf);
        rs->write_failed = 1;
    }
    strbuf_release(&werr);
    return rc;
}

void run_service_abandon(run_service *rs)
{
    if (rs->w)
        session_writer_close(rs->w);
    rs->w = NULL;
}

void run_service_free(run_service *rs)
{
    if (!rs)
        return;
    if (rs->w)
        session_writer_close(rs->w);
    runner_client_free(rs->rc);
    free(rs->rebuilt_so);
    free(rs->branches);
    free(rs->unames);
    package_close(rs->pkg);
    remote_close(rs->remote);   /* the agent there kills its runner and removes its files */
    host_facts_release(&rs->hf);
    free(rs->record);
    free(rs->random_spec);
    free(rs->default_record);
    free(rs->san_xml);
    free(rs->san_txt);
    strbuf_release(&rs->gate);
    eager_ref_free(rs->eager);
    strbuf_release(&rs->eager_err);
    free(rs);
}
