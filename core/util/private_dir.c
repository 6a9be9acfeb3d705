/* private_dir.c — private temporary folders with an owner lock (private_dir.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "private_dir.h"

#define OWNER ".owner"
#define OWNER_NEW ".owner.new"   /* while it is made: locked before it is named OWNER */
#define LEGACY_AGE_S (24 * 3600)
#define MAX_HELD 64

static struct {
    char *dir;
    int fd;
} held[MAX_HELD];

static const char *tmp_root(void)
{
    const char *td = getenv("TMPDIR");
    return td && *td ? td : "/tmp";
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* 1 when the folder name/ in root is a stale one of ours. */
static int is_stale(int rootfd, const char *name)
{
    struct stat st;
    if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return 0;
    int dfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    int fd = openat(dfd, OWNER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    close(dfd);
    if (fd < 0)   /* no owner file: only an old one */
        return errno == ENOENT && time(NULL) - st.st_mtime > LEGACY_AGE_S;
    int stale = !flock(fd, LOCK_EX | LOCK_NB);   /* nobody holds it: its process is gone */
    close(fd);
    return stale;
}

int private_dir_sweep(const char *prefix)
{
    const char *root = tmp_root();
    DIR *d = opendir(root);
    if (!d)
        return 0;
    size_t n = strlen(prefix);
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, n) || e->d_name[n] != '-' || strlen(e->d_name + n + 1) != 6)
            continue;
        if (!is_stale(dirfd(d), e->d_name))
            continue;
        char *path = NULL;
        if (asprintf(&path, "%s/%s", root, e->d_name) < 0)
            break;
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        removed++;
        free(path);
    }
    closedir(d);
    return removed;
}

char *private_dir_make(const char *prefix, strbuf *err)
{
    private_dir_sweep(prefix);
    char *dir = NULL;
    if (asprintf(&dir, "%s/%s-XXXXXX", tmp_root(), prefix) < 0)
        abort();
    if (!mkdtemp(dir)) {
        strbuf_addf(err, "cannot create a private folder %s: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    /* .owner appears already locked: made and flock'd as OWNER_NEW, then renamed. Another run's
     * sweep that opened a bare .owner between its creation and our flock would take the lock
     * itself, find the folder "stale" and remove it under us (seen: a rank's extraction gone,
     * "No such file or directory", while the others waited for it in the rendezvous). A folder
     * without .owner is only removed when it is over a day old. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = dfd < 0 ? -1 : openat(dfd, OWNER_NEW, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int slot = -1;
    for (int i = 0; i < MAX_HELD && slot < 0; i++)
        if (!held[i].dir)
            slot = i;
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) || slot < 0 || dprintf(fd, "%ld\n", (long)getpid()) < 0 ||
        renameat(dfd, OWNER_NEW, dfd, OWNER)) {
        strbuf_addf(err, "cannot lock the private folder %s: %s", dir, slot < 0 ? "too many open" : strerror(errno));
        if (fd >= 0)
            close(fd);
        if (dfd >= 0)
            close(dfd);
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(dir);
        return NULL;
    }
    close(dfd);
    held[slot].dir = strdup(dir);
    held[slot].fd = fd;
    if (!held[slot].dir)
        abort();
    return dir;
}

void private_dir_remove(const char *dir)
{
    if (!dir || !*dir)
        return;
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    for (int i = 0; i < MAX_HELD; i++)
        if (held[i].dir && !strcmp(held[i].dir, dir)) {
            close(held[i].fd);
            free(held[i].dir);
            held[i].dir = NULL;
        }
}
