/* numfmt.c — see numfmt.h. */
#include "numfmt.h"
#include <math.h>
#include <stdio.h>

void fmt_shape(strbuf *sb, int ndim, const int64_t *v)
{
    strbuf_addch(sb, '[');
    for (int i = 0; i < ndim && v; i++)
        strbuf_addf(sb, "%s%lld", i ? ", " : "", (long long)v[i]);
    strbuf_addch(sb, ']');
}

void fmt_double(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "nan");
    else if (isinf(v))
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, n, "%.4g", v);
}
