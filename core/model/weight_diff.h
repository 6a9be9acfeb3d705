/* weight_diff.h — the program's weights against the package's constants
 * (--eager): the session's record of them (model.h weights_cmp, filled as
 * the runner's WEIGHT_DIFF messages arrive) and the sentences `run` and
 * `replay --dump` print about them.
 *
 * Every sentence says what it covered: how many weights were compared and
 * how (byte for byte, then element by element for those that differ), and
 * which were not and why (a constant the package's kernels inline, a
 * constant-folded one, a dtype or shape that differs).
 *
 * Ownership: weights_cmp_add copies what it keeps into the session's arena;
 * the sentences are appended to the caller's strbuf. Threads: any (no state). */
#ifndef AOTIDBG_WEIGHT_DIFF_H
#define AOTIDBG_WEIGHT_DIFF_H
#include "model.h"
#include "strbuf.h"

const char *weight_verdict_name(weight_verdict v);   /* "equal", "differs", "dtype", "shape", "unread",
                                                        "no-package", "no-program", "folded" */
int weight_verdict_from_name(const char *s);

/* Counts d into s->eager.weights and keeps it (copied) when it is not EQUAL. */
void weights_cmp_add(session *s, const weight_diff *d);
/* A new runner (a restart) compares again: forgets what the last one said. */
void weights_cmp_restart(weights_cmp *w);
/* The kept record of weight fqn; NULL when it was equal or not sent. */
const weight_diff *weights_cmp_find(const weights_cmp *w, const char *fqn);
/* 1 when d is a difference in the weight itself (values, dtype or shape). */
int weight_diff_is_difference(const weight_diff *d);
/* "blocks.3.fc.weight differs from the package's: 1 row of 256 (row 17), 64 of 16384
 * elements, max |diff| 0.36; first at [17, 0]: ..." and the like for every verdict. */
void weight_diff_describe(const weight_diff *d, strbuf *out);
/* One line: "the program's weights equal the package's (77 compared byte for byte)",
 * or how many differ and which, then what was not compared and why. */
void weights_cmp_summary(const weights_cmp *w, strbuf *out);

#endif
