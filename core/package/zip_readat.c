/* zip_readat.c — a libzip source over a read-at function (zip_readat.h). */
#include <errno.h>
#include "zip_readat.h"

static zip_int64_t readat_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    zip_readat *r = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        r->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        zip_uint64_t left = r->size - (r->pos < r->size ? r->pos : r->size), done = 0;
        if (len > left)
            len = left;
        while (done < len) {   /* short reads are fine: ask for the rest */
            strbuf e = STRBUF_INIT;
            long n = r->read(r->ctx, r->pos + done, (char *)data + done, (size_t)(len - done), &e);
            strbuf_release(&e);
            if (n <= 0) {
                zip_error_set(&r->error, ZIP_ER_READ, EIO);
                return -1;
            }
            done += (zip_uint64_t)n;
        }
        r->pos += done;
        return (zip_int64_t)done;
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->size = r->size;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&r->error, data, len);
    case ZIP_SOURCE_SEEK: {
        zip_int64_t at = zip_source_seek_compute_offset(r->pos, r->size, data, len, &r->error);
        if (at < 0)
            return -1;
        r->pos = (zip_uint64_t)at;
        return 0;
    }
    case ZIP_SOURCE_TELL:
        return (zip_int64_t)r->pos;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
                                              ZIP_SOURCE_SUPPORTS, -1);
    default:
        zip_error_set(&r->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

void zip_readat_init(zip_readat *r, zip_readat_fn read, void *ctx, uint64_t size)
{
    r->read = read;
    r->ctx = ctx;
    r->size = size;
    r->pos = 0;
    zip_error_init(&r->error);
}

zip_t *zip_readat_open(zip_readat *r, int flags, zip_error_t *ze)
{
    zip_source_t *zs = zip_source_function_create(readat_cb, r, ze);
    zip_t *za = zs ? zip_open_from_source(zs, flags, ze) : NULL;
    if (!za && zs)
        zip_source_free(zs);
    return za;
}

void zip_readat_fini(zip_readat *r) { zip_error_fini(&r->error); }
