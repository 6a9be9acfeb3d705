/* cmd_replay.c — `aotidbg replay SESSION.yaml --dump`: loads a session file
 * and prints its plain-text rendering (session_dump, then the kernel time
 * table of kernel_times.h, longest first) on stdout; without
 * --dump, the front end's UI shows it (cli_front.ui).
 * Exit: 0 loaded (also a cut-off file: the notice goes to stderr), 2 bad
 * usage or a file that does not load (file:line:col on stderr).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "kernel_times.h"
#include "session_io.h"

const opt_spec replay_option_specs[] = {
    {"--dump", NULL, "print the session as plain text on stdout instead of opening the\n"
     "screen: header, checklist, one block per event", offsetof(replay_options, dump), NULL, 1, 0},
    {NULL},
};

int cmd_replay(const cli_args *a)
{
    const char *path = a->pos[0];
    if (!a->replay.dump)   /* the screen: the front end's */
        return a->front && a->front->ui ? a->front->ui(a) : EXIT_USAGE;
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    const char *src = !strcmp(path, "-") ? "/dev/stdin" : path;
    if (session_load(src, &s, &err)) {
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    strbuf_release(&err);
    for (size_t i = 0; i < s->nwarnings; i++)
        fprintf(stderr, "aotidbg: warning: %s\n", s->warnings[i]);
    session_dump(s, stdout);
    if (s->nkernels) {   /* where the time went, longest first */
        kernel_times t;
        kernel_times_build(s, &t);
        fputc('\n', stdout);
        kernel_times_print(&t, stdout, 30, 100);
        kernel_times_release(&t);
    }
    fflush(stdout);
    int rc = ferror(stdout) ? EXIT_FAILED : EXIT_OK;
    session_free(s);
    return rc;
}
