/* session_keys.h — every key of a session file, one row each.
 *
 * The reader (session_read.c), the writer (session_write.c) and the dump
 * (session_dump.c) walk these tables; none of them lists key names itself.
 * To add a key (see README.md in this folder for a worked example):
 *   1. a field in model.h (the record it belongs to);
 *   2. one row in the record's table in session_keys.c, where the writer
 *      should put it (rows are written in table order);
 *   3. a line in man/aotidbg-session.5 (test_session checks every key is there).
 * A row of a known type (string, integer, number, bool, enum, dims, string
 * list, string map, sub-record, list of records) needs nothing else: it is
 * read with type and range checks, written, and dumped as " key=value" on its
 * record's line (a top-level key as its own "key: value" line). Give new keys
 * SKF_OPT so that files of runs that do not set them stay byte-identical.
 *
 * Ownership: the tables are static constant data. Threads: read-only, any. */
#ifndef AOTIDBG_SESSION_KEYS_H
#define AOTIDBG_SESSION_KEYS_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"

typedef enum {
    SK_STR,      /* const char *; NULL when absent (or dflt) */
    SK_INT,      /* int, lo..hi */
    SK_I64,      /* int64_t, lo..hi */
    SK_U64,      /* uint64_t */
    SK_NUM,      /* double; .nan and .inf allowed */
    SK_BOOL,     /* int 0/1 */
    SK_ENUM,     /* an enum field (int-sized), by name: enum_name / enum_from */
    SK_DIMS,     /* int64_t[TENSOR_MAX_DIMS] in place, count: int at cnt */
    SK_NUMS,     /* double * (arena), count: size_t at cnt */
    SK_STRS,     /* const char ** (arena), count: size_t at cnt */
    SK_KV,       /* kv_pair * (arena), count: size_t at cnt; any keys, string values */
    SK_SUB,      /* a record in place (sub); when has is set, an int at has says it is there */
    SK_LIST,     /* a list of records of sub (arena array), count: size_t at cnt */
    SK_CUSTOM,   /* handled by name of its custom id in each of reader, writer, dump */
} skey_type;

/* Flags. */
#define SKF_NEED 1u   /* the reader refuses a record without it */
#define SKF_NULL 2u   /* SK_STR: ~, null or an empty plain value read as NULL */
#define SKF_OPT  4u   /* writer and dump leave it out when unset: NULL, < 0 (signed,
                         numbers; NaN is set), 0 (SK_U64, SK_BOOL), empty (lists, maps,
                         a sub-record with nothing set) */
#define SKF_NEG1 8u   /* reads as -1 when absent (integers, numbers) */
#define SKF_HAND 16u  /* the dump prints it in its record's own line (keys of format 1.0) */

/* Rows whose reading, writing or dumping is not the type's (format 1.0 keys). */
typedef enum {
    SC_NONE = 0,
    SC_FORMAT,          /* format_version: first key, "MAJOR.MINOR" */
    SC_EVENTS,          /* events: last key, the event list */
    SC_COUNTS,          /* counts: before the events, by whole saves; the dump's "events:" line */
    SC_INDEX,           /* index: after counts:, by a run's final save; offsets patched in; not dumped */
    SC_KIND,            /* an event's kind */
    SC_TENSOR_SHAPE,    /* tensor shape/strides: arena dims sharing ndim; strides */
    SC_TENSOR_STRIDES,  /*   default to contiguous */
    SC_INPUT_STRIDES,   /* input strides: only with has_strides, one per dim */
    SC_INPUT_VALUE,     /* input value: written only for fill: full */
    SC_VALUES_COMPLETE, /* values_complete: written only with values */
} skey_custom;

typedef struct stable stable;

typedef struct skey {
    const char *name;          /* the YAML key */
    skey_type type;
    unsigned flags;            /* SKF_* */
    size_t off;                /* offsetof(record, field) */
    size_t cnt;                /* offsetof the count (SK_DIMS, SK_NUMS, SK_STRS, SK_KV, SK_LIST) */
    size_t has;                /* SK_SUB: offsetof an int "present" flag; 0 when none */
    const char *what;          /* reader: "found X, expected <what>" */
    const char *item;          /* SK_STRS: what one item is */
    const char *dflt;          /* SK_STR: read when absent, written when NULL */
    int64_t lo, hi;            /* SK_INT, SK_I64 range */
    const char *(*enum_name)(int v);
    int (*enum_from)(const char *s);
    const stable *sub;         /* SK_SUB, SK_LIST: the record's table */
    const char *label;         /* dump: the name shown when it is not the key's */
    skey_custom custom;
} skey;

struct stable {
    const char *where;         /* "an input": in messages, "found an input without 'dtype'" */
    const skey *keys;
    int n;                     /* at most 64 (the reader's seen-mask) */
    size_t size;               /* sizeof the record */
};

/* The top level, in file order (format_version first, events last). */
extern const stable session_top_table;
/* Records (nested tables). */
extern const stable session_input_table, session_check_table, session_bookmark_table, session_narration_table,
    session_tensor_table, session_stats_table;
/* Events: the keys every event has (kind, t_ms), then each kind's own keys,
 * offsets relative to its member of event.u. */
extern const stable session_event_table;
extern const stable *const session_kind_tables[EV__COUNT];

/* Row of t named name, or NULL. */
const skey *skey_find(const stable *t, const char *name);
/* 1 when key k of rec holds a value: what SKF_OPT keys need to be written
 * and dumped (NULL, < 0 for signed numbers, 0 for counts and bools, empty). */
int skey_is_set(const skey *k, const void *rec);

#endif
