/* cmd_check.c — `aotidbg check PKG [--inputs SPEC] [--device DEV] [--format text|yaml]`.
 * Prints the checklist (checklist.h). Exit: 0 nothing failed, 1 a row failed,
 * 2 bad usage or an unreadable package/spec (the message says which). */
#include <stdio.h>
#include <string.h>
#include "compat.h"
#include "checklist.h"
#include "cli_opts.h"
#include "commands.h"
#include "inputs.h"
#include "package.h"
#include "remote_package.h"

static const char usage[] =
    "usage: aotidbg check [--remote [USER@]HOST[:PORT] [--push] [--remote-runner PATH]]\n"
    "                     PKG [--inputs SPEC] [--device DEV] [--format text|yaml]\n"
    "                     [--model NAME] [--torch-lib DIR|none] [--sha256]\n"
    "Checks, before anything runs, that PKG (a .pt2 package or a bare model .so) fits\n"
    "this machine and the inputs: compile vs load device, CUDA driver, GPU index and\n"
    "compute capability, CPU ISA, every input's dtype/device/rank/dims/strides against\n"
    "what the package was compiled for, package integrity (.so, cubins, weights,\n"
    "custom ops, libtorch symbols) and the debug flags in effect.\n"
    "  --remote HOST    check against the GPU box HOST, through ssh ($AOTIDBG_SSH) and\n"
    "                   aotidbg-runner there: PKG and SPEC are paths there, the device,\n"
    "                   CPU and environment rows are HOST's, and the symbol row loads the\n"
    "                   .so against the runner's libtorch there\n"
    "  --push           PKG and SPEC are here: copy the package to a private folder there\n"
    "  --remote-runner PATH\n"
    "                   the runner on HOST (default: aotidbg-runner on its PATH)\n"
    "  --inputs SPEC    inputs spec YAML (see man aotidbg, INPUTS)\n"
    "  --device DEV     load device: cpu, cuda, cuda:N (default: the package's)\n"
    "  --format F       text (default) or yaml\n"
    "  --model NAME     model inside the package (default: the only one, or 'model')\n"
    "  --torch-lib DIR  libtorch folder for the symbol check; 'none' skips it\n"
    "                   (default: $TORCH_DIR, else the torch aotidbg-runner was built\n"
    "                   with, else python3's torch)\n"
    "  --sha256         also the SHA-256 of the whole file (reads every byte; the\n"
    "                   checks read only the archive's directory and the parts they need)\n"
    "Exit codes: 0 nothing failed, 1 a check failed, 2 bad usage or bad input.\n";

int cmd_check(int argc, char **argv)
{
    const char *pkg = NULL, *spec = NULL, *device = NULL, *format = "text", *model = NULL, *torch_lib = NULL;
    remote_cli rmt = {0};
    int want_sha = 0;
    const cli_opt opts[] = {{"--inputs", &spec}, {"--device", &device}, {"--format", &format},
                            {"--model", &model}, {"--torch-lib", &torch_lib}, {"--remote", &rmt.target},
                            {"--remote-runner", &rmt.runner_path}, {"--push", NULL, &rmt.push},
                            {"--sha256", NULL, &want_sha}};
    const cli_spec sp = {"check", usage, usage, opts, (int)(sizeof opts / sizeof *opts)};
    int code;
    if (cli_parse_one(&sp, argc, argv, &pkg, "one package only (got '%s' and '%s')", &code))
        return code;
    if (!pkg)
        return cli_usage_error("check", usage, "no package given");
    if ((rmt.push || rmt.runner_path) && !rmt.target)
        return cli_usage_error("check", usage, "%s goes with --remote HOST", rmt.push ? "--push" : "--remote-runner");
    if (strcmp(format, "text") && strcmp(format, "yaml")) {
        fprintf(stderr, "aotidbg check: --format is text or yaml, not '%s'\n", format);
        return EXIT_USAGE;
    }
    if (device) {
        const char *c = strchr(device, ':');
        size_t n = c ? (size_t)(c - device) : strlen(device);
        int ok = (mem_is(device, n, "cpu") && !c) || mem_is(device, n, "cuda");
        if (ok && c) {
            const char *d = c + 1;
            ok = *d != 0 && strlen(d) <= 4;
            for (; *d && ok; d++)
                ok = *d >= '0' && *d <= '9';
        }
        if (!ok) {
            fprintf(stderr, "aotidbg check: --device is cpu, cuda or cuda:N, not '%s'\n", device);
            return EXIT_USAGE;
        }
    }
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
    checklist_free(&cl);
out:
    package_close(p);
    remote_close(r);
    host_facts_release(&hf);
    session_free(s);
    strbuf_release(&err);
    return rc;
}
