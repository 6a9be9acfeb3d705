/* checklist.c — rows of the device/shape checklist (see checklist.h).
 * Each check_* function adds its rows; none of them stops the others, so one
 * run shows every problem at once. */
#define _GNU_SOURCE
#include "checklist.h"
#include "inputs.h"
#include "reinstrument.h"
#include "weights.h"
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include "elf_syms.h"
#include "compat.h"

#define JSON_MAX_BYTES    (64u << 20)
#define LIST_SHOWN        8          /* names shown in one row before "and N more" */

void checklist_init(checklist *cl) { memset(cl, 0, sizeof *cl); }

static check_row *add(checklist *cl, const char *id, check_status st, const char *subject, const char *expected,
                      const char *got, const char *source, const char *fix)
{
    if (cl->nrows == cl->cap) {
        size_t nc = cl->cap ? cl->cap * 2 : 32;
        check_row *n = xrealloc(cl->rows, nc * sizeof *n);
        cl->rows = n;
        cl->cap = nc;
    }
    arena *a = &cl->arena;
    check_row *r = &cl->rows[cl->nrows++];
    r->id = arena_strdup(a, id);
    r->status = st;
    r->subject = arena_strdup(a, subject ? subject : "");
    r->expected = arena_strdup(a, expected);
    r->got = arena_strdup(a, got);
    r->source = arena_strdup(a, source ? source : "");
    r->fix = arena_strdup(a, fix);
    return r;
}

int checklist_has_fail(const checklist *cl)
{
    for (size_t i = 0; i < cl->nrows; i++)
        if (cl->rows[i].status == CHECK_FAIL)
            return 1;
    return 0;
}

int checklist_order_inputs(package_t *p, const char *model, session *s, const char *spec, strbuf *err)
{
    size_t named = 0;
    for (size_t i = 0; i < s->ninputs; i++)
        named += s->inputs[i].name != NULL;
    strbuf e = STRBUF_INIT, text = STRBUF_INIT;
    package_model *m = named ? package_find_model(p, model, &e) : NULL;
    wrapper_scan ws;
    memset(&ws, 0, sizeof ws);
    int rc = 0;
    if (m && m->wrapper_cpp_entry && package_read_entry(p, m->wrapper_cpp_entry, WS_MAX_BYTES, &text, &e) == 0 &&
        wrapper_scan_text(&ws, text.buf, text.len, &e) == 0) {
        const char **user = xcalloc(ws.ninputs ? ws.ninputs : 1, sizeof *user);
        const char **aoti = xcalloc(ws.ninputs ? ws.ninputs : 1, sizeof *aoti);
        for (size_t i = 0; i < ws.ninputs; i++) {
            user[i] = ws.inputs[i].user_name;
            aoti[i] = ws.inputs[i].name;
        }
        rc = inputs_order_by_name(s, spec, user, aoti, ws.ninputs, NULL, err);
        free(user);
        free(aoti);
    }
    wrapper_scan_free(&ws);
    strbuf_release(&e);
    strbuf_release(&text);
    return rc;
}

int checklist_gate(package_t *p, const checklist_opts *o, session *s, strbuf *why)
{
    checklist cl;
    checklist_init(&cl);
    strbuf err = STRBUF_INIT;
    checklist_run(&cl, p, o, &err);
    if (s)
        checklist_to_session(&cl, s);
    int failed = 0;
    for (size_t i = 0; i < cl.nrows; i++) {
        const check_row *r = &cl.rows[i];
        if (r->status != CHECK_FAIL)
            continue;
        failed = 1;
        strbuf_addf(why, "%s: %s", r->id, r->subject);
        if (r->expected)
            strbuf_addf(why, ": expected %s", r->expected);
        if (r->got)
            strbuf_addf(why, "%s got %s", r->expected ? "," : ":", r->got);
        if (r->fix)
            strbuf_addf(why, "; fix: %s", r->fix);
        strbuf_addch(why, '\n');
    }
    checklist_free(&cl);
    strbuf_release(&err);
    return failed;
}

const check_row *checklist_find(const checklist *cl, const char *id)
{
    for (size_t i = 0; i < cl->nrows; i++)
        if (!strcmp(cl->rows[i].id, id))
            return &cl->rows[i];
    return NULL;
}

size_t checklist_count(const checklist *cl, check_status st)
{
    size_t n = 0;
    for (size_t i = 0; i < cl->nrows; i++)
        n += cl->rows[i].status == st;
    return n;
}

void checklist_free(checklist *cl)
{
    free(cl->rows);
    arena_release(&cl->arena);
    memset(cl, 0, sizeof *cl);
}

/* ---- devices ---- */
typedef struct { char type[32]; int index; } devspec;   /* index -1: none given */

static int parse_device(const char *s, devspec *d)
{
    if (!s || !*s)
        return -1;
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    if (n == 0 || n >= sizeof d->type)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]))
            return -1;
    memcpy(d->type, s, n);
    d->type[n] = 0;
    d->index = -1;
    if (colon) {
        char *end;
        long v = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || v < 0 || v > 1023)
            return -1;
        d->index = (int)v;
    }
    return 0;
}

/* ---- libtorch location ---- */
static int has_libc10(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/libc10.so", dir);
    return access(p, R_OK) == 0;
}

const char *checklist_torch_lib_dir(void)
{
    static char dir[4096];
    static int done;
    if (done)
        return dir[0] ? dir : NULL;
    done = 1;
    const char *env = getenv("TORCH_DIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s/lib", env);
        if (has_libc10(dir))
            return dir;
        snprintf(dir, sizeof dir, "%s", env);
        if (has_libc10(dir))
            return dir;
    }
#ifdef AOTIDBG_TORCH_LIB_DIR
    /* the torch the runner was built with, when it is on this machine */
    snprintf(dir, sizeof dir, "%s", AOTIDBG_TORCH_LIB_DIR);
    if (has_libc10(dir))
        return dir;
#endif
    dir[0] = 0;
    /* find_spec locates torch without importing it (importing takes seconds). */
    FILE *f = popen("python3 -c 'import importlib.util as u,os;s=u.find_spec(\"torch\");"
                    "print(os.path.dirname(s.origin) if s and s.origin else \"\")' 2>/dev/null", "r");
    if (f) {
        char line[4000] = "";
        if (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = 0;
            if (line[0]) {
                snprintf(dir, sizeof dir, "%s/lib", line);
                if (!has_libc10(dir))
                    dir[0] = 0;
            }
        }
        pclose(f);
    }
    return dir[0] ? dir : NULL;
}

/* ---- helpers ---- */
static const char *basename_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "[2..64, 8]" for the compiled shape of an input. */
static void fmt_compiled_shape(strbuf *sb, const ws_input *in)
{
    strbuf_addch(sb, '[');
    for (int d = 0; d < in->ndim; d++) {
        if (d)
            strbuf_addstr(sb, ", ");
        if (in->dims[d] != WS_UNKNOWN && in->dim_min[d] == WS_UNKNOWN && in->dim_max[d] == WS_UNKNOWN) {
            strbuf_addf(sb, "%lld", (long long)in->dims[d]);
        } else {
            if (in->dim_min[d] != WS_UNKNOWN)
                strbuf_addf(sb, "%lld", (long long)in->dim_min[d]);
            strbuf_addstr(sb, "..");
            if (in->dim_max[d] != WS_UNKNOWN)
                strbuf_addf(sb, "%lld", (long long)in->dim_max[d]);
        }
    }
    strbuf_addch(sb, ']');
}

