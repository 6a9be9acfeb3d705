/* cmd_replay.c — `aotidbg replay SESSION.yaml --dump`: loads a session file
 * and prints its plain-text rendering (session_dump, then the kernel time
 * table of kernel_times.h, longest first) on stdout, then one line per
 * --ref-npy (the tensor against the file, as the inspector says it);
 * without --dump, the front end's UI shows it (cli_front.ui). A regular file
 * without --ref-npy is read a slice at a time and each slice freed once
 * rendered (dump_streamed: the same bytes, memory for one slice; with the
 * file's counts: key, the first line prints at once); stdin, --ref-npy and
 * several ranks load the whole file.
 * Exit: 0 loaded (also a cut-off file without counts: the notice goes to
 * stderr), 2 bad usage, a file that does not load (file:line:col on stderr),
 * a file whose counts: or header the text printed first did not bear out,
 * or a --ref-npy whose tensor is not in the session or whose file does not
 * load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arena.h"
#include "commands.h"
#include "kernel_times.h"
#include "rank_waits.h"
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

/* `replay --dump` of the ranks of one --ranks run: each rank's dump in rank order, then the
 * kernels side by side (one line per kernel index, each rank's status) and where each rank
 * ended, with the collective it was left in and the ranks it waited for (rank_waits.h). */
static int dump_ranks(const cli_args *a)
{
    int n = (int)a->npos, rc = EXIT_OK;
    session *s[RUN_MAX_RANKS] = {0};
    const char *paths[RUN_MAX_RANKS];
    strbuf err = STRBUF_INIT;
    for (int k = 0; k < n && rc == EXIT_OK; k++) {
        paths[k] = a->pos[k];
        if (session_load(paths[k], &s[k], &err) < 0)
            rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && rank_sessions_order(s, paths, n, &err) < 0)
        rc = EXIT_USAGE;
    if (rc != EXIT_OK) {
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        goto out;
    }
    if (a->ui.ref_npy.n) {
        fprintf(stderr, "aotidbg: --ref-npy takes one session: give --dump one rank's file\n");
        rc = EXIT_USAGE;
        goto out;
    }
    size_t most = 0;
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < s[k]->nwarnings; i++)
            fprintf(stderr, "aotidbg: warning: %s: %s\n", paths[k], s[k]->warnings[i]);
        printf("=== rank %d of %d: %s ===\n", s[k]->rank, s[k]->world_size, paths[k]);
        session_dump(s[k], stdout);
        if (s[k]->nkernels > most)
            most = s[k]->nkernels;
    }
    printf("=== ranks side by side ===\n");
    for (size_t i = 0; i < most; i++) {
        const kernel_event *k0 = NULL;
        for (int k = 0; k < n && !k0; k++)
            k0 = rank_kernel_at(s[k], (int64_t)i);
        printf("kernel #%zu %s%s%s:", i, k0 ? k0->name : "?", k0 && k0->collective ? " collective " : "",
               k0 && k0->collective ? k0->collective : "");
        for (int k = 0; k < n; k++) {
            const kernel_event *e = rank_kernel_at(s[k], (int64_t)i);
            printf("  rank %d %s", s[k]->rank, e ? kernel_status_name(e->status) : "-");
            if (e && k0 && strcmp(e->name, k0->name))
                printf(" (%s)", e->name);
        }
        putchar('\n');
    }
    rank_pos pos[RUN_MAX_RANKS];
    for (int k = 0; k < n; k++)
        rank_pos_recorded(s[k], &pos[k]);
    for (int k = 0; k < n; k++) {
        char st[64];
        const kernel_event *l = rank_kernel_at(s[k], pos[k].at), *op;
        printf("rank %d: %s, %zu kernel%s", s[k]->rank, session_end_state(s[k], st, sizeof st), s[k]->nkernels,
               s[k]->nkernels == 1 ? "" : "s");
        if (l && pos[k].reach != RANK_REACH_END)
            printf(", %s kernel #%" PRId64 " %s", pos[k].in_kernel ? "in" : "stopped before", l->index, l->name);
        strbuf who = STRBUF_INIT;
        if (rank_waits_for(s, pos, n, k, &op, &who))
            printf(", waiting in %s (group %s, ranks %s) for %s", op->collective, op->group ? op->group : "?",
                   op->participants ? op->participants : "?", who.buf);
        strbuf_release(&who);
        putchar('\n');
    }
    fflush(stdout);
    rc = ferror(stdout) ? EXIT_FAILED : EXIT_OK;
out:
    for (int k = 0; k < n; k++)
        session_free(s[k]);
    strbuf_release(&err);
    return rc;
}

#define DUMP_STEP  512            /* events read, rendered and freed at a time (AOTIDBG_DUMP_STEP for tests) */
#define DUMP_MEM   (4u << 20)     /* rendered events held in memory before they go to a temporary file */
#define DUMP_TIMES 30             /* rows of the kernel time table */

/* The events' rendering until the "events: N (K kernels)" line above them
 * can be printed (it needs the whole file): memory, then an unlinked file in
 * $TMPDIR (or /tmp) when there is more than DUMP_MEM. */
