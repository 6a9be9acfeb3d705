#include "arena.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

static void *die_oom(size_t n)
{
    fprintf(stderr, "aotidbg: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *arena_alloc(arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            return die_oom(n);
        b->cap = cap;
        b->used = 0;
        /* A big one-off block goes behind the head so the head keeps its free space. */
        if (a->head && cap != ARENA_BLOCK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}

void *arena_memdup(arena *a, const void *p, size_t n)
{
    void *q = arena_alloc(a, n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *q = arena_alloc(a, n + 1);
    memcpy(q, s, n);
    q[n] = 0;
    return q;
}

void *arena_grow(arena *a, void *p, size_t n, size_t *cap, size_t elem, size_t first_cap)
{
    if (p && n < *cap)
        return p;
    size_t nc = *cap ? *cap * 2 : first_cap;
    if (nc <= n)   /* an array made elsewhere (a reader) with no room recorded */
        nc = 2 * n;
    void *q = arena_alloc(a, nc * elem);
    if (n)
        memcpy(q, p, n * elem);
    *cap = nc;
    return q;
}

char *arena_strdup(arena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return arena_strdup(a, "");
    char *q = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(q, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return q;
}

void arena_adopt(arena *dst, arena *src)
{
    if (!src->head)
        return;
    arena_block *last = src->head;
    while (last->next)
        last = last->next;
    if (dst->head) {   /* behind dst's head, which keeps its free space */
        last->next = dst->head->next;
        dst->head->next = src->head;
    } else {
        dst->head = src->head;
    }
    dst->total += src->total;
    src->head = NULL;
    src->total = 0;
}

void arena_rewind(arena *a)
{
    arena_block *b = a->head;
    if (!b || b->cap != ARENA_BLOCK) {
        arena_release(a);
        return;
    }
    for (arena_block *n = b->next; n;) {
        arena_block *next = n->next;
        free(n);
        n = next;
    }
    b->next = NULL;
    b->used = 0;
    a->total = 0;
}

void arena_release(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->total = 0;
}
