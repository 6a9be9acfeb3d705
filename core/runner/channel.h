/* channel.h — the runner's end of the protocol socket (fd PROTO_FD).
 *
 * chan_send writes whole frames before it returns; chan_send_later only
 * queues them (in order, written by the next chan_send, chan_flush or
 * chan_recv, or once 256 KiB wait), so that the hooks can put one write per
 * kernel launch on the wire, right before the launch (hooks.c).
 * Receives block. Errors: -1 means the front end is gone or sent garbage;
 * the message goes to stderr, which the front end captures. */
#ifndef AOTIDBG_CHANNEL_H
#define AOTIDBG_CHANNEL_H
#include "protocol.h"

void chan_open(int fd);
/* 0 ok, -1 when the peer is gone or the message cannot be encoded. */
int chan_send(const proto_msg *m);
int chan_send_later(const proto_msg *m);
int chan_flush(void);                 /* writes what chan_send_later queued */
/* Blocks for the next message. 1 got one (strings in a), 0 end of stream,
 * -1 malformed (err). */
int chan_recv(proto_msg *m, arena *a, strbuf *err);

#endif
