/* cmd_replay.c — `aotidbg replay SESSION.yaml --dump`: loads a session file
 * and prints its plain-text rendering (session_dump) on stdout.
 * Exit: 0 loaded (also a cut-off file: the notice goes to stderr), 2 bad
 * usage or a file that does not load (file:line:col on stderr).
 * The interactive `replay` without --dump is the TUI's (tui/main.c). */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "session_io.h"

static const char replay_usage[] =
    "usage: aotidbg replay SESSION.yaml [--dump]\n"
    "\n"
    "Opens a recorded session (from `aotidbg run --record` or a walkthrough) with\n"
    "no GPU and no torch. With --dump, prints a plain-text rendering to stdout\n"
    "instead of opening the screen: header, checklist, then one block per event\n"
    "(kernels with their tensors' shape, dtype and statistics; errors; outputs;\n"
    "how the runner ended).\n"
    "\n"
    "A file cut off while it was being recorded still opens: every complete event\n"
    "is shown and a notice on stderr says where it was cut.\n"
    "Exit codes: 0 shown, 2 bad usage or a file that does not load (the message\n"
    "names file:line:col). The format is described in aotidbg-session(5).\n";

int cmd_replay_dump(int argc, char **argv)
{
    const char *path = NULL;
    int dump = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(replay_usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--dump")) {
            dump = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "aotidbg replay: unknown option '%s'\n%s", argv[i], replay_usage);
            return EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, "aotidbg replay: one session file at a time (got '%s' and '%s')\n", path, argv[i]);
            return EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "aotidbg replay: missing SESSION.yaml\n%s", replay_usage);
        return EXIT_USAGE;
    }
    if (!dump) {
        fputs("aotidbg replay: without --dump, replay opens the screen (run it from a terminal)\n", stderr);
        return EXIT_USAGE;
    }
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
    fflush(stdout);
    int rc = ferror(stdout) ? EXIT_FAILED : EXIT_OK;
    session_free(s);
    return rc;
}
