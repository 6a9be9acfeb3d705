/* remote_package.h — a package and an inputs spec that live on the remote
 * box (`--remote`), seen from here.
 *
 * The package opens with the usual reader (package.h) over byte ranges read
 * through the agent, so every check, the wrapper.cpp scan and the source view
 * work as for a local file while only the bytes they read travel (the
 * central directory, metadata, wrapper.cpp: not the .so or the weights). The
 * hash is computed there. Extraction happens there too, into the agent's
 * private folder: the model's so_path and model_dir are paths there, and
 * wrapper_cpp_path is a copy here, with the kernel.cpp and
 * kernel_information.json beside it (for the router and the source view).
 * Inputs: the spec is read from there; files it names (fill: file) are
 * copied here, into a private folder removed by remote_close(), so the
 * runner client can materialise and push them like local ones.
 * Errors: 0 / -1 with err naming the path and the host. */
#ifndef AOTIDBG_REMOTE_PACKAGE_H
#define AOTIDBG_REMOTE_PACKAGE_H
#include "model.h"
#include "package.h"
#include "remote.h"

#define REMOTE_SPEC_MAX   (1u << 20)      /* an inputs spec */
#define REMOTE_INPUT_MAX  (16ULL << 30)   /* one input file fetched here */

/* The options every command shares: --remote, --remote-runner, --push. */
typedef struct {
    const char *target;        /* [USER@]HOST[:PORT]; NULL: not remote */
    const char *runner_path;   /* --remote-runner; NULL: aotidbg-runner on its PATH */
    int push;                  /* --push: the package and the spec are here; copy the package there */
    int batch;                 /* no password prompts (the UI owns the terminal) */
    double timeout_s;          /* --timeout (remote_options.timeout_s); 0: no limit */
    const char *const *env;    /* remote_options.env: NAME=VALUE for the runners there; NULL: none */
} remote_cli;

/* Everything before the checklist: connects, copies the package there with
 * --push (telling progress on stderr when it is big), reads the inputs spec
 * (spec may be NULL) into s, here with --push and there without, and opens the
 * package. On error everything it made is closed again (*r, *pkg NULL). */
int remote_open(const remote_cli *o, const char *pkg_path, const char *spec, session *s, remote **r,
                package_t **pkg, strbuf *err);
/* Extracts the model there and asks for the box's facts. so_only (check):
 * only the .so, and the facts say whether it loads there (a runner process
 * loads it, about a second); else (a run) the whole model, no load test. */
int remote_prepare_model(remote *r, package_t *p, package_model *m, int so_only, host_facts *hf, strbuf *err);


#endif
