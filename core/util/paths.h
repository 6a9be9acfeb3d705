/* paths.h — where aotidbg finds its own files.
 * Returned strings are static or malloc'd as noted; errors return NULL. */
#ifndef AOTIDBG_PATHS_H
#define AOTIDBG_PATHS_H

/* Directory holding routes.yaml, themes/, sessions/: $AOTIDBG_DATA_DIR, else
 * <exe>/../share/aotidbg, else the source tree the binary was built from.
 * Static storage; never NULL (falls back to the source dir). */
const char *aotidbg_data_dir(void);
/* Path of aotidbg-runner: $AOTIDBG_RUNNER, else beside the running executable,
 * else on PATH. Static storage; never NULL. */
const char *aotidbg_runner_path(void);
/* Why an archive entry name may not be written under a folder (absolute,
 * "..", "." or empty components, backslashes, control characters, over 1024
 * bytes); NULL when it is safe. Static strings. */
const char *path_unsafe_entry(const char *name);
/* Joins a and b with one '/'; malloc'd, caller frees. */
char *path_join(const char *a, const char *b);

#endif
