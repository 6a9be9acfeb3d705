/* session_mem.h — for unit tests: a session written as YAML, or dumped, into
 * a malloc'd string (caller frees). Include after check.h and session_io.h. */
#ifndef AOTIDBG_TEST_SESSION_MEM_H
#define AOTIDBG_TEST_SESSION_MEM_H
#include <stdio.h>

static inline char *write_mem(const session *s, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    strbuf err = STRBUF_INIT;
    CHECK(session_write(s, f, &err) == 0);
    fclose(f);
    strbuf_release(&err);
    return buf;
}

static inline char *dump_mem(const session *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    session_dump(s, f);
    fclose(f);
    return buf;
}

#endif