static void fmt_ints(strbuf *sb, const int64_t *v, int n)
{
    strbuf_addch(sb, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            strbuf_addstr(sb, ", ");
        if (v[i] == WS_UNKNOWN)
            strbuf_addch(sb, '*');
        else
            strbuf_addf(sb, "%lld", (long long)v[i]);
    }
    strbuf_addch(sb, ']');
}

/* ---- inputs ---- */
/* "w.cpp:LINE (check_input_N)" for the check at line, else the function's line. */
static const char *src_at(arena *a, const char *src, int line, const ws_input *w, size_t i)
{
    if (line)
        return arena_printf(a, "%s:%d (check_input_%zu)", src, line, i);
    if (w->line)
        return arena_printf(a, "%s:%d (check_input_%zu)", src, w->line, i);
    return src;
}

void checklist_inputs(checklist *cl, const wrapper_scan *ws, const char *src, const input_spec *in, size_t n,
                      const char *load_device)
{
    arena *a = &cl->arena;
    char id[96], subj[320], exp[128], got[128];
    snprintf(exp, sizeof exp, "%zu", ws->ninputs);
    snprintf(got, sizeof got, "%zu", n);
    add(cl, "input.count", n == ws->ninputs ? CHECK_PASS : CHECK_FAIL, "number of inputs", exp, got,
        arena_printf(a, "%s inputs_info_ / check_input_N", src),
        n == ws->ninputs ? NULL
        : n > ws->ninputs ? arena_printf(a, "remove %zu input(s) from the inputs spec: the model takes %zu",
                                         n - ws->ninputs, ws->ninputs)
                          : arena_printf(a, "add %zu input(s) to the inputs spec: the model takes %zu",
                                         ws->ninputs - n, ws->ninputs));
    devspec load = {"cpu", -1};
    if (load_device)
        parse_device(load_device, &load);
    size_t m = n < ws->ninputs ? n : ws->ninputs;
    strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
    for (size_t i = 0; i < m; i++) {
        const ws_input *w = &ws->inputs[i];
        const input_spec *s = &in[i];
        const char *nm = w->name ? w->name : "?";
        const char *where = w->line ? arena_printf(a, "%s:%d (check_input_%zu)", src, w->line, i) : src;
        const char *spec_src = arena_printf(a, "inputs spec item %zu", i);

        /* dtype */
        snprintf(id, sizeof id, "input.%zu.dtype", i);
        snprintf(subj, sizeof subj, "input %zu (%s) dtype", i, nm);
        if (!w->dtype)
            add(cl, id, CHECK_WARN, subj, NULL, s->dtype, where, "the package has no dtype check for this input; "
                "rebuild with a recent torch to get one");
        else
            add(cl, id, s->dtype && !strcmp(s->dtype, w->dtype) ? CHECK_PASS : CHECK_FAIL, subj, w->dtype,
                s->dtype ? s->dtype : "(none)", src_at(a, src, w->dtype_line, w, i),
                s->dtype && !strcmp(s->dtype, w->dtype) ? NULL
                : arena_printf(a, "set dtype: %s for input %zu in the inputs spec", w->dtype, i));

        /* device: type from the compiled check, index from the load device */
        snprintf(id, sizeof id, "input.%zu.device", i);
        snprintf(subj, sizeof subj, "input %zu (%s) device", i, nm);
        const char *sdev = s->device && *s->device ? s->device : load_device ? load_device : "cpu";
        devspec sd;
        int ok_parse = parse_device(sdev, &sd) == 0;
        const char *want_type = w->device ? w->device : load.type;
        const char *want = !strcmp(want_type, "cpu") ? "cpu"
                           : arena_printf(a, "%s:%d", want_type, load.index < 0 ? 0 : load.index);
        int dev_ok = ok_parse && !strcmp(sd.type, want_type) &&
                     (!strcmp(want_type, "cpu") || (sd.index < 0 ? 0 : sd.index) == (load.index < 0 ? 0 : load.index));
        add(cl, id, dev_ok ? CHECK_PASS : CHECK_FAIL, subj, want, sdev,
            w->device ? src_at(a, src, w->device_line, w, i) : "load device (--device)",
            dev_ok ? NULL : arena_printf(a, "set device: %s for input %zu (the model was compiled for %s and loads on %s)",
                                         want, i, want_type, load_device ? load_device : "cpu"));

        /* rank */
        snprintf(id, sizeof id, "input.%zu.rank", i);
        snprintf(subj, sizeof subj, "input %zu (%s) rank", i, nm);
        strbuf_reset(&sb);
        if (w->ndim >= 0)
            fmt_compiled_shape(&sb, w);
        if (w->ndim < 0) {
            add(cl, id, CHECK_WARN, subj, NULL, arena_printf(a, "%d", s->ndim), where,
                "the package does not record this input's rank");
            continue;
        }
        int rank_ok = s->ndim == w->ndim;
        add(cl, id, rank_ok ? CHECK_PASS : CHECK_FAIL, subj, arena_printf(a, "%d %s", w->ndim, sb.buf),
            arena_printf(a, "%d", s->ndim), where,
            rank_ok ? NULL : arena_printf(a, "give input %zu a shape of rank %d, like %s", i, w->ndim, sb.buf));
        if (!rank_ok)
            continue;

        /* every dim: static value or dynamic bounds */
        size_t dim_fails = cl->nrows;
        for (int d = 0; d < w->ndim; d++) {
            snprintf(id, sizeof id, "input.%zu.dim.%d", i, d);
            int64_t g = s->shape[d];
            int is_static = w->dims[d] != WS_UNKNOWN && w->dim_min[d] == WS_UNKNOWN && w->dim_max[d] == WS_UNKNOWN;
            if (is_static) {
                snprintf(subj, sizeof subj, "input %zu (%s) dim %d (static)", i, nm, d);
                snprintf(exp, sizeof exp, "%lld", (long long)w->dims[d]);
                snprintf(got, sizeof got, "%lld", (long long)g);
                add(cl, id, g == w->dims[d] ? CHECK_PASS : CHECK_FAIL, subj, exp, got, src_at(a, src, w->dim_line[d], w, i),
                    g == w->dims[d] ? NULL
                    : arena_printf(a, "dim %d of input %zu was compiled as the constant %lld: use %lld, or re-export "
                                   "with a torch.export.Dim for it", d, i, (long long)w->dims[d], (long long)w->dims[d]));
            } else {
                snprintf(subj, sizeof subj, "input %zu (%s) dim %d (dynamic%s%s)", i, nm, d,
                         w->dim_sym[d] ? " " : "", w->dim_sym[d] ? w->dim_sym[d] : "");
                strbuf_reset(&sb2);
                if (w->dim_min[d] != WS_UNKNOWN)
                    strbuf_addf(&sb2, ">= %lld", (long long)w->dim_min[d]);
                if (w->dim_max[d] != WS_UNKNOWN)
                    strbuf_addf(&sb2, "%s<= %lld", sb2.len ? ", " : "", (long long)w->dim_max[d]);
                if (!sb2.len)
                    strbuf_addstr(&sb2, "any size (no bounds compiled in)");
                snprintf(got, sizeof got, "%lld", (long long)g);
                int lo = w->dim_min[d] != WS_UNKNOWN && g < w->dim_min[d];
                int hi = w->dim_max[d] != WS_UNKNOWN && g > w->dim_max[d];
                add(cl, id, lo || hi ? CHECK_FAIL : CHECK_PASS, subj, sb2.buf, got, src_at(a, src, w->dim_line[d], w, i),
                    lo ? arena_printf(a, "dim %d of input %zu must be at least %lld (the export's Dim min); "
                                      "use a larger size or re-export with min=%lld", d, i,
                                      (long long)w->dim_min[d], (long long)g)
                    : hi ? arena_printf(a, "dim %d of input %zu must be at most %lld (the export's Dim max); "
                                        "use a smaller size or re-export with max=%lld", d, i,
                                        (long long)w->dim_max[d], (long long)g)
                         : NULL);
            }
        }

        /* strides: the spec's, or contiguous from its shape */
        int64_t gs[TENSOR_MAX_DIMS];
        if (s->has_strides) {
            memcpy(gs, s->strides, sizeof gs);
        } else {
            int64_t acc = 1;
            for (int d = s->ndim - 1; d >= 0; d--) {
                gs[d] = acc;
                acc *= s->shape[d] > 1 ? s->shape[d] : 1;
            }
        }
        int any_known = 0, bad = -1;
        for (int d = 0; d < w->ndim; d++)
            if (w->strides[d] != WS_UNKNOWN) {
                any_known = 1;
                if (w->strides[d] != gs[d] && bad < 0)
                    bad = d;
            }
        snprintf(id, sizeof id, "input.%zu.strides", i);
        snprintf(subj, sizeof subj, "input %zu (%s) strides%s", i, nm, s->has_strides ? "" : " (contiguous)");
        strbuf_reset(&sb);
        fmt_ints(&sb, w->strides, w->ndim);
        strbuf_reset(&sb2);
        fmt_ints(&sb2, gs, s->ndim);
        int shape_failed = 0;
        for (size_t r = dim_fails; r < cl->nrows; r++)
            shape_failed |= cl->rows[r].status == CHECK_FAIL;
        if (!any_known)
            add(cl, id, CHECK_PASS, subj, sb.buf, sb2.buf, where, NULL);
        else if (bad >= 0 && shape_failed && !s->has_strides)
            /* contiguous strides follow the wrong shape: one problem, one FAIL */
            add(cl, id, CHECK_INFO, subj, sb.buf, sb2.buf, where, "follows from the shape: fix the shape first");
        else
            add(cl, id, bad < 0 ? CHECK_PASS : CHECK_FAIL, subj, sb.buf, sb2.buf,
                arena_printf(a, "%s%s%s", src_at(a, src, w->stride_line, w, i), s->has_strides ? ", " : "",
                             s->has_strides ? spec_src : ""),
                bad < 0 ? NULL
                : arena_printf(a, "stride %d of input %zu must be %lld: pass a contiguous tensor (x.contiguous()) "
                               "or re-export with this layout", bad, i, (long long)w->strides[bad]));
    }
    strbuf_release(&sb);
    strbuf_release(&sb2);
}

