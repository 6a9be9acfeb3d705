/* zipread.h — the runner's reader of .pt2 archives, so a remote runner can
 * extract the model it is asked to run (aotidbg-runner --serve, EXTRACT).
 *
 * Not a zip library: it reads the central directory (zip64 too, as torch
 * writes for packages over 4 GiB) and copies entries whose names start with
 * given prefixes into a folder. torch writes every .pt2 entry STORED (no
 * compression; PyTorchFileWriter::writeRecord), so that is the path that
 * matters; deflated entries (a package re-zipped by hand) are inflated with
 * zlib when the runner was built with it, and CRC-32s are checked then too.
 * The front end has already validated the same archive with libzip; this
 * reader trusts nothing anyway: entry count, directory size, name length,
 * entry and total sizes are capped, names must be safe relative paths
 * (path_unsafe_entry), symbolic links, encrypted entries and data running
 * past the directory are refused, and files are created O_EXCL|O_NOFOLLOW
 * under the destination folder only.
 * Ownership: a zipread owns its fd and entry table; zr_close() frees them.
 * Errors: 0 / -1 with err naming the archive and the entry. */
#ifndef AOTIDBG_ZIPREAD_H
#define AOTIDBG_ZIPREAD_H
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

#define ZR_MAX_ENTRIES   100000
#define ZR_MAX_CD_BYTES  (64u << 20)
#define ZR_MAX_ENTRY     (8ULL << 30)
#define ZR_MAX_TOTAL     (32ULL << 30)

typedef struct {
    char *name;
    uint64_t csize, usize, offset;   /* offset: of the local header */
    uint32_t crc;
    uint16_t method;                 /* 0 stored, 8 deflate */
} zr_entry;

typedef struct {
    int fd;
    const char *path;                /* borrowed */
    uint64_t size, cd_offset;
    size_t n;
    zr_entry *e;
} zipread;

int zr_open(zipread *z, const char *path, strbuf *err);
/* Extracts every entry whose name starts with one of the n prefixes into
 * dest, under its name with the first `strip` bytes cut (the archive's root
 * folder). Entries already there are skipped. *nfiles counts files written. */
int zr_extract(zipread *z, const char *const *prefixes, size_t n, size_t strip, const char *dest, size_t *nfiles,
               strbuf *err);
void zr_close(zipread *z);

#endif
