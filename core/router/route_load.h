/* route_load.h — a session read for routing a slice at a time: memory
 * follows what the router reads, not the size of the file.
 *
 * route_session_load keeps the header (device, package, inputs, checklist,
 * provenance), every event that is not a kernel (errors, log lines, the
 * runner's exit, nan, divergence and memcheck reports) and, of the kernels,
 * only those the router reads:
 *   - the first that failed and the first with status nan (router_session.c);
 *   - the kernel the first error naming one names, and the one the nan event names
 *     (a second read when that kernel's slice was freed before the event came);
 *   - the first whose written after-tensor holds NaN/Inf by hunt_nan's test
 *     and, when no nan event already says where it came from, the producers
 *     of its tensors (hunt_producer_of: a read up to that kernel);
 *   - when no error names a kernel the file has and there is a package to
 *     read (package, else the session's own: router_session_package), the
 *     last launch of each kernel name (oob_element.c then picks the failing
 *     kernel by the name an assert gives: memory follows the model's
 *     kernels, not its launches; a second read).
 * Routing what this keeps gives what routing session_load's whole session
 * gives: tests/unit/test_route_load.c checks it on every session in the tree.
 * A file whose index: key (model.h event_index, written by a run's final
 * save from route_session_picks) fits it (its size, each offset the start
 * of an event of the events list, the events parsing alone, 256 MiB of
 * them at most) is read by that index alone: the header, then those
 * events; any misfit reads the whole file.
 *   step: events a slice (0: the default); package: --package, or NULL;
 *   progress: NULL, or told how each read goes.
 * Returns 0 and *out (the caller's: session_free) and *rl (route_loaded_free,
 * after the session is done with), or -1 and err as session_load's
 * ("file:line:col: ...").
 * Threads: one. */
#ifndef AOTIDBG_ROUTE_LOAD_H
#define AOTIDBG_ROUTE_LOAD_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

typedef struct route_loaded route_loaded;

/* Told after each slice of each read of the file: what the read is for
 * ("reading", "finding the producers", "fetching kernels"), the bytes read
 * and the file's size (the last call of a read has done == total). */
typedef struct {
    void (*fn)(void *ctx, const char *what, uint64_t done, uint64_t total);
    void *ctx;
} route_progress;

int route_session_load(const char *path, size_t step, const char *package, const route_progress *progress,
                       session **out, route_loaded **rl, strbuf *err);
/* The events a route of s reads, as route_session_load keeps them from its
 * file, with the last launch of every kernel name (so that the list serves
 * any --package): event numbers, ascending, in *at (the caller's: free),
 * *n of them. For session_write_indexed. */
void route_session_picks(const session *s, size_t **at, size_t *n);
/* 1 when route_session_load read its file by the index. */
int route_loaded_indexed(const route_loaded *rl);
/* The kernels s holds of the file's (for a progress or a test): kept, all. */
void route_loaded_counts(const route_loaded *rl, size_t *kept, size_t *kernels);
void route_loaded_free(route_loaded *rl);   /* NULL is fine */

#endif
