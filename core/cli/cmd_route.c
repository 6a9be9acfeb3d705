/* cmd_route.c — `aotidbg route [FILE|-] [--package PKG] [--format text|yaml]`.
 *
 * Routes a log (a file, or stdin with `-` or no argument) with the installed
 * rules and prints the result. With --package, a triton-index-oob or cpp-index-oob result is
 * resolved through the package's generated sources (triton_trace.h) down to
 * the input and dimension behind the failing bound, and the package's device
 * picks the advice's wording; with --session, the session's facts are evidence
 * too (router_session.h) and that dimension's runtime size is added from the
 * recorded inputs. A session is read a slice at a time, keeping only the
 * events the router reads (route_load.h), so memory follows them, not the file.
 * Exit: 0 when routed (even to `unknown`), 2 for bad usage, an unreadable
 * input, bad rules or an unreadable package. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_opts.h"
#include "commands.h"
#include "route_event.h"
#include "route_load.h"
#include "router.h"
#include "term_escape.h"
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

/* Progress of reading a big session, on a terminal only (as git's): one line rewritten in place
 * at each tenth of each read of a file of PROGRESS_MIN_BYTES or more, erased at the end. It goes
 * to fd 2 itself, as stderr escapes the carriage return (term_guard_stdio); the name is escaped. */
#define PROGRESS_MIN_BYTES (64ULL << 20)
typedef struct {
    strbuf name;
    const char *what;
    int tenth, shown;
} route_bar;

static void bar_show(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    route_bar *b = ctx;
    if (total < PROGRESS_MIN_BYTES)
        return;
    int tenth = (int)(done * 10 / total);
    if (b->what == what && b->tenth == tenth)
        return;
    b->what = what;
    b->tenth = tenth;
    b->shown = 1;
    dprintf(2, "\raotidbg route: %s: %s, %d%% of %.0f MB\033[K", b->name.buf, what, tenth * 10, total / 1e6);
}

static void bar_end(route_bar *b)
{
    if (b->shown)
        dprintf(2, "\r\033[K");
    strbuf_release(&b->name);
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
    route_loaded *loaded = NULL;
    route_bar bar = {.name = STRBUF_INIT, .tenth = -1};
    route_progress progress = {bar_show, &bar};
    if (sess_path)
        term_escape(&bar.name, sess_path, strlen(sess_path), 1);
    rc = sess_path ? route_session_load(sess_path, 0, pkg, isatty(2) ? &progress : NULL, &sess, &loaded, &err) : 0;
    bar_end(&bar);
    if (rc) {
        fprintf(stderr, "aotidbg route: %s\n", err.buf);
        router_rules_free(rules);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    if (!pkg && sess)
        pkg = router_session_package(sess);   /* the recorded package, when it is still there */
    route_result res = {0};
    if (sess && !file) {
        router_route_event(rules, sess, NULL, pkg, &res);
    } else {
        FILE *in = stdin;
        if (file && strcmp(file, "-")) {
            in = fopen(file, "rb");
            if (!in) {
                fprintf(stderr, "aotidbg route: cannot open '%s': %s\n", file, strerror(errno));
                router_rules_free(rules);
                session_free(sess);
                route_loaded_free(loaded);
                return EXIT_USAGE;
            }
        }
        rc = router_route_file(rules, in, &res, &err);
        if (in != stdin)
            fclose(in);
        if (!rc) {   /* a plain log: the package's steps, with the session's facts when one is given */
            session *none = sess ? NULL : session_new();
            router_route_enrich(rules, sess ? sess : none, NULL, pkg, &res);
            session_free(none);
        }
    }
    router_rules_free(rules);
    if (rc) {
        fprintf(stderr, "aotidbg route: %s: %s\n", file ? file : sess_path ? sess_path : "stdin", err.buf);
        session_free(sess);
        route_loaded_free(loaded);
        route_result_release(&res);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    int exit_code = EXIT_OK;
    const char *perr = route_result_field(&res, "package_error");
    if (pkg && perr) {
        fprintf(stderr, "aotidbg route: --package %s: %s\n", pkg, perr);
        exit_code = EXIT_USAGE;
    }
    strbuf out = STRBUF_INIT;
    if (!strcmp(format, "yaml"))
        route_result_format_yaml(&res, &out);
    else
        route_result_format_text(&res, &out);
    fwrite(out.buf, 1, out.len, stdout);
    strbuf_release(&out);
    route_result_release(&res);
    session_free(sess);
    route_loaded_free(loaded);
    strbuf_release(&err);
    return exit_code;
}
