/* channel.h — the runner's end of the protocol socket (fd PROTO_FD).
 *
 * chan_send writes whole frames before it returns; chan_send_later only
 * queues them (in order), and a flusher thread that chan_open starts writes
 * what is queued every 10 ms, as do the next chan_send, chan_flush or
 * chan_recv, and the sender once 256 KiB wait: a run's launches cost no
 * syscall each (hooks.c), a hang or a live UI sees them within 10 ms, and
 * chan_crash_flush (from the fatal-signal handler, stderr_tap.h) writes the
 * rest when the model crashes, so a crash loses no launch. Only a SIGKILL
 * loses the last 10 ms (hooks.c still flushes each launch outside a
 * while_loop's later rounds). Thread-safe (one lock; the flusher holds it across
 * its write, which keeps frames in order).
 * Receives block and are the model thread's. Errors: -1 means the front end
 * is gone or sent garbage; the message goes to stderr, which the front end
 * captures. */
#ifndef AOTIDBG_CHANNEL_H
#define AOTIDBG_CHANNEL_H
#include "protocol.h"

void chan_open(int fd);   /* and starts the flusher thread */
/* Async-signal-safe: writes the whole frames still queued (after a write under way ends). */
void chan_crash_flush(void);
/* 0 ok, -1 when the peer is gone or the message cannot be encoded. */
int chan_send(const proto_msg *m);
int chan_send_later(const proto_msg *m);
int chan_flush(void);                 /* writes what chan_send_later queued */
/* Blocks for the next message. 1 got one (strings in a), 0 end of stream,
 * -1 malformed (err). */
int chan_recv(proto_msg *m, arena *a, strbuf *err);

#endif
