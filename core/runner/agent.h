/* agent.h — the runner's remote modes (agent.c).
 *   aotidbg-runner --serve [--idle S]   the agent behind `aotidbg --remote`:
 *                                       protocol on stdin/stdout (protocol.h)
 *   aotidbg-runner --check-so SO        loads SO with RTLD_NOW against this
 *                                       runner's libtorch; prints "ok" or the
 *                                       loader's message (exit 0 / 1)
 * Both return the process exit code. */
#ifndef AOTIDBG_AGENT_H
#define AOTIDBG_AGENT_H

int agent_main(int argc, char **argv);   /* argv: the arguments after --serve */
int check_so_main(const char *so);

#endif
