/* eager_weights.h — the program's weights handed to the runner (--eager), which
 * compares each with the package's constant of the same original FQN before
 * the model runs (core/runner/param_diff.h) and answers WEIGHT_DIFF: which
 * weight differs and where (rows of a 2-D weight, dim-0 indices otherwise),
 * which cannot be compared and why (model.h weights_cmp).
 *
 * The weights come from the archive's signature and payload configs
 * (eager_program.h), without its graph, so that a program the runner cannot
 * interpret (symbolic shapes, higher-order ops) still has its weights
 * compared.
 *
 * Ownership: the messages, their strings and arrays live in the caller's
 * arena. Errors: -1 with why (the weights could not be listed) in why; then
 * no message, and the session says why none was compared. Threads: one. */
#ifndef AOTIDBG_EAGER_WEIGHTS_H
#define AOTIDBG_EAGER_WEIGHTS_H
#include <stddef.h>
#include "arena.h"
#include "eager_program.h"
#include "protocol.h"
#include "strbuf.h"

/* One WEIGHT_CHECK per weight of the program at path (absolute: the runner opens
 * it), read from prog when it is not NULL (the program as eager_program_read read
 * it), else read here. *n may be 0 (a program without weights). */
int eager_weights_checks(const char *path, const eager_program *prog, arena *a, proto_msg **out, size_t *n,
                         strbuf *why);

#endif
