/* cmd_info.c — `aotidbg info PKG [--model NAME] [--calls] [--sha256]`: what the package holds.
 * Prints the root, models, device metadata, the .so, wrapper.cpp, cubins,
 * weights, and from the wrapper.cpp the compiled inputs (name, dtype, shape
 * with dynamic bounds), printer level and kernel count; the provenance of its
 * kernel calls (provenance.h), each call with --calls.
 * Exit: 0 shown, 2 bad usage or a package that cannot be read (message says why). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "package.h"
#include "reinstrument.h"
#include "provenance.h"
#include "stack_trace.h"
#include "wrapper_scan.h"
#include "compat.h"

const opt_spec info_option_specs[] = {
    {"--calls", NULL, "every kernel call with where it comes from: the user's source line\n"
     "(kernel_information.json, when the package was compiled with\n"
     "trace.provenance_tracking_level 1), graph nodes, ATen ops, weights", offsetof(info_options, calls), NULL,
     1, 0},
    {NULL},
};

static const char *or_none(const char *s) { return s && *s ? s : "(none)"; }

static void print_shape(const ws_input *in)
{
    if (in->ndim < 0) {
        fputs("?", stdout);
        return;
    }
    putchar('[');
    for (int d = 0; d < in->ndim; d++) {
        if (d)
            fputs(", ", stdout);
        int dyn = in->dims[d] == WS_UNKNOWN || in->dim_min[d] != WS_UNKNOWN || in->dim_max[d] != WS_UNKNOWN;
        if (!dyn) {
            printf("%lld", (long long)in->dims[d]);
            continue;
        }
        if (in->dim_sym[d])
            printf("%s:", in->dim_sym[d]);
        if (in->dim_min[d] != WS_UNKNOWN)
            printf("%lld", (long long)in->dim_min[d]);
        fputs("..", stdout);
        if (in->dim_max[d] != WS_UNKNOWN)
            printf("%lld", (long long)in->dim_max[d]);
    }
    putchar(']');
}

/* Prints a list ("  label: a, b, c\n"); nothing when empty. */
static void print_list(const char *label, size_t n, const char *const *v)
{
    if (!n)
        return;
    printf("      %s: ", label);
    for (size_t i = 0; i < n; i++)
        printf(i ? ", %s" : "%s", v[i]);
    putchar('\n');
}

static void show_calls(const session *s)
{
    for (size_t i = 0; i < s->prov.ncalls; i++) {
        const kernel_call *c = &s->prov.calls[i];
        printf("    %zu %s", i, c->kernel);
        if (c->handle)
            printf(" (%s)", c->handle);
        if (c->line)
            printf(" wrapper.cpp:%lld", (long long)c->line);
        putchar('\n');
        st_frame f[16];
        size_t n = kernel_call_sites(c, f, 16);
        for (size_t j = 0; j < n; j++)
            printf("      at %.*s:%lld%s%.*s%s%.*s\n", f[j].file_len, f[j].file, (long long)f[j].line,
                   f[j].func_len ? " in " : "", f[j].func_len, f[j].func, f[j].code_len ? ": " : "",
                   f[j].code_len, f[j].code);
        size_t nn;
        const char *which;
        const char *const *nodes = kernel_call_nodes(c, &nn, &which);
        print_list(which ? which : "nodes", nn, nodes);
        print_list("aten", c->naten, c->aten);
        print_list("weights", c->nparams, c->params);
    }
}

/* The provenance summary line, and each call with --calls; ws is the
 * wrapper.cpp already scanned (NULL when there is none). */
