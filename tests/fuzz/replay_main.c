/* replay_main.c — a fuzz target without libFuzzer: runs its
 * LLVMFuzzerTestOneInput over every file named (folders: every file in them,
 * sorted), so ctest replays each committed seed corpus on every build
 * (label fuzz-seeds) and a seed that crashes or trips a target's own check
 * fails the tests. Usage: replay_<target> FILE|DIR...  Exit 0, or 1 when an
 * input cannot be read (a finding aborts the process). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz_target.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        abort();
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    int inputs = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            char **names = NULL;
            size_t nn = 0;
            for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_name[0] == '.')
                    continue;
                names = realloc(names, (nn + 1) * sizeof *names);
                names[nn++] = strdup(de->d_name);
            }
            if (d)
                closedir(d);
            qsort(names, nn, sizeof *names, by_name);
            for (size_t j = 0; j < nn; j++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], names[j]);
                bad |= run_file(path) != 0;
                inputs++;
                free(names[j]);
            }
            free(names);
        } else {
            bad |= run_file(argv[i]) != 0;
            inputs++;
        }
    }
    printf("%d inputs replayed\n", inputs);
    return bad || !inputs;
}
