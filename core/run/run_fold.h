/* run_fold.h — folds the repeating iterations of a while_loop as a live run records them.
 *
 * Each launch inside a while_loop opens or continues an iteration (its loop
 * and round, loop_iter.h). An iteration whose events are only kernels, all
 * ok, with no eager checks, no stop and no error, that launches the same
 * kernels (names, branches, tensors) as the one before it, is folded: its
 * launches become counts, times and statistics ranges in one fold event
 * (model.h fold_event) and its events leave the session. The first iteration
 * of each entry into a loop and the last one before the sequence changes
 * stay whole, as does every iteration with anything else in it.
 *
 * Memory: an open iteration's events are allocated from an arena of its own
 * (the session's is swapped for it while the recorder handles that
 * iteration's messages); folding one frees it, keeping one moves its blocks
 * into the session's. s->nevents_held says how many events at the tail may
 * still change, so that the streaming writer leaves them until settled.
 *
 * Ownership: a run_fold belongs to its recorder (run_record.c) and borrows
 * the session. No errors. */
#ifndef AOTIDBG_RUN_FOLD_H
#define AOTIDBG_RUN_FOLD_H
#include <stdint.h>
#include "model.h"

typedef struct run_fold run_fold;

run_fold *run_fold_new(session *s);
void run_fold_free(run_fold *f);
/* The run starts over (the session's events were cleared): every iteration's memory goes. */
void run_fold_restart(run_fold *f);
/* A launch starts in branch (NULL main graph) at iteration (-1 none), before its event is added:
 * closes the iteration it does not belong to, opens its own; 1 when the session's arena is now the
 * iteration's (call run_fold_leave after adding the event). */
int run_fold_kernel(run_fold *f, const char *branch, int64_t iteration);
/* A message about kernel index ki: 1 when ki is in the open iteration and its arena is swapped in. */
int run_fold_enter(run_fold *f, int64_t ki);
void run_fold_leave(run_fold *f);
/* The open iteration stopped or failed: it stays whole. */
void run_fold_mark(run_fold *f);
/* Closes the open iteration and keeps the last folded one whole (the loop ended, or the run). */
void run_fold_flush(run_fold *f);
/* Values (tensor_rec.nvalues) that left the session in folded iterations since the last call:
 * the recorder gives them back to its value budget. */
uint64_t run_fold_take_dropped(run_fold *f);

#endif