/* ---- device rows ---- */
static void check_devices(checklist *cl, const package_t *p, const package_model *m, const char *req,
                          const wrapper_scan *ws, host_facts *hf, int hf_local)
{
    arena *a = &cl->arena;
    const char *meta_src = m->metadata_entry ? arena_printf(a, "metadata AOTI_DEVICE_KEY (%s)", basename_of(m->metadata_entry))
                                             : "no metadata";
    devspec load;
    const char *key = m->device_key && *m->device_key ? m->device_key : NULL;
    if (!key && ws && ws->ninputs && ws->inputs[0].device)
        key = ws->inputs[0].device;   /* old packages: the wrapper's device checks still say */
    if (!req && !key) {
        add(cl, "device.compile-vs-load", CHECK_FAIL, "compile device vs load device", "a device", "(none)",
            "no AOTI_DEVICE_KEY and no --device", "give --device cpu or --device cuda (the artifact does not "
            "record its device)");
        cl->device = "cpu";
        return;
    }
    const char *dev = req ? req : key;
    cl->device = arena_strdup(a, dev);
    if (parse_device(dev, &load) < 0) {
        add(cl, "device.compile-vs-load", CHECK_FAIL, "compile device vs load device", key, dev, "--device",
            "give --device as cpu, cuda or cuda:N");
        return;
    }
    if (!key)
        add(cl, "device.compile-vs-load", CHECK_WARN, "compile device vs load device", "(not recorded)", dev,
            "bare .so: no metadata", "repackage with torch._inductor.aoti_compile_and_package to record the device");
    else
        add(cl, "device.compile-vs-load", !strcmp(key, load.type) ? CHECK_PASS : CHECK_FAIL,
            "compile device vs load device", key, dev, m->device_key ? meta_src : "wrapper.cpp device checks",
            !strcmp(key, load.type) ? NULL
            : arena_printf(a, "load it with --device %s (a %s package on %s %s), or recompile the model for %s",
                           key, key, load.type, !strcmp(load.type, "cuda") ? "can corrupt the CUDA context" : "fails",
                           load.type));

    int want_cuda = !strcmp(load.type, "cuda") || (key && !strcmp(key, "cuda"));
    if (!want_cuda) {
        add(cl, "device.cuda-available", CHECK_INFO, "CUDA usable here", NULL, "not needed (cpu)", "load device",
            NULL);
    } else {
        if (hf_local)
            cuda_probe_run(&hf->cuda);   /* only when CUDA matters: cuInit takes a while */
        const cuda_probe cp = hf->cuda;
        int usable = cp.init_ok && cp.device_count > 0;
        const char *gotv = usable ? arena_printf(a, "driver %d.%d, %d device(s)", cp.driver_version / 1000,
                                                 (cp.driver_version % 1000) / 10, cp.device_count)
                                  : arena_printf(a, "%s", cp.error[0] ? cp.error : "0 devices");
        /* Only a CUDA load needs CUDA here; a CUDA package checked for a CPU load already FAILs above. */
        check_status st = usable ? CHECK_PASS : !strcmp(load.type, "cuda") ? CHECK_FAIL : CHECK_WARN;
        add(cl, "device.cuda-available", st, "CUDA usable here", "a CUDA driver and at least 1 device", gotv,
            "dlopen(libcuda.so.1), cuInit, cuDeviceGetCount",
            usable ? NULL : "run on a machine with an NVIDIA GPU and driver (check nvidia-smi), or use a CPU package");
        if (!strcmp(load.type, "cuda")) {
            int idx = load.index < 0 ? 0 : load.index;
            if (usable) {
                add(cl, "device.index", idx < cp.device_count ? CHECK_PASS : CHECK_FAIL, "requested GPU index exists",
                    arena_printf(a, "< %d", cp.device_count), arena_printf(a, "%d", idx), "cuDeviceGetCount",
                    idx < cp.device_count ? NULL
                                          : arena_printf(a, "use --device cuda:%d or lower (this machine has %d GPU(s))",
                                                         cp.device_count - 1, cp.device_count));
            } else {
                add(cl, "device.index", CHECK_WARN, "requested GPU index exists", NULL, arena_printf(a, "%d", idx),
                    "cuDeviceGetCount", "cannot check without a usable CUDA driver");
            }
            const char *pcc = m->compute_capability && *m->compute_capability ? m->compute_capability : NULL;
            if (!pcc) {
                add(cl, "device.compute-capability", CHECK_WARN, "GPU compute capability vs package", NULL, NULL,
                    "metadata AOTI_COMPUTE_CAPABILITY", "the package does not record its compute capability");
            } else if (!usable || idx >= cp.device_count || idx >= 16 || cp.cc_major[idx] < 0) {
                add(cl, "device.compute-capability", CHECK_WARN, "GPU compute capability vs package", pcc, NULL,
                    "metadata AOTI_COMPUTE_CAPABILITY", "cannot check without a usable GPU at that index");
            } else {
                int gmaj = cp.cc_major[idx], gmin = cp.cc_minor[idx];
                long pc = strtol(pcc, NULL, 10);
                int pmaj = (int)(pc / 10), pmin = (int)(pc % 10);
                check_status st2 = gmaj == pmaj && gmin == pmin ? CHECK_PASS
                                   : gmaj == pmaj && gmin > pmin ? CHECK_WARN : CHECK_FAIL;
                add(cl, "device.compute-capability", st2, "GPU compute capability vs package", pcc,
                    arena_printf(a, "%d%d", gmaj, gmin), "metadata AOTI_COMPUTE_CAPABILITY, cuDeviceGetAttribute",
                    st2 == CHECK_PASS ? NULL
                    : st2 == CHECK_WARN ? "newer minor version: cubins usually run; recompile on this GPU if kernels fail"
                                        : arena_printf(a, "recompile the package on a GPU with compute capability %d.%d "
                                                       "(this package's cubins are for sm_%s)", gmaj, gmin, pcc));
            }
        }
    }
}

