/* param_diff.h — the runner's side of comparing the program's weights with
 * the package's constants (--eager; the front end sends WEIGHT_CHECKs,
 * core/eager/eager_weights.h).
 *
 * WEIGHT_CHECKs are kept until RUN. Then, after the constants are in
 * (model_set_constants) and before the model runs, each is compared with the
 * container's constant of the same original FQN (param_cmp.h: byte for byte
 * first, values only when the bytes differ) and answered with a WEIGHT_DIFF;
 * then each package constant no check named gets one too: no-program, or
 * folded for a constant that constant folding makes (the container makes
 * those at the first run: there is nothing to compare them with). The
 * container's constants come from AOTInductorModelContainerExtractConstantsMap
 * (Entries) and the container's constant list (GetNumConstants, ...).
 *
 * Ownership: the checks point into the conversation's arena (kept until exit).
 * Errors: pdiff_add -1 with err (too many); pdiff_run -1 only when sending
 * failed (the front end is gone). Threads: the runner's main thread. */
#ifndef AOTIDBG_PARAM_DIFF_H
#define AOTIDBG_PARAM_DIFF_H
#include "protocol.h"
#include "strbuf.h"

/* A program weight with no constant of its name is compared with the one
 * constant whose name is its name under more or fewer modules (a program
 * exported from a wrapper: "m.fc1.weight" for "fc1.weight"); its note then
 * starts with WEIGHT_DIFF_RENAMED (model.h) and the package's name. */
#define PDIFF_RENAMED WEIGHT_DIFF_RENAMED

int pdiff_add(const proto_msg *m, strbuf *err);
/* dl: the model .so's dlopen handle, container its container; send: chan_send. */
int pdiff_run(void *dl, void *container, int (*send)(const proto_msg *m));

#endif
