/* cmd_replay.c — `aotidbg replay SESSION.yaml --dump`: loads a session file
 * and prints its plain-text rendering (session_dump, then the kernel time
 * table of kernel_times.h, longest first) on stdout, then one line per
 * --ref-npy (the tensor against the file, as the inspector says it);
 * without --dump, the front end's UI shows it (cli_front.ui).
 * Exit: 0 loaded (also a cut-off file: the notice goes to stderr), 2 bad
 * usage, a file that does not load (file:line:col on stderr), or a --ref-npy
 * whose tensor is not in the session or whose file does not load.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "arena.h"
#include "commands.h"
#include "kernel_times.h"
#include "session_io.h"
#include "tensor_diff.h"
#include "tensor_file.h"
#include "term_escape.h"

const opt_spec replay_option_specs[] = {
    {"--dump", NULL, "print the session as plain text on stdout instead of opening the\n"
     "screen: header, checklist, one block per event", offsetof(replay_options, dump), NULL, 1, 0},
    {NULL},
};

/* Each --ref-npy's file loaded and compared with its tensor, one line each
 * into out; -1 with the message in err when a tensor or a file is missing. */
static int ref_npy_lines(const session *s, const ui_ref_npys *refs, const char *path, strbuf *out, strbuf *err)
{
    for (int i = 0; i < refs->n; i++) {
        const cli_ref_npy *r = &refs->items[i];
        const char *ph = r->phase == PHASE_BEFORE ? "before:" : "";
        const tensor_rec *t = session_find_tensor(s, r->kernel, r->name, r->phase);
        if (!t) {
            strbuf_addf(err, "--ref-npy %lld:%s%s=%s: the session has no %s tensor %s at kernel #%lld (%lld kernels); "
                        "`aotidbg replay %s --dump` lists the tensors", (long long)r->kernel, ph, r->name, r->path,
                        phase_name(r->phase), r->name, (long long)r->kernel, (long long)session_kernel_count(s), path);
            return -1;
        }
        arena ar = ARENA_INIT;
        tensor_rec ref = {0};
        strbuf e = STRBUF_INIT;
        int rc = tensor_file_load_npy(&ar, r->path, 0, &ref, &e);
        if (rc < 0) {
            strbuf_addf(err, "--ref-npy %lld:%s%s=%s: %s", (long long)r->kernel, ph, r->name, r->path, e.buf);
        } else {
            strbuf_addf(out, "ref-npy kernel #%lld %s %s: ", (long long)r->kernel, phase_name(r->phase), r->name);
            tensor_compare_line(r->path, t, &ref, out);
            strbuf_addch(out, '\n');
        }
        strbuf_release(&e);
        arena_release(&ar);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int cmd_replay(const cli_args *a)
{
    const char *path = a->pos[0];
    if (!a->replay.dump)   /* the screen: the front end's */
        return a->front && a->front->ui ? a->front->ui(a) : EXIT_USAGE;
    term_guard_stdio();   /* session fields are untrusted: no control byte reaches the terminal */
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    const char *src = !strcmp(path, "-") ? "/dev/stdin" : path;
    if (session_load(src, &s, &err)) {
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    strbuf_release(&err);
    strbuf refs = STRBUF_INIT;
    if (ref_npy_lines(s, &a->ui.ref_npy, path, &refs, &err) < 0) {
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        strbuf_release(&refs);
        session_free(s);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < s->nwarnings; i++)
        fprintf(stderr, "aotidbg: warning: %s\n", s->warnings[i]);
    session_dump(s, stdout);
    if (s->nkernels) {   /* where the time went, longest first */
        kernel_times t;
        kernel_times_build(s, &t);
        fputc('\n', stdout);
        kernel_times_print(&t, stdout, 30, 120);
        kernel_times_release(&t);
    }
    fputs(refs.buf, stdout);
    fflush(stdout);
    int rc = ferror(stdout) ? EXIT_FAILED : EXIT_OK;
    strbuf_release(&refs);
    session_free(s);
    return rc;
}
