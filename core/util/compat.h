/* compat.h — small primitives that delete whole classes of repeated code
 * (after git's git-compat-util.h): prefix tests without hand-counted lengths,
 * and growing arrays without a local helper in every file.
 *
 *   const char *rest;
 *   if (skip_prefix(arg, "--device=", &rest))   // arg "--device=cuda" -> rest "cuda"
 *       device = rest;
 *   if (starts_with(line, "Error: "))           // no length to count
 *
 *   ALLOC_GROW(list->items, list->n + 1, list->alloc);   // room for one more
 *   list->items[list->n++] = item;
 *
 * Allocation failure aborts with a message (callers cap untrusted sizes
 * first, as everywhere in aotidbg). No state; any thread. */
#ifndef AOTIDBG_COMPAT_H
#define AOTIDBG_COMPAT_H
#include <stddef.h>
#include <string.h>

/* 1 and *out = what follows prefix when str starts with it; else 0 and *out
 * unchanged. out may be NULL. */
static inline int skip_prefix(const char *str, const char *prefix, const char **out)
{
    size_t n = strlen(prefix);
    if (strncmp(str, prefix, n))
        return 0;
    if (out)
        *out = str + n;
    return 1;
}

static inline int starts_with(const char *str, const char *prefix) { return skip_prefix(str, prefix, NULL); }

/* 1 when str ends with suffix. */
static inline int ends_with(const char *str, const char *suffix)
{
    size_t n = strlen(str), m = strlen(suffix);
    return n >= m && !memcmp(str + n - m, suffix, m);
}

/* The same over a buffer of len bytes (not NUL-terminated): *out and *outlen
 * the rest. */
static inline int skip_prefix_mem(const char *buf, size_t len, const char *prefix, const char **out,
                                  size_t *outlen)
{
    size_t n = strlen(prefix);
    if (len < n || memcmp(buf, prefix, n))
        return 0;
    if (out)
        *out = buf + n;
    if (outlen)
        *outlen = len - n;
    return 1;
}

/* 1 when the len bytes at p are exactly s (a token compared without counting). */
static inline int mem_is(const char *p, size_t len, const char *s)
{
    size_t n = strlen(s);
    return len == n && !memcmp(p, s, n);
}

/* 1 when the len bytes at p end with suffix. */
static inline int mem_ends_with(const char *p, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !memcmp(p + len - n, suffix, n);
}

/* malloc/calloc/realloc that abort with "aotidbg: out of memory". */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);   /* at most n bytes of s, NUL-terminated */
/* realloc of nmemb items of size bytes, the product checked for overflow. */
void *xrealloc_array(void *p, size_t nmemb, size_t size);

/* Grows x (an array with `alloc` slots) to hold at least nr items (after git). */
#define alloc_nr(x) (((x) + 16) * 3 / 2)
#define ALLOC_GROW(x, nr, alloc)                                      \
    do {                                                              \
        if ((nr) > (alloc)) {                                         \
            (alloc) = alloc_nr(alloc) < (nr) ? (nr) : alloc_nr(alloc); \
            (x) = xrealloc_array((x), (alloc), sizeof *(x));          \
        }                                                             \
    } while (0)

#endif
