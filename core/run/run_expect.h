/* run_expect.h — `aotidbg run --expect OUT.npy ...`: the run's outputs against
 * expected values, for CI ("did this package give the expected output").
 *
 * The Nth --expect file is the Nth output. Every element is compared with
 * tensor_close.h's rule (NaN matches NaN, an infinity the same infinity), at
 * --expect-tolerance or the output dtype's torch.testing.assert_close default;
 * the run keeps every value of its outputs for this (LOAD output_values).
 *
 * Errors: run_expect_open checks each file's .npy header before the run: 0, or
 * -1 with "FILE: what; what to do" in err (the command's exit 2).
 * run_expect_compare returns 0 when every output given matches, 1 when one
 * differs or cannot be compared (wrong shape, missing, values not kept); it
 * appends one line per output to report and a note per output to the session.
 * No allocation kept: files are read and freed inside. */
#ifndef AOTIDBG_RUN_EXPECT_H
#define AOTIDBG_RUN_EXPECT_H
#include "model.h"
#include "run_options.h"
#include "strbuf.h"

int run_expect_open(const run_options *o, strbuf *err);
int run_expect_compare(session *s, const run_options *o, strbuf *report);

#endif