static void show_provenance(package_t *p, package_model *m, const wrapper_scan *ws, int calls)
{
    session *s = session_new();
    strbuf err = STRBUF_INIT, json = STRBUF_INIT;
    int have = m->kernel_info_entry &&
               package_read_entry(p, m->kernel_info_entry, PROV_MAX_JSON_BYTES, &json, &err) == 0;
    provenance_from_scan(s, ws, have ? json.buf : NULL, json.len, m->kernel_info_entry, &err);
    strbuf_release(&json);
    size_t traced = 0;
    for (size_t i = 0; i < s->prov.ncalls; i++)
        traced += s->prov.calls[i].nstack > 0;
    if (!s->prov.ncalls)
        printf("  provenance:          none (no wrapper.cpp or kernel_information.json)\n");
    else if (m->kernel_info_entry)
        printf("  provenance:          %zu calls, %zu with source lines (kernel_information.json)\n", s->prov.ncalls,
               traced);
    else
        printf("  provenance:          %zu calls, graph nodes only (wrapper.cpp; compile with "
               "trace.provenance_tracking_level 1 for source lines)\n", s->prov.ncalls);
    if (err.len)
        printf("  provenance problem:  %s\n", err.buf);
    if (calls)
        show_calls(s);
    strbuf_release(&err);
    session_free(s);
}

static void show_model(package_t *p, package_model *m, int calls)
{
    printf("model %s\n", m->name);
    printf("  device key:          %s\n", or_none(m->device_key));
    printf("  compute capability:  %s\n", or_none(m->compute_capability));
    printf("  cpu isa:             %s\n", or_none(m->cpu_isa));
    if (m->platform || m->machine)
        printf("  platform:            %s %s\n", or_none(m->platform), or_none(m->machine));
    printf("  so:                  %s\n", m->so_entry ? m->so_entry
                                        : m->cmake_entry ? "none: package_cpp_only (sources + CMakeLists.txt; "
                                                           "`aotidbg check` says how to build it)"
                                                         : "MISSING");
    printf("  wrapper.cpp:         %s\n", or_none(m->wrapper_cpp_entry));
    if (m->kernel_cpp_entry)
        printf("  kernel.cpp:          %s\n", m->kernel_cpp_entry);
    printf("  metadata:            %s\n", m->metadata_entry ? m->metadata_entry : p->is_bare_so ? "(none: bare .so)" : "MISSING");
    if (m->proxy_json_entry)
        printf("  custom ops:          %s\n", m->proxy_json_entry);
    printf("  cubins:              %zu\n", m->ncubins);
    for (size_t i = 0; i < m->ncubins; i++)
        printf("    %s\n", m->cubin_entries[i]);
    printf("  weights:             %zu weight file(s) in the archive%s\n", m->nweights,
           m->nweights ? "" : " (constants, below, say where the model's weights are)");
    for (size_t i = 0; i < m->nweights; i++)
        printf("    %s\n", m->weight_entries[i]);
    if (m->kernel_info_entry)
        printf("  kernel info:         %s\n", m->kernel_info_entry);
    /* wrapper.cpp is read and scanned once: the provenance and the rest below use it */
    strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    wrapper_scan ws;
    memset(&ws, 0, sizeof ws);
    int scanned = m->wrapper_cpp_entry && package_read_entry(p, m->wrapper_cpp_entry, WS_MAX_BYTES, &text, &err) == 0 &&
                  wrapper_scan_text(&ws, text.buf, text.len, &err) == 0;
    show_provenance(p, m, scanned ? &ws : NULL, calls);
    if (!m->wrapper_cpp_entry) {
        strbuf_release(&text);
        strbuf_release(&err);
        return;
    }
    if (!scanned) {
        printf("  wrapper.cpp unreadable: %s\n", err.buf);
        wrapper_scan_free(&ws);
    } else {
        printf("  inputs:              %zu%s\n", ws.ninputs,
               ws.has_input_checks ? "" : " (no generated input checks: dtype/shape partly unknown)");
        int w = 0, keyed = 0;   /* the user's names (pytree.h) in a column of their own, when any */
        for (size_t i = 0; i < ws.ninputs; i++) {
            const char *u = ws.inputs[i].user_name;
            if (u && (int)strlen(u) > w)
                w = (int)strlen(u);
            if (u && !starts_with(u, "args["))   /* a keyword: more than the position says */
                keyed = 1;
        }
        if (!keyed)
            w = 0;
        for (size_t i = 0; i < ws.ninputs; i++) {
            const ws_input *in = &ws.inputs[i];
            printf("    %zu ", i);
            if (w)
                printf("%-*s ", w, in->user_name ? in->user_name : "-");
            printf("%-10s %-9s %-5s ", or_none(in->name), in->dtype ? in->dtype : "?", in->device ? in->device : "?");
            print_shape(in);
            putchar('\n');
        }
        printf("  outputs:             %zu\n", ws.noutputs);
        for (size_t i = 0; ws.output_names && i < ws.noutputs; i++)
            printf("    %zu %s (output%zu)\n", i, ws.output_names[i], i);
        /* launches the printer does not reach (subgraphs, proxy calls): what re-instrumenting would add */
        reinstrument_stats rs = {0};
        strbuf e2 = STRBUF_INIT;
        int counted = reinstrument_source(text.buf, text.len, NULL, NULL, &rs, &e2) == 0;
        strbuf_release(&e2);
        if (ws.printer_level == 0 && counted && !rs.launches)
            printf("  printer level:       - (the model launches no kernel)\n");
        else
            printf("  printer level:       %d%s\n", ws.printer_level,
                   ws.printer_level == 0 ? " (wrapper.cpp has no printer calls: aotidbg run re-instruments a copy "
                                           "(CPU) or interposes launches (CUDA); or rebuild with "
                                           "debug_intermediate_value_printer=1)" : "");
        printf("  nan asserts:         %s\n", ws.nan_asserts ? "yes" : "no");
        printf("  kernels:             %zu (from %s)", ws.nkernels, ws.kernels_source);
        if (counted && ws.printer_level > 0 && rs.launches) {
            strbuf why = STRBUF_INIT;
            reinstrument_hidden_why(&rs, &why);
            printf(" + %zu the printer does not reach (%s)", rs.launches, why.buf);
            strbuf_release(&why);
        }
        putchar('\n');
        printf("  constants:           %zu%s\n", ws.nconstants,
               ws.include_weights == 1 ? (m->so_entry ? " (in the .so)" : " (in the .so its CMakeLists.txt builds)")
               : ws.include_weights == 0 ? " (outside the .so)" : "");
        if (ws.ncubins || ws.nembedded_kernels)
            printf("  cubins loaded:       %zu (+%zu embedded)\n", ws.ncubins, ws.nembedded_kernels);
        if (ws.nproxy_calls)
            printf("  proxy-executor calls: %zu\n", ws.nproxy_calls);
        wrapper_scan_free(&ws);
    }
    strbuf_release(&text);
    strbuf_release(&err);
}