/* Maps AOTI_CPU_ISA words to /proc/cpuinfo flags. */
static void check_cpu_isa(checklist *cl, const package_model *m, const char *load_type, const host_facts *hf)
{
    arena *a = &cl->arena;
    if (!m->cpu_isa || !*m->cpu_isa) {
        add(cl, "device.cpu-isa", CHECK_INFO, "CPU instruction set vs package", NULL, NULL, "metadata AOTI_CPU_ISA",
            NULL);
        return;
    }
    if (!hf->cpu_flags) {
        add(cl, "device.cpu-isa", CHECK_WARN, "CPU instruction set vs package", m->cpu_isa, NULL, "/proc/cpuinfo",
            "cannot read the flags of /proc/cpuinfo to compare");
        return;
    }
    char *line = arena_strdup(a, hf->cpu_flags);
    strbuf missing = STRBUF_INIT;
    char *isa = arena_strdup(a, m->cpu_isa);
    for (char *tok = strtok(isa, " ,"); tok; tok = strtok(NULL, " ,")) {
        char want[64];
        if (!strcmp(tok, "AVX512"))
            snprintf(want, sizeof want, "avx512f");
        else if (!strcmp(tok, "NEON") || !strcmp(tok, "SVE256") || !strcmp(tok, "ZVECTOR") || !strcmp(tok, "DEFAULT") ||
                 !strcmp(tok, "INVALID_VEC_ISA"))
            continue;   /* not x86 flags; INVALID_VEC_ISA: compiled with no vector ISA, runs anywhere */
        else {
            size_t k = 0;
            for (; tok[k] && k + 1 < sizeof want; k++)
                want[k] = (char)tolower((unsigned char)tok[k]);
            want[k] = 0;
        }
        int found = 0;
        char pat[80];
        snprintf(pat, sizeof pat, " %s", want);
        for (char *q = strstr(line, pat); q && !found; q = strstr(q + 1, pat))
            found = q[strlen(pat)] == ' ' || q[strlen(pat)] == 0;
        if (!found)
            strbuf_addf(&missing, "%s%s", missing.len ? " " : "", want);
    }
    if (missing.len)
        add(cl, "device.cpu-isa", !strcmp(load_type, "cpu") ? CHECK_FAIL : CHECK_WARN,
            "CPU instruction set vs package", m->cpu_isa, arena_printf(a, "missing %s", missing.buf),
            "metadata AOTI_CPU_ISA, /proc/cpuinfo flags",
            "recompile the package on this machine (its CPU code would stop with an illegal instruction)");
    else
        add(cl, "device.cpu-isa", CHECK_PASS, "CPU instruction set vs package", m->cpu_isa, "all present",
            "metadata AOTI_CPU_ISA, /proc/cpuinfo flags", NULL);
    strbuf_release(&missing);
}

/* ---- integrity ---- */
static int has_entry_base(const char **list, size_t n, const char *base)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(basename_of(list[i]), base))
            return 1;
    return 0;
}

static void check_cubins(checklist *cl, package_t *p, const package_model *m, const wrapper_scan *ws, const char *src)
{
    arena *a = &cl->arena;
    if (!ws) {
        add(cl, "package.cubins", CHECK_WARN, "every cubin the wrapper loads is present", NULL,
            arena_printf(a, "%zu cubin(s) in the archive", m->ncubins), "no wrapper.cpp",
            "cannot tell which cubins are needed without the wrapper.cpp");
        return;
    }
    strbuf miss = STRBUF_INIT;
    size_t nmiss = 0;
    int first_line = 0;
    for (size_t i = 0; i < ws->ncubins; i++) {
        int ok;
        if (p->is_bare_so) {
            char *path = arena_printf(a, "%s/%s", m->model_dir, ws->cubins[i].file);
            ok = access(path, R_OK) == 0;
        } else {
            ok = has_entry_base(m->cubin_entries, m->ncubins, ws->cubins[i].file);
        }
        if (!ok) {
            if (!nmiss)
                first_line = ws->cubins[i].line;
            if (nmiss < LIST_SHOWN)
                strbuf_addf(&miss, "%s%s", miss.len ? ", " : "", ws->cubins[i].file);
            nmiss++;
        }
    }
    if (nmiss > LIST_SHOWN)
        strbuf_addf(&miss, " and %zu more", nmiss - LIST_SHOWN);
    const char *exp = arena_printf(a, "%zu cubin(s) loaded by the wrapper%s", ws->ncubins,
                                   ws->nembedded_kernels ? arena_printf(a, ", %zu embedded in the .so",
                                                                        ws->nembedded_kernels) : "");
    if (nmiss)
        add(cl, "package.cubins", CHECK_FAIL, "every cubin the wrapper loads is present", exp,
            arena_printf(a, "missing %s", miss.buf), arena_printf(a, "%s:%d loadKernel", src, first_line),
            p->is_bare_so ? "put the cubins next to the .so (same folder), or repackage with aoti_compile_and_package"
                          : arena_printf(a, "the archive lacks them under %sdata/aotinductor/%s/: rebuild or recopy "
                                         "the package", p->root, m->name));
    else
        add(cl, "package.cubins", CHECK_PASS, "every cubin the wrapper loads is present", exp,
            arena_printf(a, "%zu present", ws->ncubins), src, NULL);
    strbuf_release(&miss);
}

/* The weights in whichever form the package carries them (weights.h): present,
 * of the size the model's constants need, readable; a form torch itself
 * cannot run without the caller's help is a FAIL saying so. */
