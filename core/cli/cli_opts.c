/* cli_opts.c — option values with a syntax of their own; see cli_opts.h. */
#include "cli_opts.h"
#include <stdarg.h>
#include <stdio.h>
#include "commands.h"
#include "compat.h"
#include <string.h>

int cli_store_format(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    if (strcmp(v, "text") && strcmp(v, "yaml")) {
        strbuf_addf(err, "%s takes text or yaml, not '%s'", o->name, v);
        return -1;
    }
    *(const char **)field = v;
    return 0;
}

int cli_parse_ref_npy(const char *spec, cli_ref_npy *out, strbuf *err)
{
    static const char form[] = "; expected KERNEL:TENSOR=PATH (e.g. 3:buf2=ref.npy, or 3:before:buf2=ref.npy)";
    memset(out, 0, sizeof *out);
    const char *p = spec;
    int64_t k = 0;
    if (*p < '0' || *p > '9') {
        strbuf_addf(err, "--ref-npy '%s': KERNEL must be a kernel index (0, 1, ...)%s", spec, form);
        return -1;
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        k = k * 10 + (*p - '0');
        if (k > 1000000000) {
            strbuf_addf(err, "--ref-npy '%s': kernel index too large%s", spec, form);
            return -1;
        }
    }
    if (*p++ != ':') {
        strbuf_addf(err, "--ref-npy '%s': no ':' after the kernel index%s", spec, form);
        return -1;
    }
    out->kernel = k;
    out->phase = PHASE_AFTER;
    if (skip_prefix(p, "before:", &p))
        out->phase = PHASE_BEFORE;
    else
        skip_prefix(p, "after:", &p);
    const char *eq = strchr(p, '=');
    if (!eq) {
        strbuf_addf(err, "--ref-npy '%s': no '=PATH'%s", spec, form);
        return -1;
    }
    size_t n = (size_t)(eq - p);
    if (!n || n >= sizeof out->name) {
        strbuf_addf(err, "--ref-npy '%s': the tensor name is %s%s", spec, n ? "over 127 bytes" : "empty", form);
        return -1;
    }
    if (!eq[1]) {
        strbuf_addf(err, "--ref-npy '%s': the PATH after '=' is empty%s", spec, form);
        return -1;
    }
    memcpy(out->name, p, n);
    out->name[n] = 0;
    out->path = eq + 1;
    return 0;
}

int cli_usage_error(const command *c, const char *fmt, ...)
{
    fprintf(stderr, "aotidbg%s%s: ", c->name ? " " : "", c->name ? c->name : "");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(aotidbg %s --help shows the options)\n", c->name ? c->name : "PKG.pt2");
    return EXIT_USAGE;
}
