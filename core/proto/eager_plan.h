/* eager_plan.h — the argument and output rows of an EAGER_NODE frame
 * (protocol.h), apart so that the runner's C++ interpreter
 * (core/runner/eager_graph.h) can use them without the C-only headers. */
#ifndef AOTIDBG_EAGER_PLAN_H
#define AOTIDBG_EAGER_PLAN_H
#include <stdint.h>

/* EAGER_NODE argument kinds: which of names/ints/floats/text holds the value. */
typedef enum {
    EAGER_ARG_NONE = 0, EAGER_ARG_TENSOR, EAGER_ARG_TENSORS, EAGER_ARG_OPT_TENSORS, EAGER_ARG_INT,
    EAGER_ARG_INTS, EAGER_ARG_FLOAT, EAGER_ARG_FLOATS, EAGER_ARG_BOOL, EAGER_ARG_BOOLS, EAGER_ARG_STRING,
    EAGER_ARG_SCALAR_TYPE,   /* ints[0]: the serialized ScalarType (torch/_export/serde/schema.py) */
    EAGER_ARG_MEMORY_FORMAT, /* ints[0]: the serialized MemoryFormat */
    EAGER_ARG_LAYOUT,        /* ints[0]: the serialized Layout */
    EAGER_ARG_DEVICE,        /* text: "cpu", "cuda:0" */
    EAGER_ARG_OPT_TENSOR,    /* names[0], "" = None */
    EAGER_ARG_STRINGS,
    EAGER_ARG_LAST = EAGER_ARG_STRINGS
} eager_arg_kind;

typedef struct {
    const char *name;
    uint8_t kind;              /* eager_arg_kind */
    uint32_t nnames, nints, nfloats;
    const char **names;
    int64_t *ints;
    double *floats;
    const char *text;
} proto_eager_arg;

typedef struct {
    const char *name;
    uint32_t ret;
    int64_t elem;
} proto_eager_out;

#endif
