/* cmd_route.c — `aotidbg route [FILE|-] [--package PKG] [--format text|yaml]`.
 *
 * Routes a log (a file, or stdin with `-` or no argument) with the installed
 * rules and prints the result. With --package, a triton-index-oob result is
 * resolved through the package's generated sources (triton_trace.h) down to
 * the input and dimension behind the failing bound, and the package's device
 * picks the advice's wording; with --session, the session's facts are evidence
 * too (router_session.h) and that dimension's runtime size is added from the
 * recorded inputs.
 * Exit: 0 when routed (even to `unknown`), 2 for bad usage, an unreadable
 * input, bad rules or an unreadable package. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "commands.h"
#include "package.h"
#include "provenance.h"
#include "route_nan.h"
#include "route_provenance.h"
#include "router.h"
#include "router_session.h"
#include "session_io.h"
#include "oob_element.h"
#include "triton_trace.h"
#include "compat.h"

#define F(field) offsetof(route_options, field)

const opt_spec route_option_specs[] = {
    {"--package", "PKG", "resolve an index-out-of-bounds assert through the package's\n"
     "generated code: the kernel, the input and dimension behind\n"
     "ksM, and the ATen ops; PKG is a .pt2, an extracted package\n"
     "folder, or a *.wrapper.cpp file; the failing kernel's source\n"
     "line and graph nodes (source_line, graph_nodes, ...)", F(package), NULL, 0, 0},
    {"--session", "S.yaml", "a recorded session: with no FILE its error text is routed\n"
     "with what the session knows as evidence (device, failing\n"
     "kernel, the runner's exit signal, failed checklist rows);\n"
     "(a FILE that is a session file is taken as --session FILE)\n"
     "its package is used when --package is not given; the\n"
     "runtime size of the input dimension behind ksM is shown", F(session), NULL, 0, 0},
    {"--format", "text|yaml", "text (default) or yaml (route:, fields:, steps:, also:, ...)", F(format), cli_store_format, 0,
     0},
    {"--rules", "FILE", "use these rules instead of the installed routes.yaml", F(rules), NULL, 0, 0},
    {NULL},
};

/* 1 when path is a session file (it starts with `format_version`, after
 * blank and comment lines): then `route FILE` routes it as --session would. */
static int looks_like_session(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = buf;
    for (;;) {
        p += strspn(p, " \t\r\n");
        if (*p != '#')
            break;
        p += strcspn(p, "\n");
    }
    return starts_with(p, "format_version:");
}

/* With the inputs the session ran with: the runtime size behind ksM. */
static void add_runtime_size(route_result *r, const session *s)
{
    const char *ii = route_result_field(r, "input_index"), *dd = route_result_field(r, "dim");
    if (!ii || !dd)
        return;
    char *end;
    long i = strtol(ii, &end, 10), d;
    if (*end || i < 0 || (size_t)i >= s->ninputs)
        return;
    d = strtol(dd, &end, 10);
    const input_spec *in = &s->inputs[i];
    if (*end || d < 0 || d >= in->ndim)
        return;
    char buf[64];
    snprintf(buf, sizeof buf, "%lld", (long long)in->shape[d]);
    route_result_set_field(r, "dim_value", buf);
    strbuf shape = STRBUF_INIT;
    strbuf_addch(&shape, '[');
    for (int k = 0; k < in->ndim; k++)
        strbuf_addf(&shape, "%s%lld", k ? ", " : "", (long long)in->shape[k]);
    strbuf_addch(&shape, ']');
    route_result_set_field(r, "input_shape", shape.buf);
    strbuf_release(&shape);
}

/* The failing kernel's source line and graph nodes: from the session's
 * calls, else from the package's (route_provenance.h). */
static void add_provenance(route_result *r, const session *sess, const char *pkg)
{
    int64_t ki = -1;
    for (size_t i = 0; sess && i < sess->nevents && ki < 0; i++)
        if (sess->events[i]->kind == EV_ERROR)
            ki = sess->events[i]->u.error.kernel_index;
    if (sess && sess->prov.ncalls) {
        route_add_provenance(r, sess, ki);
        return;
    }
    if (!pkg || (ki < 0 && !route_result_field(r, "kernel")))
        return;
    session *tmp = session_new();
    strbuf ignore = STRBUF_INIT;   /* a package without provenance just adds nothing */
    provenance_load_path(tmp, pkg, &ignore);
    if (sess && ki >= 0) {   /* the recorded kernel's name picks its call */
        const event *e = session_kernel_event(sess, ki);
        if (e && !route_result_field(r, "kernel"))
            route_result_set_field(r, "kernel", e->u.kernel.name);
    }
    route_add_provenance(r, tmp, -1);
    strbuf_release(&ignore);
    session_free(tmp);
}

