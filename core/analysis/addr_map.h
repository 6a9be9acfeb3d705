/* addr_map.h — an address a memory checker reports, named in the model's
 * terms: which tensor's allocation holds it (or is nearest to it), which
 * element of that tensor it is, how far outside, and the index element of
 * the same launch that led there.
 *
 * Input is the tensor table the runner sent for a launch (tensor_rec.alloc:
 * data pointer, storage base and bytes, as `--memcheck` records them), and
 * optionally the tensors of every launch before it (allocations known so
 * far). Pure arithmetic over those numbers: no device, no files.
 *
 * Choosing the tensor: one of the launch whose allocation holds the address;
 * else an earlier launch's; else, among the launch's tensors, one whose
 * outermost element index at the address equals a value of an integer tensor
 * of the same launch (a gather whose index ran past its table); else the
 * nearest allocation of the launch by bytes outside it.
 * The element index divides the byte offset from the tensor's data pointer
 * by its strides, largest stride first, so the outermost dimension may be
 * outside the shape ([9, 0] of an [8, 4] table) or negative.
 * Ownership: the hit points into the caller's tensors (borrowed). */
#ifndef AOTIDBG_ADDR_MAP_H
#define AOTIDBG_ADDR_MAP_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

typedef enum {
    ADDR_NONE = 0,     /* no tensor with an allocation known */
    ADDR_INSIDE,       /* inside the allocation and inside the tensor's elements */
    ADDR_IN_ALLOC,     /* inside the allocation, outside the tensor's own elements (a view, a blob) */
    ADDR_PAST_END,     /* after the allocation's last byte */
    ADDR_BEFORE,       /* before its first byte */
} addr_place;

typedef struct {
    addr_place place;
    const tensor_rec *t;          /* the tensor named; NULL with ADDR_NONE */
    int64_t launch;               /* the kernel index whose table it is from (as given) */
    uint64_t distance;            /* PAST_END: addr - (base + bytes); BEFORE: base - addr; else 0 */
    int ndim;                     /* t->ndim */
    int64_t index[TENSOR_MAX_DIMS];   /* the element at the address */
    uint64_t byte_in_elem;        /* the address is this many bytes into that element */
    int by_index;                 /* chosen because an index tensor's value matches index[0] */
    const tensor_rec *index_t;    /* that integer tensor, or NULL */
    int64_t index_flat;           /* the row-major position of the matching value in index_t; -1 none */
    int64_t index_value;
} addr_hit;

/* One launch's tensors: t[0..n), the launch's kernel index. */
typedef struct {
    int64_t launch;
    const tensor_rec *t;
    size_t n;
} addr_table;

/* Maps addr (an access of size bytes; 0 unknown) against tables[0], the
 * faulting launch, then tables[1..n) (earlier launches, newest first).
 * Returns the hit's place (ADDR_NONE when no tensor has an allocation). */
addr_place addr_map(const addr_table *tables, size_t n, uint64_t addr, uint32_t size, addr_hit *out);

/* "16 bytes past the end of buf0 (x) [8, 4] float32, element [9, 0]; index idx[0] = 9"
 * appended to sb. */
void addr_hit_text(const addr_hit *h, strbuf *sb);
/* The element as "[9, 0]" appended to sb. */
void addr_hit_index_text(const addr_hit *h, strbuf *sb);

#endif
