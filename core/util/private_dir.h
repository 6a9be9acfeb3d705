/* private_dir.h — private temporary folders that clean up after a crash:
 * package extractions (aotidbg-pkg-*), the agent's folder on a remote box
 * and its copy here (aotidbg-remote-*), a run's input files (aotidbg-inputs-*).
 *
 * private_dir_make(PREFIX) creates $TMPDIR/PREFIX-XXXXXX (mode 0700) with a
 * file .owner inside holding "PID\n", flock'd for as long as this process
 * holds the folder (locked before it gets its name: a sweep never finds a live
 * folder's .owner unlocked). Before it does, it removes the stale folders of the same
 * prefix there: ours (owner uid), not links, whose .owner nobody holds (its
 * process died: killed, crashed, its box rebooted), or, with no .owner (a
 * folder of an older version, or one being made), older than a day. So a
 * killed run's extraction does not survive the next run's start.
 *
 * Ownership: the returned path is malloc'd (caller frees);
 * private_dir_remove() removes the tree and lets the lock go.
 * Errors: NULL with the message appended to err. Not thread-safe (one table). */
#ifndef AOTIDBG_PRIVATE_DIR_H
#define AOTIDBG_PRIVATE_DIR_H
#include "strbuf.h"

char *private_dir_make(const char *prefix, strbuf *err);
/* Removes dir and everything under it (links are removed, never followed). */
void private_dir_remove(const char *dir);
/* Removes the stale PREFIX-* folders in $TMPDIR (see above); how many. */
int private_dir_sweep(const char *prefix);

#endif
