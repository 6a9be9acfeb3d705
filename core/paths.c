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

const char *aotidbg_data_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *env = getenv("AOTIDBG_DATA_DIR");
    const char *e = exe_dir();
    char cand[PATH_MAX];
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
    } else if (e && (snprintf(cand, sizeof cand, "%s/../share/aotidbg", e), is_dir_with(cand, "routes.yaml"))) {
        snprintf(dir, sizeof dir, "%s", cand);
    } else {
        snprintf(dir, sizeof dir, "%s", AOTIDBG_SOURCE_DIR);
    }
    return dir;
}

const char *aotidbg_runner_path(void)
{
    static char path[PATH_MAX];
    if (path[0])
        return path;
    const char *env = getenv("AOTIDBG_RUNNER");
    const char *e = exe_dir();
    if (env && *env)
        snprintf(path, sizeof path, "%s", env);
    else if (e && is_dir_with(e, "aotidbg-runner"))
        snprintf(path, sizeof path, "%s/aotidbg-runner", e);
    else
        snprintf(path, sizeof path, "aotidbg-runner");
    return path;
}
