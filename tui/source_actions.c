/* source_actions.c — list-source and edit-source (see source_actions.h). */
#include "source_actions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "screen.h"
#include "source_view.h"
#include "stack_trace.h"
#include "textview.h"

#define MAX_SITES 16

/* The user's line N (1-based, arg; default 1) of the selected kernel into
 * path/line; 0, or -1 with the reason in the message line. */
static int site(app *a, const char *what, const char *arg, char *path, size_t n, int64_t *line)
{
    const kernel_event *k = app_selected_kernel(a);
    const kernel_call *c = k ? session_kernel_call(a->s, k) : NULL;
    if (!c) {
        app_message(a, 1, "%s: %s", what, !k ? "select a kernel in the kernel list (3)"
                                            : !a->s->prov.ncalls ? "this session has no provenance (see aotidbg info PKG --calls)"
                                                            : "the package names no call for this kernel");
        return -1;
    }
    st_frame f[MAX_SITES];
    size_t ns = kernel_call_sites(c, f, MAX_SITES);
    long want = arg && *arg ? atol(arg) : 1;
    if (!ns) {
        app_message(a, 1, "%s: %s has no source line (its stack traces are empty; nodes only: compile with "
                          "trace.provenance_tracking_level 1)", what, k->name);
        return -1;
    }
    if (want < 1 || (size_t)want > ns) {
        app_message(a, 1, "%s: give 1..%zu (the kernel's source lines)", what, ns);
        return -1;
    }
    const st_frame *s = &f[want - 1];
    snprintf(path, n, "%.*s", s->file_len, s->file);
    *line = s->line;
    if (access(path, R_OK) != 0) {
        app_message(a, 1, "%s: %s:%lld is not readable here (the package was built on another machine?)", what, path,
                    (long long)*line);
        return -1;
    }
    return 0;
}

int sa_list_source(app *a, const char *arg)
{
    char path[4096];
    int64_t line;
    if (site(a, "list-source", arg, path, sizeof path, &line) < 0)
        return AF_FAILED;
    strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    int rc = AF_HANDLED;
    if (strbuf_read_file(&text, path, SOURCE_EXCERPT_MAX_BYTES, &err) < 0) {
        app_message(a, 1, "list-source: %s", err.buf);
        rc = AF_FAILED;
    } else {
        char title[sizeof a->view_title];
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        snprintf(title, sizeof title, "source: %.40s line %lld (E edits) - %.60s", base, (long long)line, path);
        textview_open(a, title, text.buf, line > 6 ? line - 6 : 0);
        a->view_hit = line - 1;
        snprintf(a->view_src, sizeof a->view_src, "%s", path);
        app_message(a, 0, "%s: line %lld", path, (long long)line);
    }
    strbuf_release(&text);
    strbuf_release(&err);
    return rc;
}

int sa_edit_source(app *a, const char *arg)
{
    char path[4096];
    int64_t line;
    if (textview_is_open(a) && a->view_src[0]) {   /* from list-source's view: the line shown */
        snprintf(path, sizeof path, "%s", a->view_src);
        line = (a->view_hit >= 0 ? a->view_hit : a->view_top) + 1;
    } else if (site(a, "edit-source", arg, path, sizeof path, &line) < 0) {
        return AF_FAILED;
    }
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = "vi";
    /* as git does: the editor string may carry flags ("code -w"), the file is an argument, never parsed */
    char plus[32];
    snprintf(plus, sizeof plus, "+%lld", (long long)line);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s \"$@\"", ed);
    char *argv[] = {"/bin/sh", "-c", cmd, (char *)ed, plus, path, NULL};
    int st = screen_run_external(argv);
    if (st != 0)
        app_message(a, 1, "edit-source: %s +%lld %s %s", ed, (long long)line, path,
                    st < 0 ? "did not run" : "exited with an error");
    else
        app_message(a, 0, "edit-source: %s +%lld %s", ed, (long long)line, path);
    return (st == 0 ? AF_HANDLED : AF_FAILED);
}
