/* loop_iter.h — which while_loop iteration a kernel launch belongs to.
 *
 * AOTI's wrapper.cpp runs a torch while_loop as its cond subgraph
 * (while_loop_cond_graph_N), then while it holds its body subgraph
 * (while_loop_body_graph_N), and again; nothing in a launch says which round.
 * The counter reads the launches in order, by their branch (the subgraph path,
 * nested "outer/inner"), and decides (0-based):
 *   - a loop is entered afresh (iteration 0) when the launch before was not
 *     inside it (the model started, or an outer loop came round again);
 *   - a new iteration starts when its cond graph launches right after its body
 *     graph (the check before the next round; the last check carries the count
 *     of rounds run), or, where one of the two graphs launches nothing, when
 *     the first kernel seen in the other graph since entry launches again.
 * The iteration is the innermost loop's; outer loops are in the branch path.
 * Owns its state; no errors: launches outside any loop, or past LOOP_ITER_MAX
 * loops, get -1. */
#ifndef AOTIDBG_LOOP_ITER_H
#define AOTIDBG_LOOP_ITER_H

#include <stdint.h>

#define LOOP_ITER_MAX 16
#define LOOP_ITER_KEY 160

typedef struct {
    char key[LOOP_ITER_KEY];   /* branch prefix + "while_loop_" + N */
    char first[2][96];         /* first kernel launched in the cond [0] / body [1] graph since entry */
    int last_part;             /* 0 cond, 1 body */
    int64_t iteration;
} loop_iter_loop;

typedef struct {
    loop_iter_loop loops[LOOP_ITER_MAX];
    int nloops;
    char prev[LOOP_ITER_KEY * 2];   /* the branch of the launch before ("" the main graph) */
} loop_iter;

void loop_iter_reset(loop_iter *li);
/* The launch of kernel `name` in `branch` (NULL the main graph): its iteration, -1 none. */
int64_t loop_iter_next(loop_iter *li, const char *branch, const char *name);
/* The innermost while_loop branch names ("outer/while_loop_0", its cond and
 * body graphs alike) into key: 0, or -1 when the branch is in no loop. */
int loop_iter_key(const char *branch, char key[LOOP_ITER_KEY]);

#endif
