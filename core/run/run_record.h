/* run_record.h — turns what a runner says into the session model: kernel,
 * tensor, output, error, log and runner-exit events; errors routed
 * (router.h) with the runner's output and resolved through the package's
 * code; tensor values kept within the value budget.
 *
 * It knows nothing of processes, sockets or the protocol's order (that is
 * runner_client.c, the conversation): it is handed each message, each
 * chunk of output and the end, and appends to the session.
 * Ownership: borrows the session (events go into its arena); owns its
 * copies of the options and the router rules (loaded at the first error).
 * Errors: the functions return events added, -1 with err when a message
 * contradicts what came before (a tensor for a kernel never announced). */
#ifndef AOTIDBG_RUN_RECORD_H
#define AOTIDBG_RUN_RECORD_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "protocol.h"
#include "strbuf.h"

/* The value budget: values the session keeps for the grid, 8 bytes each,
 * across every tensor of a run. A tensor whose values fit is kept whole;
 * past the budget a tensor keeps its first VALUES_BUDGET_SAMPLE values (a
 * prefix slice) while such samples fit in a reserve of budget/16 on top,
 * then none. Its statistics always stay (they cover every element). */
#define VALUES_BUDGET_DEFAULT ((uint64_t)256 << 20)
#define VALUES_BUDGET_SAMPLE 1024
typedef struct {
    uint64_t budget;           /* bytes; 0 = no limit */
    uint64_t used;             /* bytes of tensors kept whole */
    uint64_t reserve_used;     /* bytes of samples kept past the budget */
} values_budget_state;

/* How many of a tensor's n values to keep (n when the budget allows all of
 * them); counts them against b. A result below n means the tensor was cut. */
size_t values_budget_keep(values_budget_state *b, size_t n);
/* n values the session no longer keeps (a folded round's) go back to b:
 * to the whole-tensor part first, then the reserve. */
void values_budget_return(values_budget_state *b, uint64_t n);

typedef struct run_record run_record;

/* trace_source: the package's generated code for routing errors (a .pt2,
 * an extracted folder or a *.wrapper.cpp, see triton_trace.h); may be NULL. */
run_record *run_record_new(session *s, const char *trace_source, uint64_t values_budget);
void run_record_free(run_record *r);
/* A fresh run (restart): the session's events go (their memory stays in the
 * arena), the budget and the output counters start over. */
void run_record_restart(run_record *r);
/* The model's input names (LOADED), to name the input an error traces to. */
void run_record_set_input_names(run_record *r, const char *const *names, size_t n);
/* Where each kernel is launched in wrapper.cpp, for launches whose runner
 * does not say (interposed cuLaunchKernel inside a torch.cond / while_loop
 * branch, the printer's own hooks there): kernel name -> branch ("" the main
 * graph; NULL launched in more than one place), and how many of its launch
 * sites are in subgraphs and not hooked by the printer. The
 * first interposed launch of such a kernel takes those sites off the
 * session's hidden_kernels (interposition saw them), once a run. Borrowed:
 * the rows must outlive r. */
typedef struct {
    const char *kernel, *branch;
    size_t sites;              /* unhooked launch sites in subgraphs (counted in hidden_kernels) */
} launch_branch;
void run_record_set_branches(run_record *r, const launch_branch *rows, size_t n);
/* Tensor names the runner sends, given the user's name when the package's specs have none:
 * a weight by its original_fqn ("e_weight" -> "e.weight"), an input the package names only by
 * position by the label the --inputs spec gave it ("arg0_1" -> "table"). Borrowed: the rows
 * must outlive r. */
typedef struct {
    const char *tensor, *user;
} tensor_user_name;
void run_record_set_user_names(run_record *r, const tensor_user_name *rows, size_t n);

/* One message as it arrived: HELLO (torch version, GPU), KERNEL, TENSOR,
 * ERROR, DONE; others are ignored. t_ms: milliseconds since RUN, for events
 * whose message carries no time of its own. */
int run_record_message(run_record *r, proto_msg *m, double t_ms, strbuf *err);
/* An error the front end found itself (a wrong input count, a protocol error). */
int run_record_error(run_record *r, int64_t kernel_index, const char *text, double t_ms);
/* Runner output (stream 0 stdout, 1 stderr), split into log events by line;
 * final flushes a partial last line. */
int run_record_output(run_record *r, int stream, const char *buf, size_t n, int final, double t_ms);
/* The runner is gone: the note about output lines over the cap, and every
 * error of the run routed again with all of the output (stderr may arrive
 * after the ERROR frame). */
int run_record_end(run_record *r, double t_ms);
/* It ended abnormally: a runner-exit event with how ("signal", "exited",
 * "timeout", "killed", "lost"), the signal or exit code, and the stderr tail. */
int run_record_exit(run_record *r, const char *how, int code, double t_ms);

/* The runner stopped (a breakpoint, a step, a NaN): the iteration it stopped in stays whole. */
void run_record_stopped(run_record *r);

#endif
