/* package_sources.c — a package's generated sources from a .pt2, a folder or
 * a wrapper.cpp (see package_sources.h). */
#include "package_sources.h"
#include "compat.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "package.h"

#define MAX_DIR_DEPTH 6

/* First regular file under dir, depth levels down at most, whose name ends
 * with suffix; malloc'd, NULL when none. Links are not followed. */
static char *find_file(const char *dir, const char *suffix, int depth)
{
    if (depth < 0)
        return NULL;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *p = xmalloc(n);
        snprintf(p, n, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            if (S_ISREG(st.st_mode) && ends_with(e->d_name, suffix)) {
                found = p;
                continue;
            }
            if (S_ISDIR(st.st_mode))
                found = find_file(p, suffix, depth - 1);
        }
        free(p);
    }
    closedir(d);
    return found;
}

/* Reads the file named suffix in dir (no subfolders) into sb, its path into
 * at (may be NULL); 1 when read. */
static int read_beside(const char *dir, const char *suffix, size_t max, strbuf *sb, strbuf *at)
{
    char *path = find_file(dir, suffix, 0);
    int ok = 0;
    if (path) {
        strbuf ignore = STRBUF_INIT;
        ok = strbuf_read_file(sb, path, max, &ignore) == 0;
        if (!ok)
            strbuf_reset(sb);
        else if (at)
            strbuf_addstr(at, path);
        strbuf_release(&ignore);
        free(path);
    }
    return ok;
}

static int read_files(const char *pkg, int is_dir, size_t max, package_sources *out, strbuf *err)
{
    char *wpath = is_dir ? find_file(pkg, ".wrapper.cpp", MAX_DIR_DEPTH) : xstrdup(pkg);
    if (!wpath) {
        strbuf_addf(err, "%s: no *.wrapper.cpp in this folder", pkg);
        return -1;
    }
    if (strbuf_read_file(&out->wrapper, wpath, max, err)) {
        free(wpath);
        return -1;
    }
    strbuf_addstr(&out->wrapper_at, wpath);
    char *slash = strrchr(wpath, '/');
    if (slash)
        *slash = 0;
    const char *dir = slash ? wpath : ".";
    read_beside(dir, ".kernel.cpp", max, &out->kernel, &out->kernel_at);
    out->has_kernel_info = read_beside(dir, "kernel_information.json", max, &out->kernel_info, NULL);
    free(wpath);
    return 0;
}

static int read_package(const char *pkg, const char *model, size_t max, package_sources *out, strbuf *err)
{
    package_t *p = NULL;
    int rc = -1;
    if (package_open(&p, pkg, err))
        return -1;
    package_model *m = package_find_model(p, model, err);
    if (m && !m->wrapper_cpp_entry)
        strbuf_addf(err, "%s: the package has no wrapper.cpp", pkg);
    else if (m && package_read_entry(p, m->wrapper_cpp_entry, max, &out->wrapper, err) == 0) {
        strbuf ignore = STRBUF_INIT;
        strbuf_addstr(&out->wrapper_at, m->wrapper_cpp_entry);
        if (m->kernel_cpp_entry && package_read_entry(p, m->kernel_cpp_entry, max, &out->kernel, &ignore))
            strbuf_reset(&out->kernel);
        else if (m->kernel_cpp_entry)
            strbuf_addstr(&out->kernel_at, m->kernel_cpp_entry);
        if (m->kernel_info_entry)
            out->has_kernel_info = package_read_entry(p, m->kernel_info_entry, max, &out->kernel_info, &ignore) == 0;
        if (!out->has_kernel_info)
            strbuf_reset(&out->kernel_info);
        strbuf_release(&ignore);
        rc = 0;
    }
    package_close(p);
    return rc;
}

int package_sources_read(const char *pkg, const char *model, size_t max, package_sources *out, strbuf *err)
{
    struct stat st;
    if (stat(pkg, &st)) {
        strbuf_addf(err, "%s: cannot read it", pkg);
        return -1;
    }
    if (S_ISDIR(st.st_mode) || ends_with(pkg, ".wrapper.cpp"))
        return read_files(pkg, S_ISDIR(st.st_mode), max, out, err);
    return read_package(pkg, model, max, out, err);
}

void package_sources_release(package_sources *ps)
{
    strbuf_release(&ps->wrapper);
    strbuf_release(&ps->kernel);
    strbuf_release(&ps->kernel_info);
    strbuf_release(&ps->wrapper_at);
    strbuf_release(&ps->kernel_at);
    ps->has_kernel_info = 0;
}
