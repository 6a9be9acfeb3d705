/* protocol_table.h — the runner protocol as data: one row per field of every
 * message (protocol_table.c). The encoder and decoder (protocol.c) walk the
 * rows; so do proto_type_name, the round-trip test and the fuzz target, and
 * none of them lists a message's fields itself.
 *
 * A row says where the field lives (offset and size in its record: proto_msg
 * for a message's own rows, tensor_rec, eager_check, proto_eager_arg, ... for
 * a sub-table), how it goes on the wire (kind, protocol.h "Framing") and what
 * it is called in error messages. To add a message, see README.md here.
 *
 * Ownership: the tables are static constant data. Threads: read-only, any. */
#ifndef AOTIDBG_PROTOCOL_TABLE_H
#define AOTIDBG_PROTOCOL_TABLE_H
#include <stddef.h>
#include <stdint.h>
#include "protocol.h"

typedef enum {
    PF_U8,      /* u8 from an unsigned member of `size` bytes (uint8_t or an enum); decoding
                   refuses values over max */
    PF_BOOL,    /* u8 0 or 1 from an int or uint8_t; any nonzero value encodes as 1 */
    PF_U32,     /* uint32_t */
    PF_U64,     /* uint64_t */
    PF_I64,     /* int64_t */
    PF_F64,     /* double */
    PF_POS,     /* int64_t flat index: -1 (none) or below the uint64_t at ref */
    PF_STR,     /* const char *: u32 length + bytes; NULL encodes as "", decodes never NULL */
    PF_BYTES,   /* const void * + a count at cnt: u32 length + bytes (at most PROTO_MAX_DATA) */
    PF_DIMS,    /* int64_t * (arena) or, with PFF_INLINE, int64_t[] in place; count at cnt: u32
                   count (at most TENSOR_MAX_DIMS) + i64 items */
    PF_STRUCT,  /* a record in place: the rows of sub */
    PF_LIST,    /* a count at cnt (at most max), then that many items, each the rows of sub: an
                   array of records of `size` bytes at off (arena), or with PFF_COLUMNS one array
                   per row of sub (each of those rows' off holds its array, size is its item's) */
    PF_ALIAS,   /* no bytes: decoding copies the pointer at ref into this member */
} proto_kind;

#define PFF_LATER   1u  /* appended to the message later: a frame that ends before it decodes it
                           and every row after it as their defaults; with PFF_HAS, it is sent only
                           when the int at has is nonzero, and decoding sets that int */
#define PFF_IF      2u  /* sent only when the int at cond is nonzero (else: its default) */
#define PFF_HAS     4u
#define PFF_INLINE  8u  /* PF_DIMS: the array is in the record */
#define PFF_SAME   16u  /* PF_DIMS sharing its count with an earlier PF_DIMS row: sent again, and
                           a frame whose two counts differ is malformed */
#define PFF_COLUMNS 32u /* PF_LIST: one array per row of sub (rows of kind U8..STR only) */

typedef struct proto_rows proto_rows;

typedef struct {
    proto_kind kind;
    unsigned flags;
    const char *what;      /* its name in errors: "kernel index" ("... at byte 9 of a KERNEL frame") */
    size_t off, size;      /* the member; PF_LIST: the array, and one item's bytes */
    size_t cnt, cnt_size;  /* PF_BYTES, PF_DIMS, PF_LIST: the count member (any unsigned size, int) */
    size_t cond, has, ref; /* PFF_IF, PFF_HAS, and PF_POS / PF_ALIAS: members of the same record */
    uint64_t max;          /* PF_U8: the largest value; PF_LIST: the most items */
    uint32_t min_item;     /* PF_LIST: the fewest bytes an item takes, so a count cannot claim more
                              items than the frame holds */
    double dflt;           /* PF_I64, PF_POS, PF_F64 with PFF_LATER or PFF_IF: the value when absent */
    const proto_rows *sub; /* PF_STRUCT, PF_LIST */
} proto_field;

struct proto_rows {
    const proto_field *rows;
    int n;
};

typedef struct {
    const char *name;      /* "KERNEL"; NULL: no message has this type */
    proto_rows fields;     /* offsets in proto_msg */
} proto_message;

#define PROTO_TYPES 64     /* types are below this; protocol_table.c indexes its messages by type */

/* The message of type t, or NULL when there is none. */
const proto_message *proto_message_of(int t);

#endif
