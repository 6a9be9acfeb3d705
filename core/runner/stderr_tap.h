/* stderr_tap.h — keeps the tail of the runner's own stderr, so that a failed
 * model Run or container creation can report the model's real message.
 *
 * Why: AOTI models (torch 2.11 has no AOTInductorGetLastError) catch their
 * C++ exception and print "Error: <what>" (after "Exception in aoti_torch:
 * ...") with std::cerr, then return 1. We make fd 2 a pipe; a small thread
 * forwards every byte at once to the original stderr (the front end's pipe)
 * and keeps the last STAP_RING bytes. A fatal signal handler and stap_drain()
 * pass on whatever is still in the pipe, so no byte is lost when we die.
 *
 * Errors: stap_start returns 0/-1 (then stderr is left as it was and the
 * other calls do nothing). Single owner: the runner's main thread. */
#ifndef AOTIDBG_STDERR_TAP_H
#define AOTIDBG_STDERR_TAP_H
#include <stdint.h>
#include "strbuf.h"

#define STAP_RING (16u * 1024u)

int stap_start(void);
/* fn (async-signal-safe) runs first in the fatal-signal handler (the protocol's queued frames, channel.h). */
void stap_on_fatal(void (*fn)(void));
/* Forwards and records everything written to fd 2 so far (call after the
 * writer returned, e.g. after a failed Run). Safe when not started. */
void stap_drain(void);
/* Bytes seen so far: a mark to pass to stap_model_error. */
uint64_t stap_mark(void);
/* Appends to out the model's message written since mark: the last line that
 * starts with "Error: ", preceded by the "Exception in aoti_torch: ..."
 * line(s) before it (from that phrase on: torch puts a log header in front;
 * the C++ backtrace between them is left out; newline-joined); when there is no "Error: " line, the
 * last such exception line. Returns 1 when it found one, 0 when not (out is
 * then unchanged). Drains first. */
int stap_model_error(uint64_t mark, strbuf *out);

#endif