typedef struct {
    char *buf;
    size_t len;
    FILE *mem, *file;
} spool;

static int spool_open(spool *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->mem = open_memstream(&sp->buf, &sp->len);
    return sp->mem ? 0 : -1;
}

/* Memory past DUMP_MEM into the file (made on first use; without one, memory keeps it). */
static void spool_spill(spool *sp)
{
    if (fflush(sp->mem) || sp->len < DUMP_MEM)
        return;
    if (!sp->file) {
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/aotidbg-dump-XXXXXX", dir);
        int fd = mkstemp(tmpl);
        if (fd < 0)
            return;
        unlink(tmpl);
        if (!(sp->file = fdopen(fd, "w+b"))) {
            close(fd);
            return;
        }
    }
    fclose(sp->mem);   /* buf and len final */
    fwrite(sp->buf, 1, sp->len, sp->file);
    free(sp->buf);
    sp->buf = NULL;
    sp->len = 0;
    if (!(sp->mem = open_memstream(&sp->buf, &sp->len)))
        sp->mem = sp->file;   /* the rest straight into the file */
}

/* What the spool holds onto out: 0, or -1 when the temporary file failed. */
static int spool_copy(spool *sp, FILE *out)
{
    int rc = 0;
    fflush(sp->mem);
    if (sp->file) {   /* (when mem is the file, buf is empty) */
        char b[1 << 16];
        size_t n;
        rc = fflush(sp->file) || fseeko(sp->file, 0, SEEK_SET) ? -1 : 0;
        while (!rc && (n = fread(b, 1, sizeof b, sp->file)) > 0)
            fwrite(b, 1, n, out);
        if (ferror(sp->file))
            rc = -1;
    }
    fwrite(sp->buf, 1, sp->len, out);
    return rc;
}

static void spool_close(spool *sp)
{
    if (sp->mem && sp->mem != sp->file)
        fclose(sp->mem);
    free(sp->buf);
    if (sp->file)
        fclose(sp->file);
    memset(sp, 0, sizeof *sp);
}

/* The events left in the file, a slice at a time: each slice's events
 * rendered into out and into kt, then freed (and the spool spilled, when
 * there is one). Returns session_reader_step's last: 0 done, -1 failed. */
static int dump_slices(session_reader *r, FILE *out, spool *sp, kernel_times *kt, strbuf *err)
{
    const session *s = session_reader_session(r);
    const char *env = getenv("AOTIDBG_DUMP_STEP");
    size_t step = env && atol(env) > 0 ? (size_t)atol(env) : DUMP_STEP;
    size_t fe, fk;
    int st;
    do {
        st = session_reader_step(r, step, err);
        if (st < 0)
            break;
        session_reader_forgotten(r, &fe, &fk);
        for (size_t i = 0; i < s->nevents; i++) {
            session_dump_event(s, fe + i, s->events[i], out);
            kernel_times_add(kt, s, s->events[i]);
        }
        if (st > 0) {
            session_reader_forget(r);
            if (sp)
                spool_spill(sp);
        }
    } while (st > 0);
    return st;
}

/* The keys after the events and the kernel time table; the exit code. */
static int dump_end(const session *s, kernel_times *kt)
{
    session_dump_tail(s, stdout);
    if (kt->nall) {   /* where the time went, longest first */
        kernel_times_end(kt, s);
        fputc('\n', stdout);
        kernel_times_print(kt, stdout, DUMP_TIMES, 120);
    }
    fflush(stdout);
    return ferror(stdout) ? EXIT_FAILED : EXIT_OK;
}

static void dump_warnings(const session *s, size_t *done)
{
    for (; *done < s->nwarnings; (*done)++)
        fprintf(stderr, "aotidbg: warning: %s\n", s->warnings[*done]);
}