static void check_weights(checklist *cl, package_t *p, const package_model *m, const wrapper_scan *ws)
{
    arena *a = &cl->arena;
    weights_plan wp;
    strbuf e = STRBUF_INIT;
    weights_plan_read(p, m, ws, a, &wp, &e);
    strbuf_release(&e);
    const char *subject = "weights present, of the size the model needs, readable";
    int no_so = wp.form == WEIGHTS_IN_SO && !m->so_entry;   /* package_cpp_only: the .so is still to be built */
    const char *want = arena_printf(a, "%zu weight(s), %llu bytes (%s)", wp.nconstants, (unsigned long long)wp.bytes,
                                    no_so ? "in the .so its CMakeLists.txt builds" : weights_form_name(wp.form));
    const char *src = wp.form == WEIGHTS_BLOB ? wp.blob_entry : ws ? "wrapper.cpp constants_info_" : p->path;
    if (wp.problem) {
        add(cl, "package.weights", CHECK_FAIL, subject, want, wp.problem, src, wp.fix);
        return;
    }
    const char *got;
    switch (wp.form) {
    case WEIGHTS_BLOB:
        got = arena_printf(a, "%s: %llu bytes (the model needs %llu)", basename_of(wp.blob_entry),
                           (unsigned long long)wp.blob_have, (unsigned long long)wp.blob_need);
        break;
    case WEIGHTS_PICKLE:
        got = arena_printf(a, "%zu file(s) under data/weights/, all there and readable (torch loads them only with "
                           "load_pt2(load_weights_from_disk=True); aotidbg hands them to the model as it does)",
                           wp.nrefs);
        break;
    case WEIGHTS_IN_SO:   /* package_cpp_only: no .so yet, the weights go into the one its CMakeLists.txt builds */
        got = m->so_entry ? "embedded in the .so"
                          : "to be embedded in the .so its CMakeLists.txt builds (package_cpp_only: no .so yet)";
        break;
    case WEIGHTS_NO_CONSTANTS: got = "the model has no weights"; break;
    default: got = "unknown (no wrapper.cpp to read)"; break;
    }
    add(cl, "package.weights", wp.form == WEIGHTS_UNKNOWN ? CHECK_WARN : CHECK_PASS, subject, want, got, src,
        wp.form == WEIGHTS_UNKNOWN ? "rebuild with aoti_compile_and_package (the package then says)" : NULL);
}

/* Schema type of a serialized export argument: {"as_tensor": ...} -> "Tensor". */
static const char *arg_type(const cJSON *arg)
{
    static const char *const map[][2] = {
        {"as_tensor", "Tensor"}, {"as_tensors", "Tensor[]"}, {"as_optional_tensors", "Tensor?[]"},
        {"as_optional_tensor", "Tensor?"}, {"as_int", "int"}, {"as_ints", "int[]"}, {"as_float", "float"},
        {"as_floats", "float[]"}, {"as_bool", "bool"}, {"as_bools", "bool[]"}, {"as_string", "str"},
        {"as_strings", "str[]"}, {"as_sym_int", "SymInt"}, {"as_sym_ints", "SymInt[]"},
        {"as_scalar_type", "ScalarType"}, {"as_device", "Device"}, {"as_memory_format", "MemoryFormat"},
        {"as_layout", "Layout"}, {"as_none", "None"}, {"as_sym_float", "SymFloat"}, {"as_sym_bool", "SymBool"},
    };
    const cJSON *c = arg && cJSON_IsObject(arg) ? arg->child : NULL;
    if (!c || !c->string)
        return "?";
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(c->string, map[i][0]))
            return map[i][1];
    return c->string;
}

static void check_custom_ops(checklist *cl, package_t *p, const package_model *m, const wrapper_scan *ws)
{
    arena *a = &cl->arena;
    size_t calls = ws ? ws->nproxy_calls : 0;
    if (!m->proxy_json_entry) {
        if (calls)
            add(cl, "package.custom-ops", CHECK_FAIL, "custom ops for the proxy executor",
                "<key>.wrapper.json with the op schemas", "missing",
                arena_printf(a, "wrapper.cpp: %zu proxy-executor call(s)", calls),
                "the package lacks <key>.wrapper.json: rebuild it with aoti_compile_and_package");
        else
            add(cl, "package.custom-ops", CHECK_PASS, "custom ops for the proxy executor", NULL, "none needed",
                "wrapper.cpp", NULL);
        return;
    }
    strbuf sb = STRBUF_INIT, e = STRBUF_INIT, list = STRBUF_INIT;
    if (package_read_entry(p, m->proxy_json_entry, JSON_MAX_BYTES, &sb, &e) < 0) {
        add(cl, "package.custom-ops", CHECK_FAIL, "custom ops for the proxy executor", NULL, e.buf,
            m->proxy_json_entry, "rebuild or recopy the package");
        goto out;
    }
    cJSON *j = cJSON_ParseWithLength(sb.buf, sb.len);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
    if (!cJSON_IsArray(nodes)) {
        add(cl, "package.custom-ops", CHECK_FAIL, "custom ops for the proxy executor", "{\"nodes\": [...]}",
            "unparseable", m->proxy_json_entry, "rebuild or recopy the package");
        cJSON_Delete(j);
        goto out;
    }
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, nodes)
    {
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(it, "node");
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(node, "target");
        if (!cJSON_IsString(target))
            continue;
        if (n < LIST_SHOWN) {
            strbuf_addf(&list, "%s%s(", list.len ? "; " : "", target->valuestring);
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(node, "inputs"), *arg;
            int k = 0;
            cJSON_ArrayForEach(arg, args)
            {
                const cJSON *an = cJSON_GetObjectItemCaseSensitive(arg, "name");
                if (!cJSON_IsString(an) || k++ >= 16)
                    continue;
                strbuf_addf(&list, "%s%s %s", k > 1 ? ", " : "",
                            arg_type(cJSON_GetObjectItemCaseSensitive(arg, "arg")), an->valuestring);
            }
            strbuf_addch(&list, ')');
            const cJSON *outs = cJSON_GetObjectItemCaseSensitive(node, "outputs"), *o;
            int no = cJSON_GetArraySize(outs);
            if (no > 0) {
                strbuf_addstr(&list, no > 1 ? " -> (" : " -> ");
                k = 0;
                cJSON_ArrayForEach(o, outs)
                {
                    if (k++ < 16)
                        strbuf_addf(&list, "%s%s", k > 1 ? ", " : "", arg_type(o));
                }
                if (no > 1)
                    strbuf_addch(&list, ')');
            }
        }
        n++;
    }
    if (n > LIST_SHOWN)
        strbuf_addf(&list, "; and %zu more", n - LIST_SHOWN);
    cJSON_Delete(j);
    add(cl, "package.custom-ops", CHECK_INFO, "custom ops for the proxy executor",
        "each op registered in this process (load its library before running)",
        n ? list.buf : "none listed", m->proxy_json_entry,
        n ? "import or torch.ops.load_library the library that defines these ops before loading the model" : NULL);
out:
    strbuf_release(&sb);
    strbuf_release(&e);
    strbuf_release(&list);
}

/* The .so's undefined symbols, from its dynamic tables alone: the extracted
 * file when there is one, else the archive entry read in pieces. */
static int undefined_syms(package_t *p, const package_model *m, elf_symlist *und, strbuf *e)
{
    if (m->so_path)
        return elf_syms_undefined_file(und, m->so_path, e);
    package_entry *pe;
    uint64_t size;
    if (package_entry_open(p, m->so_entry, &pe, &size, e) < 0)
        return -1;
    int rc = elf_syms_undefined_read(und, package_entry_read_at, pe, size, basename_of(m->so_entry), e);
    package_entry_close(pe);
    return rc;
}

/* The model's .so reads back whole, with the CRC-32 the archive records (a
 * damaged copy otherwise passes every row and fails only when extracted). */
static void check_so_intact(checklist *cl, package_t *p, const package_model *m)
{
    if (!m->so_entry || p->is_bare_so)
        return;
    strbuf e = STRBUF_INIT;
    const char *subject = "the model .so reads back whole (CRC-32 checked; weights entries not read)";
    if (package_entry_intact(p, m->so_entry, &e) < 0)
        add(cl, "package.so-intact", CHECK_FAIL, subject, "the CRC-32 the archive records", arena_strdup(&cl->arena, e.buf),
            m->so_entry, "the package is damaged: copy it again or rebuild it");
    else
        add(cl, "package.so-intact", CHECK_PASS, subject, NULL, "CRC-32 matches", m->so_entry, NULL);
    strbuf_release(&e);
}

