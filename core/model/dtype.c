/* dtype.c — one row per dtype (dtype.h), in dtype_kind order. */
#include "dtype.h"
#include <stdio.h>
#include <string.h>
#include "compat.h"

/* name, size, lanes, spec, aliases, npy, safetensors */
static const dtype_info dtypes[DK__COUNT] = {
    [DK_F32] = {"float32", 4, 1, 1, "float f32 fp32", "<f4", "F32"},
    [DK_F16] = {"float16", 2, 1, 1, "half f16 fp16", "<f2", "F16"},
    [DK_BF16] = {"bfloat16", 2, 1, 1, "bf16", NULL, "BF16"},
    [DK_F64] = {"float64", 8, 1, 1, "double f64 fp64", "<f8", "F64"},
    [DK_I64] = {"int64", 8, 1, 1, "long i64", "<i8", "I64"},
    [DK_I32] = {"int32", 4, 1, 1, "int i32", "<i4", "I32"},
    [DK_I16] = {"int16", 2, 1, 1, "short i16", "<i2", "I16"},
    [DK_I8] = {"int8", 1, 1, 1, "i8", "|i1", "I8"},
    [DK_U8] = {"uint8", 1, 1, 1, "u8", "|u1", "U8"},
    [DK_BOOL] = {"bool", 1, 1, 1, "", "|b1", "BOOL"},
    [DK_F8E4M3] = {"float8_e4m3fn", 1, 1, 0, ""},
    [DK_F8E5M2] = {"float8_e5m2", 1, 1, 0, ""},
    [DK_U16] = {"uint16", 2, 1, 0, "", "<u2", NULL},
    [DK_U32] = {"uint32", 4, 1, 0, "", "<u4", NULL},
    [DK_U64] = {"uint64", 8, 1, 0, "", "<u8", NULL},
    [DK_C64] = {"complex64", 8, 2, 1, "cfloat c64", "<c8", "C64"},
    [DK_C128] = {"complex128", 16, 2, 1, "cdouble c128", "<c16", "C128"},
};

const dtype_info *dtype_of(dtype_kind k) { return (unsigned)k < DK__COUNT ? &dtypes[k] : NULL; }

int dtype_by_name(const char *name, dtype_kind *out)
{
    for (int k = 0; name && k < DK__COUNT; k++)
        if (!strcmp(dtypes[k].name, name)) {
            *out = (dtype_kind)k;
            return 0;
        }
    return -1;
}

/* 1 when the space-separated list holds word. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; n && (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

const char *dtype_canonical(const char *name)
{
    if (!name)
        return NULL;
    skip_prefix(name, "torch.", &name);
    for (int k = 0; k < DK__COUNT; k++)
        if (dtypes[k].spec && !strcmp(name, dtypes[k].name))
            return dtypes[k].name;
    for (int k = 0; k < DK__COUNT; k++)
        if (dtypes[k].spec && has_word(dtypes[k].aliases, name))
            return dtypes[k].name;
    return NULL;
}

const char *dtype_from_npy(const char *code)
{
    for (int k = 0; code && k < DK__COUNT; k++)
        if (dtypes[k].spec && dtypes[k].npy && !strcmp(dtypes[k].npy + 1, code))
            return dtypes[k].name;
    return NULL;
}

const char *dtype_from_safetensors(const char *code)
{
    for (int k = 0; code && k < DK__COUNT; k++)
        if (dtypes[k].spec && dtypes[k].safetensors && !strcmp(dtypes[k].safetensors, code))
            return dtypes[k].name;
    return NULL;
}

size_t dtype_size(const char *dtype)
{
    dtype_kind k;
    return dtype && !dtype_by_name(dtype, &k) && dtypes[k].spec ? dtypes[k].size : 0;
}

const char *dtype_spec_list(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < DK__COUNT && n < size; k++)
        if (dtypes[k].spec)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", dtypes[k].name);
    return buf;
}
