/* fuzz_target.h — the entry point every tests/fuzz/fuzz_*.c defines: libFuzzer
 * calls it with each input, and replay_main.c calls it with each seed file
 * (ctest's fuzz_seeds_* tests). Returns 0; a finding aborts. */
#ifndef AOTIDBG_FUZZ_TARGET_H
#define AOTIDBG_FUZZ_TARGET_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
