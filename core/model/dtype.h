/* dtype.h — the dtypes aotidbg knows, one row each (dtype.c): the canonical
 * name ("float32", as torch prints it without "torch."), the element size, the
 * doubles an element widens to, the other names an inputs spec may use, and
 * whether an inputs spec or tensor file may hold it. The statistics
 * (host_stats.c), the inputs spec and tensor files (core/inputs) and the
 * runner's torch dtype table read it; nobody else lists dtypes.
 *
 * Ownership: static constant data. Threads: read-only, any. */
#ifndef AOTIDBG_DTYPE_H
#define AOTIDBG_DTYPE_H
#include <stddef.h>

typedef enum {
    DK_F32, DK_F16, DK_BF16, DK_F64, DK_I64, DK_I32, DK_I16, DK_I8, DK_U8, DK_BOOL,
    DK_F8E4M3, DK_F8E5M2, DK_U16, DK_U32, DK_U64,
    DK_C64, DK_C128,           /* complex: two lanes (real, imaginary) an element */
    DK__COUNT
} dtype_kind;

typedef struct {
    const char *name;          /* canonical: "float32", "float8_e4m3fn", "complex64" */
    size_t size;               /* bytes an element */
    int lanes;                 /* doubles an element widens to: 2 for complex, else 1 */
    int spec;                  /* 1 when an inputs spec (and a .npy/.safetensors input) may give it */
    const char *aliases;       /* space-separated other names a spec may use ("float f32 fp32") */
    const char *npy;           /* the .npy descr it is written as ("<f4", "|u1"); NULL: numpy has none */
    const char *safetensors;   /* a .safetensors header's dtype ("F32"); NULL none */
} dtype_info;

/* The row of kind k; NULL when k is out of range. */
const dtype_info *dtype_of(dtype_kind k);
/* The kind of a canonical name: 0 and *out, or -1 when no row has that name. */
int dtype_by_name(const char *name, dtype_kind *out);
/* Canonical name of a spec dtype given as "float32", "torch.float32", "f32",
 * "float"...; NULL when it is not one an inputs spec may give. */
const char *dtype_canonical(const char *name);
/* The canonical name of a spec dtype by its .npy type code ("f4", the descr
 * without its byte order) or its
 * .safetensors name ("F32"); NULL when no spec dtype has it. */
const char *dtype_from_npy(const char *code);
const char *dtype_from_safetensors(const char *code);
/* Bytes an element of a spec dtype (canonical name) takes; 0 if unknown. */
size_t dtype_size(const char *dtype);
/* "float32, float16, ..., complex128": the spec dtypes, for messages, in buf
 * (DTYPE_LIST_MAX bytes hold them all); returns buf. */
#define DTYPE_LIST_MAX 256
const char *dtype_spec_list(char *buf, size_t size);

#endif