/* The platform a package was compiled for (AOTI_DEVICE_KEY of a .pt2 or a
 * bare .so's metadata); NULL when it cannot be read (the trace reports that). */
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

int cmd_route(const cli_args *a)
{
    const char *file = a->pos[0], *pkg = a->route.package, *format = a->route.format;
    const char *rules_path = a->route.rules, *sess_path = a->route.session;

    if (file && strcmp(file, "-") && !sess_path && looks_like_session(file)) {
        sess_path = file;   /* a session: its errors, log lines and stderr tail, its package */
        file = NULL;
    }
    strbuf err = STRBUF_INIT;
    router_rules *rules = NULL;
    int rc = rules_path ? router_rules_load(&rules, rules_path, &err) : router_rules_load_default(&rules, &err);
    if (rc) {
        fprintf(stderr, "aotidbg route: cannot load the rules: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    session *sess = NULL;
    if (sess_path && session_load(sess_path, &sess, &err)) {
        fprintf(stderr, "aotidbg route: %s\n", err.buf);
        router_rules_free(rules);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    route_result res = {0};
    if (sess && !file) {
        router_route_session(rules, sess, &res);
    } else {
        FILE *in = stdin;
        if (file && strcmp(file, "-")) {
            in = fopen(file, "rb");
            if (!in) {
                fprintf(stderr, "aotidbg route: cannot open '%s': %s\n", file, strerror(errno));
                router_rules_free(rules);
                session_free(sess);
                return EXIT_USAGE;
            }
        }
        rc = router_route_file(rules, in, &res, &err);
        if (in != stdin)
            fclose(in);
    }
    if (!pkg && sess && sess->package.path) {
        FILE *probe = fopen(sess->package.path, "rb");   /* the recorded package, when it is still there */
        if (probe) {
            fclose(probe);
            pkg = sess->package.path;
        }
    }
    if (rc) {
        fprintf(stderr, "aotidbg route: %s: %s\n", file ? file : "stdin", err.buf);
        router_rules_free(rules);
        session_free(sess);
        route_result_release(&res);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    int exit_code = EXIT_OK;
    if (pkg) {
        /* the compile device, when nothing else says where the run was (a session says its device;
         * a log's own words say where it ran: a CPU package loaded on CUDA fails with CUDA errors) */
        const char *plat = res.platform ? NULL : package_platform(pkg);
        if (plat) {
            char origin[64 + 1024];
            snprintf(origin, sizeof origin, "package %.1024s: AOTI_DEVICE_KEY", pkg);
            route_result_set_platform(&res, rules, plat, origin);
        }
        strbuf_reset(&err);
        if (triton_trace_apply_package(&res, pkg, &err)) {
            fprintf(stderr, "aotidbg route: --package %s: %s\n", pkg, err.buf);
            exit_code = EXIT_USAGE;
        }
    }
    /* a traced C++ kernel runs on the CPU, whatever the text's words said */
    const char *k = route_result_field(&res, "kernel");
    if (k && starts_with(k, "cpp_") && (!res.platform || strcmp(res.platform, "cpu")))
        route_result_set_platform(&res, rules, "cpu", "the failing kernel is a generated C++ kernel");
    router_rules_free(rules);
    if (sess)
        add_runtime_size(&res, sess);
    if (sess && pkg) {   /* the index's tensor, element and value from the recorded before-tensors */
        int64_t ki = -1;
        for (size_t i = 0; i < sess->nevents && ki < 0; i++)
            if (sess->events[i]->kind == EV_ERROR)
                ki = sess->events[i]->u.error.kernel_index;
        strbuf_reset(&err);
        oob_element_apply_package(&res, pkg, sess, ki, &err);
    }
    add_provenance(&res, sess, pkg);
    route_add_nan(&res, sess);   /* nan-inf: down to the element, with that kernel's source line */
    strbuf out = STRBUF_INIT;
    if (!strcmp(format, "yaml"))
        route_result_format_yaml(&res, &out);
    else
        route_result_format_text(&res, &out);
    fwrite(out.buf, 1, out.len, stdout);
    strbuf_release(&out);
    route_result_release(&res);
    session_free(sess);
    strbuf_release(&err);
    return exit_code;
}
