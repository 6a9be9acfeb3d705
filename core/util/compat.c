/* compat.c — the allocators of compat.h. */
#include "compat.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *oom(void)
{
    fputs("aotidbg: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    return p ? p : oom();
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom();
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    return q ? q : oom();
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xstrndup(const char *s, size_t n)
{
    const char *end = memchr(s, 0, n);
    size_t len = end ? (size_t)(end - s) : n;
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

void *xrealloc_array(void *p, size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return oom();
    return xrealloc(p, nmemb * size);
}
