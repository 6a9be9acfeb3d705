/* runner_main.h — entry points shared by the runner's modes. */
#ifndef AOTIDBG_RUNNER_MAIN_H
#define AOTIDBG_RUNNER_MAIN_H

/* --bench SO CUBIN_DIR DEVICE ITERS MODE INPUT... (bench.c); returns the exit code. */
int bench_main(int argc, char **argv);
/* 0 when AOTIDBG_RUNNER_RECORD=0 asks hooks to only count events. */
int runner_env_record(void);

#endif
