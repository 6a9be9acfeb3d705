/* demo.h — the bundled demo model: its Python source ships with aotidbg
 * (<datadir>/prepare/demo_model.py, or core/prepare/ in a source tree) and is
 * compiled on first use into $XDG_CACHE_HOME/aotidbg/demo (else
 * ~/.cache/aotidbg/demo) by a python3 child that the UI polls (never waits
 * on), so a spinner and the elapsed seconds stay live during the compile.
 * $AOTIDBG_PYTHON picks the interpreter (default python3 on PATH).
 * Ownership: demo_paths strings are malloc'd, freed by demo_paths_free.
 * Errors: 0/-1 with a message appended to err (what is missing, what to do). */
#ifndef AOTIDBG_DEMO_H
#define AOTIDBG_DEMO_H
#include <sys/types.h>
#include <time.h>
#include "grid.h"
#include "strbuf.h"

typedef struct {
    char *src;          /* demo_model.py */
    char *dir;          /* cache folder */
    char *pkg, *inputs; /* dir/demo.pt2, dir/demo.inputs.yaml */
} demo_paths;

/* Finds the source and the cache folder; -1 when the source is not installed. */
int demo_locate(demo_paths *d, strbuf *err);
void demo_paths_free(demo_paths *d);
/* 1 when the compiled package and its inputs spec are in the cache. */
int demo_ready(const demo_paths *d);

typedef struct {
    pid_t pid;          /* -1 when not running */
    int fd;             /* child's stdout+stderr */
    int log_fd;         /* dir/build.log */
    char line[256];     /* last non-empty output line */
    char partial[256];
    size_t plen;
    struct timespec t0;
    int done, ok;
    strbuf why;         /* on failure: what went wrong and what to do */
} demo_build;


/* Runs the whole build with the progress on screen when interactive (the
 * screen must be open; a screen of the one loop, loop.h) or as lines on
 * stderr when headless. The quit key (keys.yaml's too), Esc or ^C cancels.
 * 0 built (or already there), -1 failed or cancelled (err says which). */
int demo_prepare(const demo_paths *d, int interactive, int ascii, strbuf *err);

#endif
