/* test_stderr_tap.c — the runner's stderr tap (core/runner/stderr_tap.c, no
 * torch in it, compiled in here): every byte still reaches the original
 * stderr (also when the process aborts right after writing), and the model's
 * "Exception in aoti_torch: ..." / "Error: ..." lines are picked out of the
 * tail for the ERROR text. Runs in forked children so the test's own stderr
 * stays untouched. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../core/runner/stderr_tap.c"
#include "check.h"

static void put(const char *s) { (void)!write(2, s, strlen(s)); }

/* Runs fn in a child whose fd 2 is a fresh file; returns the file's text (malloc'd) and the status. */
static char *in_child(void (*fn)(int report_fd), int *status, char *report, size_t report_len)
{
    char path[] = "/tmp/aotidbg_tap_XXXXXX";
    int fd = mkstemp(path);
    int rp[2];
    if (fd < 0 || pipe(rp)) return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        close(rp[0]);
        dup2(fd, 2);
        fn(rp[1]);
        _exit(0);
    }
    close(rp[1]);
    ssize_t n = 0, k;
    while (report && (size_t)n < report_len - 1 && (k = read(rp[0], report + n, report_len - 1 - (size_t)n)) > 0)
        n += k;
    if (report) report[n] = 0;
    close(rp[0]);
    waitpid(pid, status, 0);
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    strbuf_read_file(&sb, path, 1 << 24, &err);
    unlink(path);
    close(fd);
    strbuf_release(&err);
    return strbuf_detach(&sb, NULL);
}

static void report(int fd, const char *s) { (void)!write(fd, s, strlen(s)); }

static void child_basic(int rfd)
{
    if (stap_start()) { report(rfd, "start failed"); return; }
    put("before the run\nError: old failure\n");
    uint64_t mark = stap_mark();
    put("noise 1\n[E1130 03:31:53.312421621 c_shim_cpu.cpp:594] Exception in aoti_torch: Expected out tensor "
        "to have device cuda:0, but got cpu instead\nException raised from resize_out at RegisterCPU_2.cpp:1108\n"
        "frame #0: c10::Error::Error(c10::SourceLocation) + 0x9d\n\n");
    put("Error: creating the container failed\r\nmore noise\n");
    strbuf out = STRBUF_INIT;
    int r = stap_model_error(mark, &out);
    report(rfd, r ? out.buf : "(none)");
    strbuf_release(&out);
}

static void test_picks_exception_and_error(void)
{
    int st;
    char got[4096];
    char *file = in_child(child_basic, &st, got, sizeof got);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_STR(got, "Exception in aoti_torch: Expected out tensor to have device cuda:0, but got cpu instead\n"
                   "Error: creating the container failed");
    /* forwarded byte for byte, in order */
    CHECK(file && strstr(file, "before the run\nError: old failure\nnoise 1\n[E1130 03:31:53.312421621 c_shim"));
    CHECK(file && strstr(file, "failed\r\nmore noise\n"));
    free(file);
}

static void child_cases(int rfd)
{
    if (stap_start()) { report(rfd, "start failed"); return; }
    strbuf out = STRBUF_INIT;
    uint64_t m = stap_mark();
    put("just noise\n");
    int r1 = stap_model_error(m, &out);          /* nothing to find */
    m = stap_mark();
    put("Exception in aoti_torch: first\nError: one\nException in aoti_torch: second\nError: two\n");
    stap_model_error(m, &out);                   /* the last Error and only its own exception */
    strbuf_addch(&out, '|');
    m = stap_mark();
    put("Exception in aoti_torch: alone\n");
    stap_model_error(m, &out);                   /* no Error line: the exception */
    strbuf_addch(&out, '|');
    /* far more than the ring and a pipe buffer: no deadlock, the tail still found */
    m = stap_mark();
    char line[128];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = 0;
    for (int i = 0; i < 2000; i++) put(line);
    put("Error: after the flood\n");
    stap_model_error(m, &out);
    char head[64];
    snprintf(head, sizeof head, "%d|", r1);
    report(rfd, head);
    report(rfd, out.buf);
    strbuf_release(&out);
}

static void test_cases(void)
{
    int st;
    char got[4096];
    char *file = in_child(child_cases, &st, got, sizeof got);
    CHECK(WIFEXITED(st));
    CHECK_STR(got, "0|Exception in aoti_torch: second\nError: two|Exception in aoti_torch: alone|"
                   "Error: after the flood");
    CHECK(file && strlen(file) > 2000 * 127 && strstr(file, "Error: after the flood\n"));
    free(file);
}

static void child_abort(int rfd)
{
    (void)rfd;
    if (stap_start()) return;
    put("Error: written just before the crash\n");
    abort();
}

static void test_bytes_survive_abort(void)
{
    int st;
    char *file = in_child(child_abort, &st, NULL, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(file && strstr(file, "Error: written just before the crash\n"));
    free(file);
}

static void child_exit(int rfd)
{
    (void)rfd;
    if (stap_start()) return;
    put("last words on a normal exit\n");
    exit(3);
}

static void test_bytes_survive_exit(void)
{
    int st;
    char *file = in_child(child_exit, &st, NULL, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    CHECK(file && strstr(file, "last words on a normal exit\n"));
    free(file);
}

int main(void)
{
    RUN(test_picks_exception_and_error);
    RUN(test_cases);
    RUN(test_bytes_survive_abort);
    RUN(test_bytes_survive_exit);
    return CHECK_DONE();
}
