/* session_copy.c — see session_copy.h. */
#include "session_copy.h"
#include <string.h>
#include "session_keys.h"

#define AT(rec, off, type) (*(type *)((char *)(rec) + (off)))

static void copy_record(arena *a, const stable *t, void *rec);

/* Key k of rec (already a byte copy of the source) made to point into a. */
static void copy_key(arena *a, const skey *k, void *rec)
{
    void *f = (char *)rec + k->off;
    int counted = k->type == SK_NUMS || k->type == SK_STRS || k->type == SK_KV || k->type == SK_LIST;
    size_t n = counted ? AT(rec, k->cnt, size_t) : 0;   /* a count may sit at offset 0 */
    switch (k->type) {
    case SK_STR:
        *(const char **)f = arena_strdup(a, *(const char **)f);
        break;
    case SK_NUMS:
        *(double **)f = n ? arena_memdup(a, *(double **)f, n * sizeof(double)) : NULL;
        break;
    case SK_STRS: {
        const char **v = n ? arena_memdup(a, *(const char ***)f, n * sizeof *v) : NULL;
        for (size_t i = 0; i < n; i++)
            v[i] = arena_strdup(a, v[i]);
        *(const char ***)f = v;
        break;
    }
    case SK_KV: {
        kv_pair *v = n ? arena_memdup(a, *(kv_pair **)f, n * sizeof *v) : NULL;
        for (size_t i = 0; i < n; i++) {
            v[i].key = arena_strdup(a, v[i].key);
            v[i].value = arena_strdup(a, v[i].value);
        }
        *(kv_pair **)f = v;
        break;
    }
    case SK_SUB:
        copy_record(a, k->sub, f);
        break;
    case SK_LIST: {
        char *v = n ? arena_memdup(a, *(void **)f, n * k->sub->size) : NULL;
        for (size_t i = 0; i < n; i++)
            copy_record(a, k->sub, v + i * k->sub->size);
        *(void **)f = v;
        break;
    }
    case SK_CUSTOM: {
        tensor_rec *t = rec;   /* the only custom keys that point: a tensor's dims */
        if (k->custom == SC_TENSOR_SHAPE && t->shape)
            t->shape = arena_memdup(a, t->shape, (size_t)t->ndim * sizeof *t->shape);
        else if (k->custom == SC_TENSOR_STRIDES && t->strides)
            t->strides = arena_memdup(a, t->strides, (size_t)t->ndim * sizeof *t->strides);
        break;
    }
    default:   /* numbers, enums, bools and dims sit in the record itself */
        break;
    }
}

static void copy_record(arena *a, const stable *t, void *rec)
{
    for (int i = 0; i < t->n; i++)
        copy_key(a, &t->keys[i], rec);
}

event *session_copy_event(session *dst, const event *src)
{
    event *e = session_add_event(dst, src->kind);
    *e = *src;
    copy_record(&dst->arena, &session_event_table, e);
    if ((unsigned)src->kind < EV__COUNT && session_kind_tables[src->kind])
        copy_record(&dst->arena, session_kind_tables[src->kind], &e->u);
    return e;
}
