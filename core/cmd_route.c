/* cmd_route.c — `aotidbg route [FILE|-] [--package PKG] [--format text|yaml]`.
 *
 * Routes a log (a file, or stdin with `-` or no argument) with the installed
 * rules and prints the result. With --package, a triton-index-oob result is
 * resolved through the package's generated sources (triton_trace.h) down to
 * the input and dimension behind the failing bound.
 * Exit: 0 when routed (even to `unknown`), 2 for bad usage, an unreadable
 * input, bad rules or an unreadable package. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "router.h"
#include "triton_trace.h"

static const char route_usage[] =
    "usage: aotidbg route [FILE|-] [--package PKG] [--format text|yaml]\n"
    "\n"
    "Names the cause of an AOTI error from its text (a log file, or stdin with - or\n"
    "no FILE): the route, the facts pulled out of the text (kernel, tmpN, ksM, input\n"
    "index, expected/got, devices, symbol, op schema, missing file), the next steps\n"
    "and the actions aotidbg can run for them.\n"
    "\n"
    "  --package PKG     resolve an index-out-of-bounds assert through the package's\n"
    "                    generated code: the kernel, the input and dimension behind\n"
    "                    ksM, and the ATen ops; PKG is a .pt2, an extracted package\n"
    "                    folder, or a *.wrapper.cpp file\n"
    "  --format FMT      text (default) or yaml (route:, fields:, steps:, also:, ...)\n"
    "  --rules FILE      use these rules instead of the installed routes.yaml\n"
    "\n"
    "Routes: triton-index-oob device-mismatch input-mismatch illegal-memory-access\n"
    "nan-inf wrong-output dynamic-shape custom-op missing-artifact abi-mismatch\n"
    "compile-error out-of-memory crash unknown.\n"
    "Exit: 0 routed (also when the route is unknown), 2 bad usage or unreadable input.\n";

int cmd_route(int argc, char **argv)
{
    const char *file = NULL, *pkg = NULL, *format = "text", *rules_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(route_usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--package") || !strcmp(a, "--format") || !strcmp(a, "--rules")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "aotidbg route: %s needs a value\n%s", a, route_usage);
                return EXIT_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--package"))
                pkg = v;
            else if (!strcmp(a, "--format"))
                format = v;
            else
                rules_path = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "aotidbg route: unknown option '%s'\n%s", a, route_usage);
            return EXIT_USAGE;
        } else if (file) {
            fprintf(stderr, "aotidbg route: more than one input ('%s' and '%s')\n", file, a);
            return EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (strcmp(format, "text") && strcmp(format, "yaml")) {
        fprintf(stderr, "aotidbg route: --format must be text or yaml, not '%s'\n", format);
        return EXIT_USAGE;
    }

    strbuf err = STRBUF_INIT;
    router_rules *rules = NULL;
    int rc = rules_path ? router_rules_load(&rules, rules_path, &err) : router_rules_load_default(&rules, &err);
    if (rc) {
        fprintf(stderr, "aotidbg route: cannot load the rules: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    FILE *in = stdin;
    if (file && strcmp(file, "-")) {
        in = fopen(file, "rb");
        if (!in) {
            fprintf(stderr, "aotidbg route: cannot open '%s': %s\n", file, strerror(errno));
            router_rules_free(rules);
            return EXIT_USAGE;
        }
    }
    route_result res = {0};
    rc = router_route_file(rules, in, &res, &err);
    if (in != stdin)
        fclose(in);
    router_rules_free(rules);
    if (rc) {
        fprintf(stderr, "aotidbg route: %s: %s\n", file ? file : "stdin", err.buf);
        route_result_release(&res);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    int exit_code = EXIT_OK;
    if (pkg) {
        strbuf_reset(&err);
        if (triton_trace_apply_package(&res, pkg, &err)) {
            fprintf(stderr, "aotidbg route: --package %s: %s\n", pkg, err.buf);
            exit_code = EXIT_USAGE;
        }
    }
    strbuf out = STRBUF_INIT;
    if (!strcmp(format, "yaml"))
        route_result_format_yaml(&res, &out);
    else
        route_result_format_text(&res, &out);
    fwrite(out.buf, 1, out.len, stdout);
    strbuf_release(&out);
    route_result_release(&res);
    strbuf_release(&err);
    return exit_code;
}
