/* runner_main.h — entry points shared by the runner's modes. */
#ifndef AOTIDBG_RUNNER_MAIN_H
#define AOTIDBG_RUNNER_MAIN_H

/* --bench SO CUBIN_DIR DEVICE ITERS MODE INPUT... (bench.c); returns the exit code. */
int bench_main(int argc, char **argv);

#endif
