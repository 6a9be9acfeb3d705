/* numfmt.h — numbers and shapes as people read them, for screens and reports
 * (the session dump and YAML have their own, exact formats).
 * No errors; no allocation but the strbuf's. */
#ifndef AOTIDBG_NUMFMT_H
#define AOTIDBG_NUMFMT_H
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

/* "[4, 16]"; "[]" for no dims. */
void fmt_shape(strbuf *sb, int ndim, const int64_t *v);
/* "%.4g", and "nan", "inf", "-inf". */
void fmt_double(char *buf, size_t n, double v);
/* A complex value as Python writes it, without the parentheses: "1.5+2j",
 * "0-0.25j", "nan+infj"; each part "%.*g" with `digits` significant digits. */
void fmt_complex(char *buf, size_t n, double re, double im, int digits);
/* A byte count: "512 B", "1.5 KiB", "3.2 MiB", "1.0 GiB". */
void fmt_bytes(uint64_t n, char *buf, size_t len);

#endif
