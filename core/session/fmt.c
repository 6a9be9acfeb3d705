/* fmt.c — text formatters shared by session_dump and session_write; see fmt.h. */
#include "fmt.h"

void fmt_kv_lines(FILE *f, size_t n, const kv_pair *kv, const char *lead, const char *sep,
                  fmt_put_fn put_key, fmt_put_fn put_value)
{
    for (size_t i = 0; i < n; i++) {
        fputs(lead, f);
        put_key(f, kv[i].key);
        fputs(sep, f);
        put_value(f, kv[i].value);
        putc('\n', f);
    }
}
