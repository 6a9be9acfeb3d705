#include "paths.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AOTIDBG_SOURCE_DIR
#define AOTIDBG_SOURCE_DIR "."
#endif

char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    char *r = malloc(la + lb + 2);
    if (!r)
        abort();
    memcpy(r, a, la);
    r[la] = '/';
    memcpy(r + la + 1, b, lb + 1);
    return r;
}

static const char *exe_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0)
            return NULL;
        dir[n] = 0;
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
    }
    return dir;
}

static int is_dir_with(const char *dir, const char *file)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return access(p, R_OK) == 0;
}

/* Found once and kept: the environment variable `var` when set, else what
 * `pick` finds from the executable's folder (exe may be NULL). */
typedef void (*path_pick)(char *out, size_t n, const char *exe);

static const char *chosen_path(char *out, size_t n, const char *var, path_pick pick)
{
    if (out[0])
        return out;
    const char *env = getenv(var);
    if (env && *env)
        snprintf(out, n, "%s", env);
    else
        pick(out, n, exe_dir());
    return out;
}

static void pick_data_dir(char *out, size_t n, const char *exe)
{
    char cand[PATH_MAX];
    if (exe && (snprintf(cand, sizeof cand, "%s/../share/aotidbg", exe), is_dir_with(cand, "routes.yaml")))
        snprintf(out, n, "%s", cand);
    else
        snprintf(out, n, "%s", AOTIDBG_SOURCE_DIR);
}

static void pick_runner(char *out, size_t n, const char *exe)
{
    if (exe && is_dir_with(exe, "aotidbg-runner"))
        snprintf(out, n, "%s/aotidbg-runner", exe);
    else
        snprintf(out, n, "aotidbg-runner");
}

const char *aotidbg_data_dir(void)
{
    static char dir[PATH_MAX];
    return chosen_path(dir, sizeof dir, "AOTIDBG_DATA_DIR", pick_data_dir);
}

const char *aotidbg_runner_path(void)
{
    static char path[PATH_MAX];
    return chosen_path(path, sizeof path, "AOTIDBG_RUNNER", pick_runner);
}

const char *path_unsafe_entry(const char *name)
{
    if (!*name)
        return "empty entry name";
    if (name[0] == '/')
        return "absolute path";
    if (strlen(name) > 1024)
        return "name longer than 1024 bytes";
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c == '\\')
            return "backslash in name";
        if (*c < 0x20 || *c == 0x7f)
            return "control character in name";
    }
    for (const char *p = name; *p;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return "'..' component (path escapes the archive)";
        if (n == 1 && p[0] == '.')
            return "'.' component";
        if (n == 0 && slash)
            return "empty path component";
        if (!slash)
            break;
        p = slash + 1;
    }
    return NULL;
}
