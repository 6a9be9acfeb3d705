/* channel.h — the runner's end of the protocol socket (fd PROTO_FD).
 *
 * Sends are synchronous and whole-frame (a hook's events are on the wire
 * before the model moves on, so a crash right after loses nothing).
 * Receives block. Errors: -1 means the front end is gone or sent garbage;
 * the message goes to stderr, which the front end captures. */
#ifndef AOTIDBG_CHANNEL_H
#define AOTIDBG_CHANNEL_H
#include "protocol.h"

void chan_open(int fd);
/* 0 ok, -1 when the peer is gone or the message cannot be encoded. */
int chan_send(const proto_msg *m);
/* Blocks for the next message. 1 got one (strings in a), 0 end of stream,
 * -1 malformed (err). */
int chan_recv(proto_msg *m, arena *a, strbuf *err);

#endif
