/* agent_main.c — aotidbg-agent: the remote agent as a small program of its
 * own (agent.h), so that starting it does not load libtorch. The front end
 * starts it through ssh when it lies beside the runner. */
#include <stdio.h>
#include <string.h>
#include "agent.h"
#include "model.h"
#include "protocol.h"

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("aotidbg-agent %s (protocol %d)\n", AOTIDBG_VERSION, PROTO_VERSION);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "--serve")) {
        fprintf(argc > 1 && !strcmp(argv[1], "--help") ? stdout : stderr,
                "usage: aotidbg-agent --serve --runner PATH [--idle S]\n"
                "The GPU box's end of `aotidbg --remote HOST`, started by aotidbg through ssh: it\n"
                "speaks the runner protocol on stdin/stdout, reads and extracts the package there,\n"
                "starts PATH (aotidbg-runner) for each run and relays it; it leaves, killing its\n"
                "runner and removing its private folder, when the connection closes or nothing\n"
                "arrives for S seconds (default 300).\n");
        return argc > 1 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    return agent_main(argc - 2, argv + 2, NULL, "");
}