static void check_symbols(checklist *cl, package_t *p, const package_model *m, const char *torch_lib,
                          const host_facts *remote)
{
    arena *a = &cl->arena;
    const char *subject = "symbols the .so needs from libtorch";
    if (!m->so_entry)
        return;   /* package.so already FAILs */
    if (remote) {   /* --remote: the runner there loaded the .so against its libtorch */
        const char *host = remote->hostname[0] ? remote->hostname : "the remote box";
        if (!remote->so_checked)
            add(cl, "package.symbols", CHECK_INFO, subject, NULL,
                arena_printf(a, "checked when the runner loads it on %s", host), NULL,
                "aotidbg check --remote loads it beforehand");
        else
            add(cl, "package.symbols", remote->so_error[0] ? CHECK_FAIL : CHECK_PASS, subject,
                "the .so loads against the runner's libtorch",
                remote->so_error[0] ? arena_strdup(a, remote->so_error) : "loads (dlopen RTLD_NOW)",
                arena_printf(a, "dlopen on %s (%s)", host, remote->runner),
                remote->so_error[0] ? "the package was built against another torch: rebuild it with the torch on "
                                      "that box, or build the runner there against the torch it was built with"
                                    : NULL);
        return;
    }
    if (torch_lib && !strcmp(torch_lib, "none")) {
        add(cl, "package.symbols", CHECK_INFO, subject, NULL, "not checked (--torch-lib none)", NULL, NULL);
        return;
    }
    const char *dir = torch_lib ? torch_lib : checklist_torch_lib_dir();
    if (!dir) {
        add(cl, "package.symbols", CHECK_WARN, subject, NULL, "no local libtorch found", "TORCH_DIR, python3 torch",
            "set TORCH_DIR or --torch-lib to the folder holding libtorch_cpu.so to check symbols");
        return;
    }
    strbuf e = STRBUF_INIT, miss = STRBUF_INIT;
    elf_symlist und = ELF_SYMLIST_INIT, want = ELF_SYMLIST_INIT;
    unsigned char *found = NULL;
    if (undefined_syms(p, m, &und, &e) < 0) {
        add(cl, "package.symbols", CHECK_FAIL, subject, "a readable shared library", e.buf, m->so_entry,
            "rebuild or recopy the package");
        goto out;
    }
    /* the torch names the .so needs; each library marks those it exports */
    for (size_t i = 0; i < und.n; i++)
        if (elf_sym_is_torch(und.names[i]))
            elf_symlist_add(&want, und.names[i]);
    found = xcalloc(want.n ? want.n : 1, 1);
    DIR *dd = opendir(dir);
    size_t nlibs = 0;
    if (dd) {
        struct dirent *de;
        while ((de = readdir(dd)) != NULL) {
            const char *n = de->d_name;
            size_t l = strlen(n);
            if ((!starts_with(n, "libtorch") && !starts_with(n, "libc10")) || l < 4 || strcmp(n + l - 3, ".so"))
                continue;
            char *path = arena_printf(a, "%s/%s", dir, n);
            strbuf e2 = STRBUF_INIT;
            if (elf_syms_mark_exported(path, &want, found, &e2) == 0)
                nlibs++;
            strbuf_release(&e2);
        }
        closedir(dd);
    }
    if (!nlibs) {
        add(cl, "package.symbols", CHECK_WARN, subject, NULL, arena_printf(a, "no libtorch*.so / libc10*.so in %s", dir),
            dir, "set TORCH_DIR or --torch-lib to the folder holding libtorch_cpu.so");
        goto out;
    }
    size_t ntorch = 0, nmiss = 0;
    for (size_t i = 0; i < und.n; i++) {   /* in the .so's order */
        if (!elf_sym_is_torch(und.names[i]))
            continue;
        ntorch++;
        long k = elf_symlist_index(&want, und.names[i]);
        if (k < 0 || !found[k]) {
            if (nmiss < LIST_SHOWN)
                strbuf_addf(&miss, "%s%s", miss.len ? ", " : "", und.names[i]);
            nmiss++;
        }
    }
    if (nmiss > LIST_SHOWN)
        strbuf_addf(&miss, " and %zu more", nmiss - LIST_SHOWN);
    add(cl, "package.symbols", nmiss ? CHECK_FAIL : CHECK_PASS, subject,
        arena_printf(a, "%zu torch symbol(s) exported by %s", ntorch, dir),
        nmiss ? arena_printf(a, "missing %s", miss.buf) : "all exported",
        arena_printf(a, "%s .dynsym vs %zu libtorch/libc10 libraries", basename_of(m->so_entry), nlibs),
        nmiss ? "the package was built against another torch: rebuild it with this torch, or run with the torch "
                "it was built with (set TORCH_DIR)" : NULL);
out:
    free(found);
    elf_symlist_free(&und);
    elf_symlist_free(&want);
    strbuf_release(&e);
    strbuf_release(&miss);
}

/* Kernel launches the printer does not reach (torch.cond / while_loop
 * subgraphs, proxy-executor calls): how many, and what aotidbg does about them. */
static void check_hidden_kernels(checklist *cl, package_t *p, const package_model *m, const wrapper_scan *ws,
                                 const char *src)
{
    if (!ws || ws->printer_level <= 0 || !m->wrapper_cpp_entry) return;
    strbuf text = STRBUF_INIT, e = STRBUF_INIT;
    reinstrument_stats st = {0};
    int ok = package_read_entry(p, m->wrapper_cpp_entry, WS_MAX_BYTES, &text, &e) == 0 &&
             reinstrument_source(text.buf, text.len, NULL, NULL, &st, &e) == 0;
    strbuf_release(&text);
    strbuf_release(&e);
    if (!ok || !st.launches) return;
    arena *a = &cl->arena;
    strbuf why = STRBUF_INIT;
    reinstrument_hidden_why(&st, &why);
    add(cl, "package.hidden-kernels", CHECK_INFO, "kernel launches the printer does not reach",
        arena_printf(a, "%zu launch(es) hooked by the printer", st.printer),
        arena_printf(a, "%zu more it does not reach: %s", st.launches, why.buf),
        src,
        "aotidbg run re-instruments a copy that hooks them too (the default on CPU); with --no-reinstrument they "
        "stay hidden (on CUDA, launch interposition still names the Triton ones, without tensors)");
    strbuf_release(&why);
}

/* "2.13" of "2.13.0+cu130" into mm (both must read major.minor). */
static int major_minor(const char *v, char *mm, size_t n)
{
    int a, b;
    if (!v || sscanf(v, "%d.%d", &a, &b) != 2) return -1;
    snprintf(mm, n, "%d.%d", a, b);
    return 0;
}

/* The torch that built the package (when it says) against the one that runs it:
 * AOTI's C ABI is only promised within one torch release. */
