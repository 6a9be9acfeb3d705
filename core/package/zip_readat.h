/* zip_readat.h — a libzip source over "read these bytes at this offset": a
 * seekable, read-only stream of known size, for archives that are not a local
 * file (a package read through package_source from another box, a torch.save
 * archive inside a package entry).
 * Ownership: the caller owns the zip_readat and keeps it alive (and at the
 * same address) as long as libzip uses the source; zip_readat_fini() after.
 * Errors: a failed read is ZIP_ER_READ for libzip (its message is dropped:
 * the caller names the archive).
 * Threads: one libzip handle at a time, on its thread. */
#ifndef AOTIDBG_ZIP_READAT_H
#define AOTIDBG_ZIP_READAT_H
#include <stddef.h>
#include <stdint.h>
#include <zip.h>
#include "strbuf.h"

/* Fills buf with up to len bytes at off: how many (0 or less: failed). */
typedef long (*zip_readat_fn)(void *ctx, uint64_t off, void *buf, size_t len, strbuf *err);

typedef struct {
    zip_readat_fn read;
    void *ctx;
    uint64_t size, pos;
    zip_error_t error;
} zip_readat;

void zip_readat_init(zip_readat *r, zip_readat_fn read, void *ctx, uint64_t size);
/* zip_open_from_source() of it with flags; NULL with *ze set (the source freed). */
zip_t *zip_readat_open(zip_readat *r, int flags, zip_error_t *ze);
void zip_readat_fini(zip_readat *r);

#endif