/* session_dump_head as text (malloc'd; NULL out of memory). */
static char *dump_head_text(const session *s, size_t nevents, size_t nkernels)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m)
        return NULL;
    session_dump_head(s, nevents, nkernels, m);
    if (fclose(m)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A file whose header has counts: (its final save wrote them): the header
 * and the "events:" line print at once, from the file's claim, and each
 * event as it is read. At the end the header is rendered again from what
 * was read; a difference (counts that lie, a header key after the events)
 * is an error on stderr, exit 2, as the text above is not the file's. A
 * cut-off file is a loss, not a lie: a "truncated: yes" line after its
 * events says how many were read, and it exits 0 as the whole load does.
 * -1: nothing printed, the caller's other path does it. */
static int dump_counted(session_reader *r, const char *path)
{
    const session *s = session_reader_session(r);
    const char *claimed_end = s->end_state;   /* a cut sets it to "cut-off" */
    char *claim = dump_head_text(s, (size_t)s->counts.events, (size_t)s->counts.kernels);
    if (!claim)
        return -1;
    size_t warned = 0;
    dump_warnings(s, &warned);
    fputs(claim, stdout);
    kernel_times kt;
    kernel_times_begin(&kt, DUMP_TIMES);
    strbuf err = STRBUF_INIT;
    int rc, st = dump_slices(r, stdout, NULL, &kt, &err);
    dump_warnings(s, &warned);
    if (st < 0) {
        fflush(stdout);
        fprintf(stderr, "aotidbg: %s (the dump above stops there)\n", err.buf);
        rc = EXIT_USAGE;
    } else {
        size_t fe, fk;
        session_reader_forgotten(r, &fe, &fk);
        fe += s->nevents;
        fk += s->nkernels;
        if (s->truncated)   /* a loss, not a lie: said where it shows, and exit 0 as the whole load */
            printf("truncated: yes (the file was cut off; the last event may be missing; the end_state: and "
                   "events: lines above are the file's, the run's end is cut-off, %zu events (%zu kernels) "
                   "were read)\n", fe, fk);
        /* the header again from what was read: of a cut file only its keys (its counts cannot be checked) */
        session now = *s;   /* shallow: only what the cut changed differs */
        if (s->truncated) {
            now.truncated = 0;
            now.end_state = claimed_end;
        }
        char *held = s->truncated ? dump_head_text(&now, (size_t)s->counts.events, (size_t)s->counts.kernels)
                                  : dump_head_text(&now, fe, fk);
        rc = dump_end(s, &kt);
        if (!held) {
            fprintf(stderr, "aotidbg: %s: out of memory\n", path);
            rc = EXIT_FAILED;
        } else if (strcmp(held, claim)) {
            fprintf(stderr, "aotidbg: %s: the header and events: line printed first are not what the file holds "
                    "(%s); delete the file's counts: key and the dump reads the whole file before printing them\n",
                    path, !s->truncated && ((size_t)s->counts.events != fe || (size_t)s->counts.kernels != fk)
                    ? "its counts: key is wrong" : "a top-level key comes after the events");
            rc = EXIT_USAGE;
        }
        free(held);
    }
    kernel_times_release(&kt);
    free(claim);
    strbuf_release(&err);
    return rc;
}

/* `replay --dump` of a regular file read a slice at a time (session_reader):
 * each slice's events rendered into the spool and into the kernel time table,
 * then freed, so that memory holds one slice, not the file. The output is
 * session_dump's, byte for byte. A file with counts: prints as it reads
 * (dump_counted); otherwise the header and the "events:" line need the whole
 * file (keys after the events, the count, a cut-off), so they print at the
 * end of the read, then the spool. Returns the exit code, or -1 when the
 * whole load must do it: a provenance: key after the events (a hand-written
 * file), read after the events that needed it were rendered, or a temporary
 * file that failed to take the text (nothing printed yet; one that cannot be
 * made leaves the text in memory). */
static int dump_streamed(const char *path)
{
    session_reader *r;
    strbuf err = STRBUF_INIT;
    if (session_reader_open(path, &r, &err) < 0) {
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    const session *s = session_reader_session(r);
    if (s->counts.events >= 0 && !session_reader_done(r)) {
        int rc = dump_counted(r, path);
        if (rc >= 0) {
            session_reader_close(r);
            return rc;
        }
    }
    const kernel_call *calls = s->prov.calls;
    size_t ncalls = s->prov.ncalls;
    spool sp;
    if (spool_open(&sp) < 0) {
        session_reader_close(r);
        return -1;
    }
    kernel_times kt;
    kernel_times_begin(&kt, DUMP_TIMES);
    int rc = EXIT_OK, st = dump_slices(r, sp.mem, &sp, &kt, &err);
    if (st < 0) {   /* as session_load: the message, nothing on stdout */
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        rc = EXIT_USAGE;
    } else if (s->prov.calls != calls || s->prov.ncalls != ncalls) {
        rc = -1;
    } else if (sp.file && (fflush(sp.file) || ferror(sp.file))) {
        rc = -1;   /* the temporary file failed (a full disk): the whole load prints it */
    } else {
        size_t warned = 0, fe, fk;
        dump_warnings(s, &warned);
        session_reader_forgotten(r, &fe, &fk);
        session_dump_head(s, fe + s->nevents, fk + s->nkernels, stdout);
        if (spool_copy(&sp, stdout) < 0) {
            fflush(stdout);
            fprintf(stderr, "aotidbg: %s: the dump's temporary file failed: %s\n", path, strerror(errno));
            rc = EXIT_FAILED;
        } else {
            rc = dump_end(s, &kt);
        }
    }
    kernel_times_release(&kt);
    spool_close(&sp);
    session_reader_close(r);
    strbuf_release(&err);
    return rc;
}

int cmd_replay(const cli_args *a)
{
    const char *path = a->pos[0];
    if (!a->replay.dump)   /* the screen: the front end's */
        return a->front && a->front->ui ? a->front->ui(a) : EXIT_USAGE;
    term_guard_stdio();   /* session fields are untrusted: no control byte reaches the terminal */
    if (a->npos > 1)
        return dump_ranks(a);
    struct stat st;
    if (!a->ui.ref_npy.n && strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode)) {
        int rc = dump_streamed(path);   /* --ref-npy and stdin: the whole load below */
        if (rc >= 0)
            return rc;
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
