/* arena.h — bump allocator for data that lives exactly as long as its owner
 * (a session, a package listing, a routing result).
 *
 * Ownership: everything returned by arena_* belongs to the arena and is freed
 * all at once by arena_release(). Never free() a pointer from an arena.
 * Errors: allocation failure aborts the process with a message (an arena is
 * only used for bounded, already-validated data; callers cap sizes first). */
#ifndef AOTIDBG_ARENA_H
#define AOTIDBG_ARENA_H
#include <stddef.h>

typedef struct arena_block arena_block;
typedef struct arena {
    arena_block *head;
    size_t total;          /* bytes handed out, for memory accounting */
} arena;

#define ARENA_INIT {0, 0}

void *arena_alloc(arena *a, size_t n);                 /* zeroed, 16-byte aligned */
void *arena_memdup(arena *a, const void *p, size_t n);
char *arena_strdup(arena *a, const char *s);           /* NULL in, NULL out */
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Room for one more item in an arena array of n elem-sized items: when it is
 * full (n >= *cap) or not yet made, returns a copy with twice the capacity
 * (first_cap when *cap is 0) and updates *cap; otherwise returns p. The old
 * copy stays in the arena until release (arrays here are small and few). */
void *arena_grow(arena *a, void *p, size_t n, size_t *cap, size_t elem, size_t first_cap);
/* Moves every block of src into dst (src ends empty): what was allocated from src now lives as long as dst. */
void arena_adopt(arena *dst, arena *src);
void arena_release(arena *a);                          /* frees all; arena reusable */
/* Frees all but one standard block, which it keeps for reuse: everything allocated before is gone
 * (a scratch arena used once per item, without a malloc and a free each time). */
void arena_rewind(arena *a);

#endif