static void check_torch_version(checklist *cl, const package_model *m, const char *torch_lib, const host_facts *remote)
{
    arena *a = &cl->arena;
    const char *subject = "torch that built the package vs the torch that runs it";
    char here[64] = "", src[4300] = "";
    if (remote) {   /* "aotidbg-runner 0.1.0 (protocol 2, torch 2.11.0)" */
        const char *t = strstr(remote->runner, "torch ");
        if (t) snprintf(here, sizeof here, "%.*s", (int)strcspn(t + 6, ") "), t + 6);
        snprintf(src, sizeof src, "the runner on %s", remote->hostname[0] ? remote->hostname : "the remote box");
    } else {
        const char *dir = torch_lib && strcmp(torch_lib, "none") ? torch_lib : checklist_torch_lib_dir();
        char path[4200];
        FILE *f = NULL;
        if (dir) {
            snprintf(path, sizeof path, "%s/../version.py", dir);
            f = fopen(path, "r");
        }
        char line[256];
        while (f && fgets(line, sizeof line, f)) {
            char *q = strchr(line, '\''), *e = q ? strchr(q + 1, '\'') : NULL;
            if (starts_with(line, "__version__") && q && e) snprintf(here, sizeof here, "%.*s", (int)(e - q - 1), q + 1);
        }
        if (f) fclose(f);
        if (dir) snprintf(src, sizeof src, "%s/../version.py", dir);
    }
    const char *here_v = here[0] ? arena_strdup(a, here) : NULL;
    if (!m->torch_version) {
        add(cl, "package.torch-version", CHECK_INFO, subject, here_v ? arena_printf(a, "torch %s", here_v) : NULL,
            "not recorded (torch writes no version into a package)", m->metadata_entry,
            "package.symbols checks the .so against this libtorch; packages rebuilt with "
            "core/prepare/aotidbg_prepare.py record AOTI_TORCH_VERSION in their metadata");
        return;
    }
    char want[32], got[32];
    if (!here_v || major_minor(m->torch_version, want, sizeof want) || major_minor(here_v, got, sizeof got)) {
        add(cl, "package.torch-version", CHECK_INFO, subject, arena_printf(a, "torch %s", m->torch_version),
            here_v ? arena_printf(a, "torch %s", here_v) : "no torch found here to compare", m->metadata_entry, NULL);
        return;
    }
    int same = !strcmp(want, got);
    add(cl, "package.torch-version", same ? CHECK_PASS : CHECK_WARN, subject,
        arena_printf(a, "torch %s (built by)", m->torch_version), arena_printf(a, "torch %s (%s)", here_v, src),
        m->metadata_entry,
        same ? NULL
             : arena_printf(a, "AOTI packages are only promised to run on the torch release that built them: run it "
                               "with torch %s (pip install \"torch==%s.*\"), or rebuild it with torch %s "
                               "(core/prepare/aotidbg_prepare.py EXPORTED.pt2 -o NEW.pt2)", want, want, got));
}

static void check_flags(checklist *cl, const wrapper_scan *ws, const char *src, const host_facts *hf, int blocking,
                        int cuda)
{
    arena *a = &cl->arena;
    if (ws) {
        static const char *const what[] = {
            "none: no kernel stepping (rebuild with aot_inductor.debug_intermediate_value_printer=\"1\")",
            "1: tensors saved around every kernel (stepping, inspector)",
            "2: tensors printed around every kernel (stepping by kernel name; values only in the log)",
            "3: kernel names printed only (stepping by name, no tensors)"};
        int lvl = ws->printer_level >= 0 && ws->printer_level <= 3 ? ws->printer_level : 0;
        add(cl, "flag.printer-level", lvl == 1 ? CHECK_PASS : CHECK_WARN, "intermediate-value printer compiled in",
            "1", what[lvl], src,
            lvl == 1 ? NULL
                     : "rebuild with inductor_configs={\"aot_inductor.debug_intermediate_value_printer\": \"1\"} to step "
                       "kernels and inspect tensors");
        add(cl, "flag.nan-asserts", CHECK_INFO, "NaN/Inf asserts compiled in", NULL,
            ws->nan_asserts ? "yes: the run stops at the first NaN/Inf buffer" : "no",
            ws->nan_asserts ? arena_printf(a, "%s:%d", src, ws->nan_assert_line) : src,
            ws->nan_asserts ? NULL : "rebuild with TORCHINDUCTOR_NAN_ASSERTS=1 to stop at the first NaN/Inf buffer");
    }
    static const struct { const char *name, *what; int cuda_only; } envs[HOST_NENV] = {   /* host_env_names' order */
        {"AOTI_RUNTIME_CHECK_INPUTS", "the model checks input dtype/shape/stride/device itself at run time", 0},
        {"CUDA_LAUNCH_BLOCKING", "kernel launches block, so errors name the failing kernel", 1},
        {"PYTORCH_NO_CUDA_MEMORY_CACHING", "no caching allocator: out-of-bounds accesses fault sooner", 1},
    };
    for (size_t i = 0; i < HOST_NENV; i++) {
        const char *v = hf->env[i];
        int on = v && *v && strcmp(v, "0");
        if (envs[i].cuda_only && !cuda) {   /* a CPU run launches no CUDA kernel: nothing to set */
            if (on)
                add(cl, arena_printf(a, "flag.%s", envs[i].name), CHECK_INFO, envs[i].name, NULL,
                    arena_printf(a, "%s: no effect (the run is on %s)", v, cl->device), "environment", NULL);
            continue;
        }
        if (!on && blocking && !strcmp(envs[i].name, "CUDA_LAUNCH_BLOCKING")) {
            add(cl, "flag.CUDA_LAUNCH_BLOCKING", CHECK_INFO, envs[i].name, NULL,
                "unset; the run blocks after each launch itself (--blocking), so errors name the failing kernel",
                "environment", NULL);
            continue;
        }
        add(cl, arena_printf(a, "flag.%s", envs[i].name), CHECK_INFO, envs[i].name, NULL,
            on ? arena_printf(a, "%s: %s", v, envs[i].what) : "unset", "environment",
            on ? NULL : arena_printf(a, "set %s=1 (or run with --deterministic): %s", envs[i].name, envs[i].what));
    }
}

/* "a, b, c": the models of the package. */
static const char *models_list(arena *a, const package_t *p)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < p->nmodels; i++)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", p->models[i].name);
    const char *r = arena_strdup(a, sb.buf ? sb.buf : "");
    strbuf_release(&sb);
    return r;
}

