/* pytree.h — the user's names for a model's inputs and outputs, from the pytree
 * specs AOTI keeps in wrapper.cpp (in_spec_ / out_spec_: torch.utils._pytree's
 * treespec_dumps JSON, protocol 1: [1, {"type", "context", "children_spec"}]).
 *
 * A name is the leaf's path, written as the user wrote the call:
 *   inputs   forward(x, cfg={"scale": s}) exported with kwargs -> "x", "cfg['scale']";
 *            positional arguments have no names in the spec -> "args[0]", "args[1][2]"
 *   outputs  return {"out": y, "aux": z} -> "out", "aux"; (y, {"k": z}) -> "[0]", "[1]['k']"
 * Outputs whose paths hold no key at all (a plain tuple, one tensor) get no
 * names: AOTI's output0, output1 say as much.
 *
 * The JSON is untrusted: depth and leaf counts are capped, unknown node types
 * are walked by position. Names live in the caller's arena.
 * Errors: -1 with err when the text is not a treespec this code reads. */
#ifndef AOTIDBG_PYTREE_H
#define AOTIDBG_PYTREE_H
#include <stddef.h>
#include "arena.h"
#include "strbuf.h"

#define PYTREE_MAX_DEPTH  64
#define PYTREE_MAX_LEAVES 1000000

typedef enum { PYTREE_INPUTS = 0, PYTREE_OUTPUTS = 1 } pytree_side;

/* Fills *names (n entries, in flattening order = AOTI's input/output order);
 * entries are NULL where the leaf has no useful name (outputs, see above). */
int pytree_leaf_names(arena *a, const char *json, size_t len, pytree_side side, const char ***names, size_t *n,
                      strbuf *err);

#endif
