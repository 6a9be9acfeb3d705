/* channel.c — framing over the protocol socket (channel.h). */
#include "channel.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int chan_fd = -1;
static strbuf out = STRBUF_INIT, in = STRBUF_INIT;
static size_t in_off;                 /* bytes of `in` already decoded */

void chan_open(int fd) { chan_fd = fd; }

/* Frames encoded but not yet written (chan_send_later), in order. */
#define CHAN_PENDING_MAX (256u << 10)

static int write_all(const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(chan_fd, buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        off += (size_t)w;
    }
    return 0;
}

int chan_flush(void)
{
    if (!out.len) return 0;
    int rc = write_all(out.buf, out.len);
    strbuf_reset(&out);
    if (out.alloc > (4u << 20)) strbuf_release(&out);   /* don't keep a huge TENSOR's buffer */
    return rc;
}

int chan_send_later(const proto_msg *m)
{
    strbuf err = STRBUF_INIT;
    size_t len0 = out.len;
    if (proto_encode(&out, m, &err)) {
        strbuf_setlen(&out, len0);
        fprintf(stderr, "aotidbg-runner: %s\n", err.buf);
        strbuf_release(&err);
        return -1;
    }
    return out.len >= CHAN_PENDING_MAX ? chan_flush() : 0;
}

int chan_send(const proto_msg *m)
{
    return chan_send_later(m) ? -1 : chan_flush();
}

int chan_recv(proto_msg *m, arena *a, strbuf *err)
{
    for (;;) {
        long r = proto_decode((unsigned char *)in.buf + in_off, in.len - in_off, m, a, err);
        if (r < 0) return -1;
        if (r > 0) {
            in_off += (size_t)r;
            return 1;
        }
        if (in_off) {                  /* compact before reading more */
            size_t rest = in.len - in_off;
            memmove(in.buf, in.buf + in_off, rest);
            strbuf_setlen(&in, rest);
            in_off = 0;
        }
        if (chan_flush()) return 0;   /* the peer answers what it has seen */
        strbuf_grow(&in, 65536);
        ssize_t n = read(chan_fd, in.buf + in.len, in.alloc - in.len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        strbuf_setlen(&in, in.len + (size_t)n);
    }
}