int checklist_run(checklist *cl, package_t *p, const checklist_opts *o, strbuf *err)
{
    arena *a = &cl->arena;
    strbuf e = STRBUF_INIT;
    package_model *m = package_find_model(p, o->model, &e);
    if (!m) {
        add(cl, "package.model", CHECK_FAIL, "model in the package", o->model ? o->model : "model", e.buf,
            "data/aotinductor/", arena_printf(a, "rerun with --model NAME, NAME one of: %s",
                                              models_list(a, p)));
        strbuf_release(&e);
        return 0;
    }
    if (p->is_bare_so)
        add(cl, "artifact.api", CHECK_WARN, "artifact API", ".pt2 from torch._inductor.aoti_compile_and_package",
            "bare .so (deprecated torch._export.aot_compile)", p->path,
            "repackage: ep = torch.export.export(model, inputs); "
            "torch._inductor.aoti_compile_and_package(ep, package_path=\"model.pt2\") (records the device)");
    else
        add(cl, "artifact.api", CHECK_PASS, "artifact API", ".pt2 from torch._inductor.aoti_compile_and_package",
            arena_printf(a, ".pt2, model '%s'", m->name), p->path, NULL);

    /* integrity: .so, metadata, wrapper.cpp */
    const char *mdir = arena_printf(a, "%sdata/aotinductor/%s/", p->root, m->name);
    strbuf cpp = STRBUF_INIT;
    if (!m->so_entry && m->cmake_entry)
        package_cpp_only_help(p, m, &cpp);
    add(cl, "package.so", m->so_entry ? CHECK_PASS : CHECK_FAIL, "model shared library",
        arena_printf(a, "%s<key>.wrapper.so", mdir),
        m->so_entry ? m->so_entry : m->cmake_entry ? "missing: sources and CMakeLists.txt only (package_cpp_only)"
                                                   : "missing", p->path,
        m->so_entry ? NULL : m->cmake_entry ? arena_strdup(a, cpp.buf)
                                            : "the archive has no .so for this model: rebuild or recopy the package");
    strbuf_release(&cpp);
    if (!p->is_bare_so)
        add(cl, "package.metadata", m->metadata_entry ? CHECK_PASS : CHECK_FAIL, "package metadata",
            arena_printf(a, "%s<key>.wrapper_metadata.json", mdir), m->metadata_entry ? m->metadata_entry : "missing",
            p->path,
            m->metadata_entry ? NULL : "the archive has no <key>.wrapper_metadata.json (device unknown): rebuild it "
                                       "with torch._inductor.aoti_compile_and_package, or give --device");
    wrapper_scan ws_store, *ws = NULL;
    memset(&ws_store, 0, sizeof ws_store);   /* freed on every path, read or not */
    const char *src = "wrapper.cpp";
    if (m->wrapper_cpp_entry) {
        strbuf text = STRBUF_INIT;
        strbuf_reset(&e);
        if (package_read_entry(p, m->wrapper_cpp_entry, WS_MAX_BYTES, &text, &e) == 0 &&
            wrapper_scan_text(&ws_store, text.buf, text.len, &e) == 0) {
            ws = &ws_store;
            src = arena_strdup(a, basename_of(m->wrapper_cpp_entry));
            add(cl, "package.wrapper-cpp", CHECK_PASS, "generated wrapper.cpp (compiled input specs)", NULL,
                arena_printf(a, "%zu inputs, %zu kernel launches", ws->ninputs, ws->nkernels), m->wrapper_cpp_entry,
                NULL);
        } else {
            wrapper_scan_free(&ws_store);
            add(cl, "package.wrapper-cpp", CHECK_WARN, "generated wrapper.cpp (compiled input specs)", NULL, e.buf,
                m->wrapper_cpp_entry, "input checks are skipped");
        }
        strbuf_release(&text);
    } else {
        add(cl, "package.wrapper-cpp", CHECK_WARN, "generated wrapper.cpp (compiled input specs)",
            "<key>.wrapper.cpp", "missing", p->path,
            "input dtype/shape checks need the wrapper.cpp: rebuild with aoti_compile_and_package");
    }

    /* The box the model runs on: given (--remote), or this one, probed as needed. */
    host_facts local_hf;
    host_facts *hf = (host_facts *)o->host;
    if (!hf) {
        memset(&local_hf, 0, sizeof local_hf);
        hf = &local_hf;
        for (int i = 0; i < HOST_NENV; i++) {
            const char *v = getenv(host_env_names[i]);
            snprintf(hf->env[i], sizeof hf->env[i], "%s", v ? v : "");
        }
    }
    host_facts hf_copy = *hf;   /* check_devices may probe CUDA into a local one */
    check_devices(cl, p, m, o->device, ws, &hf_copy, !o->host);
    devspec load = {"cpu", -1};
    parse_device(cl->device, &load);
    if (!o->host && m->cpu_isa && *m->cpu_isa)
        hf_copy.cpu_flags = host_cpu_flags_read();
    check_cpu_isa(cl, m, load.type, &hf_copy);
    if (!o->host)
        free(hf_copy.cpu_flags);

    if (!o->inputs) {
        add(cl, "input.spec", CHECK_INFO, "inputs checked against the compiled spec", "an inputs spec (--inputs)",
            "none given", ws ? src : NULL, "give --inputs SPEC.yaml to check each input's dtype, shape and device");
    } else if (ws) {
        checklist_inputs(cl, ws, src, o->inputs, o->ninputs, cl->device);
    } else {
        add(cl, "input.spec", CHECK_WARN, "inputs checked against the compiled spec", NULL, "no wrapper.cpp to read",
            NULL, "inputs cannot be checked before the run");
    }

    check_cubins(cl, p, m, ws, src);
    check_weights(cl, p, m, ws);
    check_custom_ops(cl, p, m, ws);
    check_so_intact(cl, p, m);
    check_symbols(cl, p, m, o->torch_lib, o->host);
    check_torch_version(cl, m, o->torch_lib, o->host);
    check_hidden_kernels(cl, p, m, ws, src);
    check_flags(cl, ws, src, &hf_copy, o->blocking, !strcmp(load.type, "cuda"));
    if (ws)
        wrapper_scan_free(ws);
    strbuf_release(&e);
    (void)err;
    return 0;
}

void checklist_to_session(const checklist *cl, session *s)
{
    arena *a = &s->arena;
    check_row *rows = arena_alloc(a, (cl->nrows ? cl->nrows : 1) * sizeof *rows);
    for (size_t i = 0; i < cl->nrows; i++) {
        const check_row *r = &cl->rows[i];
        rows[i].id = arena_strdup(a, r->id);
        rows[i].status = r->status;
        rows[i].subject = arena_strdup(a, r->subject);
        rows[i].expected = arena_strdup(a, r->expected);
        rows[i].got = arena_strdup(a, r->got);
        rows[i].source = arena_strdup(a, r->source);
        rows[i].fix = arena_strdup(a, r->fix);
    }
    s->checks = rows;
    s->nchecks = cl->nrows;
}

void checklist_format_text(const checklist *cl, strbuf *out)
{
    for (size_t i = 0; i < cl->nrows; i++) {
        const check_row *r = &cl->rows[i];
        strbuf_addf(out, "%-4s  %-28s %s\n", check_status_name(r->status), r->id, r->subject);
        if (r->expected || r->got) {
            strbuf_addstr(out, "      ");
            if (r->expected)
                strbuf_addf(out, "expected: %s", r->expected);
            if (r->got)
                strbuf_addf(out, "%sgot: %s", r->expected ? "   " : "", r->got);
            strbuf_addch(out, '\n');
        }
        if (r->source && *r->source)
            strbuf_addf(out, "      source: %s\n", r->source);
        if (r->fix && r->status != CHECK_PASS)
            strbuf_addf(out, "      fix: %s\n", r->fix);
    }
    strbuf_addf(out, "%zu passed, %zu warnings, %zu failed, %zu info\n", checklist_count(cl, CHECK_PASS),
                checklist_count(cl, CHECK_WARN), checklist_count(cl, CHECK_FAIL), checklist_count(cl, CHECK_INFO));
}

static void yaml_field(strbuf *out, const char *k, const char *v)
{
    if (!v)
        return;
    strbuf_addf(out, "    %s: ", k);
    strbuf_add_yaml_quoted(out, v);
    strbuf_addch(out, '\n');
}

void checklist_format_yaml(const checklist *cl, strbuf *out)
{
    strbuf_addstr(out, "checks:\n");
    for (size_t i = 0; i < cl->nrows; i++) {
        const check_row *r = &cl->rows[i];
        strbuf_addstr(out, "  - id: ");
        strbuf_add_yaml_quoted(out, r->id);
        strbuf_addf(out, "\n    status: %s\n", check_status_name(r->status));
        yaml_field(out, "subject", r->subject);
        yaml_field(out, "expected", r->expected);
        yaml_field(out, "got", r->got);
        yaml_field(out, "source", r->source);
        yaml_field(out, "fix", r->fix);
    }
    strbuf_addf(out, "summary: {pass: %zu, warn: %zu, fail: %zu, info: %zu}\n", checklist_count(cl, CHECK_PASS),
                checklist_count(cl, CHECK_WARN), checklist_count(cl, CHECK_FAIL), checklist_count(cl, CHECK_INFO));
}