int cmd_info(const cli_args *a)
{
    const char *pkg = a->pos[0], *model = a->run.model;
    int calls = a->info.calls, want_sha = a->run.sha256;
    strbuf err = STRBUF_INIT;
    package_t *p = NULL;
    if (package_open(&p, pkg, &err) < 0) {
        fprintf(stderr, "aotidbg info: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    printf("package %s\n", pkg);
    if (want_sha) {
        const char *sha = package_sha256(p, &err);
        if (!sha) {
            fprintf(stderr, "aotidbg info: %s\n", err.buf);
            package_close(p);
            strbuf_release(&err);
            return EXIT_USAGE;
        }
        printf("  sha256:   %s\n", sha);
    }
    printf("  kind:     %s\n", p->is_bare_so ? "bare .so (deprecated torch._export.aot_compile; no device recorded)"
                                             : ".pt2 (torch._inductor.aoti_compile_and_package)");
    if (!p->is_bare_so) {
        printf("  root:     %s\n", p->root);
        printf("  entries:  %zu\n", p->nentries);
    }
    printf("  models:   %zu\n", p->nmodels);
    int rc = EXIT_OK;
    if (model) {
        package_model *m = package_find_model(p, model, &err);
        if (!m) {
            fprintf(stderr, "aotidbg info: %s\n", err.buf);
            rc = EXIT_USAGE;
        } else {
            show_model(p, m, calls);
        }
    } else {
        for (size_t i = 0; i < p->nmodels; i++)
            show_model(p, &p->models[i], calls);
    }
    package_close(p);
    strbuf_release(&err);
    return rc;
}
