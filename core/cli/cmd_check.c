/* cmd_check.c — `aotidbg check PKG [--inputs SPEC] [--device DEV] [--format text|yaml]`
 * (the options: the run options of scope RUN_OPT_CHECK and check_option_specs).
 * Prints the checklist (checklist.h). Exit: 0 nothing failed, 1 a row failed,
 * 2 bad usage or an unreadable package/spec (the message says which). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "compat.h"
#include "checklist.h"
#include "cli_opts.h"
#include "commands.h"
#include "inputs.h"
#include "package.h"
#include "remote_package.h"

#define F(field) offsetof(check_options, field)

const opt_spec check_option_specs[] = {
    {"--format", "text|yaml", "text (default) or yaml", F(format), cli_store_format, 0, 0},
    {"--torch-lib", "DIR", "libtorch folder for the symbol check; 'none' skips it\n"
     "(default: $TORCH_DIR, else the torch aotidbg-runner was built\n"
     "with, else python3's torch)", F(torch_lib), NULL, 0, 0},
    {NULL},
};

int cmd_check(const cli_args *a)
{
    const char *pkg = a->pos[0], *spec = a->run.inputs, *device = a->run.device, *format = a->check.format;
    const char *model = a->run.model, *torch_lib = a->check.torch_lib;
    remote_cli rmt = {.target = a->run.remote, .runner_path = a->run.remote_runner, .push = a->run.push,
                      .timeout_s = a->run.timeout_s};
    int want_sha = a->run.sha256;
    if ((rmt.push || rmt.runner_path) && !rmt.target)
        return cli_usage_error(a->cmd, "%s goes with --remote HOST", rmt.push ? "--push" : "--remote-runner");
    if (spec && !strcmp(spec, "random"))
        return cli_usage_error(a->cmd, "--inputs random is for run and the live UI (check compares a spec with the "
                               "package: with no spec it checks the package alone)");
    strbuf err = STRBUF_INIT;
    session *s = session_new();
    package_t *p = NULL;
    remote *r = NULL;
    host_facts hf;
    memset(&hf, 0, sizeof hf);
    int rc = EXIT_USAGE;
    if (rmt.target) {
        package_model *m;
        if (remote_open(&rmt, pkg, spec, s, &r, &p, &err) < 0 ||
            ((m = package_find_model(p, model, &err)) && remote_prepare_model(r, p, m, 1, &hf, &err) < 0)) {
            fprintf(stderr, "aotidbg check: %s\n", err.buf);
            goto out;
        }
        strbuf_reset(&err);   /* a missing model is a FAIL row below */
    } else {
        if (spec && inputs_load(s, spec, &err) < 0) {
            fprintf(stderr, "aotidbg check: %s\n", err.buf);
            goto out;
        }
        if (package_open(&p, pkg, &err) < 0) {
            fprintf(stderr, "aotidbg check: %s\n", err.buf);
            goto out;
        }
        if (spec && checklist_order_inputs(p, model, s, spec, &err) < 0) {
            fprintf(stderr, "aotidbg check: %s\n", err.buf);
            goto out;
        }
    }
    if (want_sha)   /* on its own thread while the checks run */
        package_sha256_start(p);
    checklist cl;
    checklist_init(&cl);
    checklist_opts o = {.device = device, .model = model, .inputs = spec ? s->inputs : NULL,
                        .ninputs = spec ? s->ninputs : 0, .torch_lib = torch_lib, .host = r ? &hf : NULL};
    if (checklist_run(&cl, p, &o, &err) < 0) {
        fprintf(stderr, "aotidbg check: %s\n", err.buf);
        checklist_free(&cl);
        goto out;
    }
    const char *sha = NULL;
    if (want_sha && !(sha = package_sha256(p, &err))) {
        fprintf(stderr, "aotidbg check: %s\n", err.buf);
        checklist_free(&cl);
        goto out;
    }
    strbuf outb = STRBUF_INIT;
    if (!strcmp(format, "yaml")) {
        strbuf_addstr(&outb, "package: ");
        strbuf_add_yaml_quoted(&outb, pkg);
        if (r) {
            strbuf_addstr(&outb, "\nhost: ");
            strbuf_add_yaml_quoted(&outb, rmt.target);
        }
        if (sha)
            strbuf_addf(&outb, "\nsha256: \"%s\"", sha);
        strbuf_addstr(&outb, "\ndevice: ");
        strbuf_add_yaml_quoted(&outb, cl.device ? cl.device : "");
        strbuf_addch(&outb, '\n');
        checklist_format_yaml(&cl, &outb);
    } else {
        strbuf_addf(&outb, "aotidbg check %s%s%s (device %s)\n", r ? rmt.target : "", r ? ":" : "", pkg,
                    cl.device ? cl.device : "?");
        if (sha)
            strbuf_addf(&outb, "sha256: %s\n", sha);
        checklist_format_text(&cl, &outb);
    }
    fwrite(outb.buf, 1, outb.len, stdout);
    strbuf_release(&outb);
    rc = checklist_has_fail(&cl) ? EXIT_FAILED : EXIT_OK;
    for (size_t i = 0; i < cl.nrows; i++)   /* a damaged package is unreadable input, as a broken zip is */
        if (cl.rows[i].status == CHECK_FAIL && !strcmp(cl.rows[i].id, "package.so-intact"))
            rc = EXIT_USAGE;
    checklist_free(&cl);
out:
    package_close(p);
    remote_close(r);
    host_facts_release(&hf);
    session_free(s);
    strbuf_release(&err);
    return rc;
}
