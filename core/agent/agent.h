/* agent.h — the remote agent (agent.c): the GPU box's end of `aotidbg --remote`,
 * speaking the protocol on stdin/stdout (protocol.h, "Remote").
 *   aotidbg-agent --serve --runner PATH [--idle S]   (agent_main.c; no libtorch)
 *   aotidbg-runner --serve [--idle S]                (the runner itself; runner = self)
 * argv: the arguments after --serve; runner: the runner it spawns (--runner
 * overrides); torch_version for its HELLO ("" when not linked with torch).
 * Returns the process exit code: 0 the connection closed, 1 idle limit, 2 bad
 * usage or a corrupt stream, 127 no runner to spawn. */
#ifndef AOTIDBG_AGENT_H
#define AOTIDBG_AGENT_H

int agent_main(int argc, char **argv, const char *runner, const char *torch_version);

#endif
