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

static int part(char *buf, size_t n, double v, int digits, int sign)
{
    const char *plus = sign && !signbit(v) ? "+" : "";
    if (isnan(v))
        return snprintf(buf, n, "%snan", sign ? "+" : "");
    if (isinf(v))
        return snprintf(buf, n, "%s%sinf", plus, v < 0 ? "-" : "");
    return snprintf(buf, n, "%s%.*g", plus, digits, v);
}

void fmt_complex(char *buf, size_t n, double re, double im, int digits)
{
    int k = part(buf, n, re == 0 ? 0.0 : re, digits, 0);   /* no "-0" real part */
    if (k < 0 || (size_t)k >= n)
        return;
    int m = part(buf + k, n - (size_t)k, im, digits, 1);
    if (m >= 0 && (size_t)(k + m) + 1 < n) {
        buf[k + m] = 'j';
        buf[k + m + 1] = 0;
    }
}

void fmt_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *unit[] = {"KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(buf, len, "%llu B", (unsigned long long)n);
        return;
    }
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof unit / sizeof *unit) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.1f %s", v, unit[u]);
}
