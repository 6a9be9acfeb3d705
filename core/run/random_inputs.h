/* random_inputs.h — `--inputs random`: an inputs spec made from what the
 * compiled package says of its inputs, written to a file so that the run can
 * be repeated exactly (`--inputs FILE`).
 *
 * From wrapper.cpp (wrapper_scan.h): each input's rank, dtype, device and
 * static sizes; each dynamic size at the smallest value of at least 2 that
 * its checked bounds allow, one value per size symbol (s0) across inputs.
 * From the kernels' index checks (index_bounds.h): an integer input that a
 * check bounds gets randint in [0, bound); other integers [0, 16). Floats
 * get randn, bool random bits; input i is seeded seed + i.
 *
 * Errors: -1 with err (an input of unknown rank; the file not written, then
 * nothing is left at path). Ownership: nothing kept. Threads: none. */
#ifndef AOTIDBG_RANDOM_INPUTS_H
#define AOTIDBG_RANDOM_INPUTS_H
#include <stdint.h>
#include "index_bounds.h"
#include "strbuf.h"
#include "wrapper_scan.h"

/* Writes the spec to path (path.tmp, renamed over it). device: for inputs
 * whose device the package does not check (the run's device). said gets
 * what was made, one line per input and per dynamic size ("  input 1 (ids):
 * int64 [2, 4] randint [0, 100): the check 0 <= tmp2 < 100L in
 * cpp_fused_embedding_0"). */
int random_inputs_write(const wrapper_scan *ws, const index_bound *bounds, size_t nbounds, uint64_t seed,
                        const char *device, const char *path, strbuf *said, strbuf *err);

#endif
