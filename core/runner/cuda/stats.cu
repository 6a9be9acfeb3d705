/* stats.cu — libaotidbg_cudastats.so: the C API of cuda_stats.h, the kernel
 * launch, and the warp/block reductions. What each thread computes, and why
 * that way, is in stats_body.cuh.
 *
 * One call = one read of the tensor, one launch, one stream synchronize: the
 * kernel (grid-stride, a launch configuration per element width, 16-byte
 * loads where the elements are dense) leaves one partial per block in a cached
 * device buffer; the last block to finish merges them and writes the result
 * into cached mapped pinned host memory. A tensor whose elements are dense in
 * memory in any dim order (contiguous, transposed, permuted) takes the vector
 * path: statistics do not depend on element order. Anything else (steps, slices
 * with gaps, stride-0 expansion) takes the strided path over collapsed dims.
 *
 * Errors: nonzero return + thread-local message (see cuda_stats.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <cuda_runtime.h>
#include "cuda_stats.h"
#include "stats_body.cuh"

/* Launch configurations (threads, blocks per SM, prefetch, load hint) by
 * element width, measured on the H200 with tests/gpu/tune_stats.sh, which
 * overrides them with -D. Float32: 2 blocks of 256 with the next group's
 * loads in flight (101 registers, no spills) is as fast as 4 blocks without
 * on random data and 3% faster where zeros make every chunk count them
 * (1 GiB: 0.286 ms random, 0.289 ReLU'd, 0.288 falling; aminmax 0.265). The
 * narrower types do more arithmetic per byte and gain from loads in flight
 * while they sum. Each is THREADS, BLOCKS_PER_SM, PREFETCH, HINT;
 * tune_stats.sh sets them in a header it -includes (nvcc splits -D values at
 * commas). */
#ifndef SB_CFG4
#define SB_CFG4 256, 2, true, false
#endif
#ifndef SB_CFG2
#define SB_CFG2 512, 1, true, true
#endif
#ifndef SB_CFG1
#define SB_CFG1 512, 1, true, true
#endif
typedef sb_cfg<SB_CFG4> cfg4;                     /* float32 */
typedef sb_cfg<SB_CFG2> cfg2;                     /* 2-byte types */
typedef sb_cfg<SB_CFG1> cfg1;                     /* 1-byte types */
typedef sb_cfg<256, 4, false, false> cfgw;        /* the double path (8-byte, 32-bit ints) */
#define SB_MAX_BPS 8                              /* scratch holds this many partials per SM */
#define SB_MAX_DEVICES 64

static __thread char g_err[512];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return -1;
}

extern "C" const char *aotidbg_cuda_stats_error(void) { return g_err; }

/* ---- device reductions ------------------------------------------------- */
__device__ __forceinline__ void shfl_merge(sb_partial &p, int off) {
    sb_partial q;
    const unsigned all = 0xffffffffu;
    q.nan = __shfl_down_sync(all, p.nan, off);
    q.pinf = __shfl_down_sync(all, p.pinf, off);
    q.ninf = __shfl_down_sync(all, p.ninf, off);
    q.zero = __shfl_down_sync(all, p.zero, off);
    q.sub = __shfl_down_sync(all, p.sub, off);
    q.fin = __shfl_down_sync(all, p.fin, off);
    q.mean = __shfl_down_sync(all, p.mean, off);
    q.m2 = __shfl_down_sync(all, p.m2, off);
    q.mn = __shfl_down_sync(all, p.mn, off);
    q.mx = __shfl_down_sync(all, p.mx, off);
    q.mn_at = __shfl_down_sync(all, p.mn_at, off);
    q.mx_at = __shfl_down_sync(all, p.mx_at, off);
    q.bad_at = __shfl_down_sync(all, p.bad_at, off);
    sb_merge(p, q);
}

/* Returns, in thread 0, the merge of every thread's p (other threads: junk).
 * Lanes past the warp end read their own value in shfl_down; only lanes whose
 * sources are all in range feed lane 0, so nothing is counted twice. Uses
 * shared memory: callers separate two calls with a __syncthreads(). */
__device__ __forceinline__ sb_partial block_reduce(sb_partial p) {
    __shared__ sb_partial sh[32];                  /* one per warp, up to 1024 threads */
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 16; off > 0; off >>= 1) shfl_merge(p, off);
    if (lane == 0) sh[warp] = p;
    __syncthreads();
    if (warp == 0) {
        if (lane < (int)(blockDim.x >> 5)) p = sh[lane];
        else sb_partial_empty(p);
        for (int off = 16; off > 0; off >>= 1) shfl_merge(p, off);
    }
    return p;
}

/* Another block's partial, read from L2 (L1 is not coherent across blocks). */
__device__ __forceinline__ sb_partial load_partial_cg(const sb_partial *src) {
    sb_partial p;
    const unsigned long long *q = (const unsigned long long *)src;
    unsigned long long w[sizeof(sb_partial) / 8];
#pragma unroll
    for (int k = 0; k < (int)(sizeof(sb_partial) / 8); k++) w[k] = __ldcg(q + k);
    memcpy(&p, w, sizeof p);
    return p;
}

/* Every block stores its partial; the last block to finish (by ticket) merges
 * them all and writes the result straight into mapped host memory, so one
 * call is one launch and one stream synchronize. Tickets are never reset: the
 * host passes the counter's value before this launch (base), and unsigned
 * arithmetic makes wrap-around harmless. */
__device__ __forceinline__ void finish(sb_partial p, sb_partial *parts, unsigned *ticket,
                                       unsigned base, sb_partial *res) {
    __shared__ int last;
    p = block_reduce(p);
    if (threadIdx.x == 0) {
        parts[blockIdx.x] = p;
        __threadfence();                       /* the partial is visible before the ticket */
        last = atomicAdd(ticket, 1u) - base == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    sb_partial_empty(p);
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) sb_merge(p, load_partial_cg(parts + i));
    p = block_reduce(p);
    if (threadIdx.x == 0) *res = p;
}

struct sb_out { sb_partial *parts; unsigned *ticket; unsigned base; sb_partial *res; };

/* The warp's least (greatest) v, in every lane. */
template <class M> __device__ __forceinline__ M warp_min(M v) {
    for (int off = 16; off > 0; off >>= 1) {
        M o = __shfl_xor_sync(0xffffffffu, v, off);
        v = o < v ? o : v;
    }
    return v;
}
template <class M> __device__ __forceinline__ M warp_max(M v) {
    for (int off = 16; off > 0; off >>= 1) {
        M o = __shfl_xor_sync(0xffffffffu, v, off);
        v = o > v ? o : v;
    }
    return v;
}

template <class Tr, class C>
__global__ void __launch_bounds__(C::threads, C::bps)
k_stats_f(sb_plan plan, sb_out o) {
    __shared__ sb_cold cold[C::threads];
    sb_accf a;
    sb_accf_init(a, &cold[threadIdx.x]);
    const uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, T = (uint64_t)gridDim.x * blockDim.x;
    sb_thread_f<Tr, C>(plan, g, T, a);
    sb_partial p;
    sb_partial_of<Tr>(p, a, plan, g, T, sb_wants_mn(a, warp_min(a.mn)), sb_wants_mx(a, warp_max(a.mx)));
    finish(p, o.parts, o.ticket, o.base, o.res);
}

template <class Tr, class C>
__global__ void __launch_bounds__(C::threads, C::bps)
k_stats_w(sb_plan plan, sb_out o) {
    __shared__ sb_cold cold[C::threads];
    sb_accw<typename Tr::M> a;
    sb_accw_init(a, &cold[threadIdx.x]);
    const uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, T = (uint64_t)gridDim.x * blockDim.x;
    sb_thread_w<Tr>(plan, g, T, a);
    sb_partial p;
    sb_partial_of<Tr>(p, a, plan, g, T, sb_wants_mn(a, warp_min(a.mn)), sb_wants_mx(a, warp_max(a.mx)));
    finish(p, o.parts, o.ticket, o.base, o.res);
}

/* ---- dtype table ------------------------------------------------------- */
typedef void (*launch_fn)(const sb_plan &, int, cudaStream_t, const sb_out &);
template <class Tr, class C> static void launch_f(const sb_plan &p, int b, cudaStream_t s, const sb_out &o) {
    k_stats_f<Tr, C><<<b, C::threads, 0, s>>>(p, o);
}
template <class Tr, class C> static void launch_w(const sb_plan &p, int b, cudaStream_t s, const sb_out &o) {
    k_stats_w<Tr, C><<<b, C::threads, 0, s>>>(p, o);
}

typedef struct { const char *name; int size; launch_fn launch; int threads, bps; } dtype_entry;
#define SB_F(NAME, SIZE, TR, C) {NAME, SIZE, launch_f<TR, C>, C::threads, C::bps}
#define SB_W(NAME, SIZE, TR) {NAME, SIZE, launch_w<TR, cfgw>, cfgw::threads, cfgw::bps}
static const dtype_entry k_dtypes[] = {
    SB_F("float32", 4, tf_f32, cfg4),        SB_F("float16", 2, tf_f16, cfg2),
    SB_F("bfloat16", 2, tf_bf16, cfg2),      SB_W("float64", 8, tw_f64),
    SB_F("float8_e4m3fn", 1, tf_e4m3, cfg1), SB_F("float8_e5m2", 1, tf_e5m2, cfg1),
    SB_W("int64", 8, tw_i64),                SB_W("int32", 4, tw_i32),
    SB_F("int16", 2, tf_i16, cfg2),          SB_F("int8", 1, tf_i8, cfg1),
    SB_F("uint8", 1, tf_u8, cfg1),           SB_F("bool", 1, tf_bool, cfg1),
    SB_F("uint16", 2, tf_u16, cfg2),         SB_W("uint32", 4, tw_u32),
    SB_W("uint64", 8, tw_u64),
};
static_assert(cfg4::bps <= SB_MAX_BPS && cfg2::bps <= SB_MAX_BPS && cfg1::bps <= SB_MAX_BPS &&
              cfgw::bps <= SB_MAX_BPS, "blocks per SM past the scratch");

/* ---- per-device scratch (under g_lock) --------------------------------- */
typedef struct {
    int ready, sms;
    sb_partial *d_parts;       /* one partial per block */
    unsigned *d_ticket;        /* blocks finished, ever (wraps) */
    unsigned ticket_base;      /* its value when no kernel of ours is running */
    sb_partial *h_res, *d_res; /* mapped pinned host memory: host and device views */
} dev_scratch;                 /* never freed: lives as long as the process */
static dev_scratch g_scratch[SB_MAX_DEVICES];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static int scratch_get(int dev, dev_scratch **out) {
    if (dev < 0 || dev >= SB_MAX_DEVICES) return fail("CUDA device %d is past the %d supported", dev, SB_MAX_DEVICES);
    dev_scratch *s = &g_scratch[dev];
    if (!s->ready) {
        int sms = 0;
        cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (e != cudaSuccess || sms <= 0)
            return fail("cannot query CUDA device %d: %s", dev, cudaGetErrorString(e));
        int mb = sms * SB_MAX_BPS;
        if (!s->d_parts && (e = cudaMalloc(&s->d_parts, (size_t)mb * sizeof(sb_partial))) != cudaSuccess) {
            s->d_parts = NULL;
            return fail("cannot allocate %zu bytes of scratch on cuda:%d: %s",
                        (size_t)mb * sizeof(sb_partial), dev, cudaGetErrorString(e));
        }
        if (!s->d_ticket) {
            if ((e = cudaMalloc(&s->d_ticket, sizeof(unsigned))) != cudaSuccess) {
                s->d_ticket = NULL;
                return fail("cannot allocate scratch on cuda:%d: %s", dev, cudaGetErrorString(e));
            }
            if ((e = cudaMemset(s->d_ticket, 0, sizeof(unsigned))) != cudaSuccess ||
                (e = cudaDeviceSynchronize()) != cudaSuccess)
                return fail("cannot clear scratch on cuda:%d: %s", dev, cudaGetErrorString(e));
            s->ticket_base = 0;
        }
        if (!s->h_res) {
            void *h = NULL, *d = NULL;
            if ((e = cudaHostAlloc(&h, sizeof(sb_partial), cudaHostAllocMapped | cudaHostAllocPortable)) != cudaSuccess)
                return fail("cannot allocate mapped host memory: %s", cudaGetErrorString(e));
            if ((e = cudaHostGetDevicePointer(&d, h, 0)) != cudaSuccess) {
                cudaFreeHost(h);
                return fail("cannot map host memory into cuda:%d: %s", dev, cudaGetErrorString(e));
            }
            s->h_res = (sb_partial *)h;
            s->d_res = (sb_partial *)d;
        }
        s->sms = sms;
        s->ready = 1;
    }
    *out = s;
    return 0;
}

/* ---- planning ---------------------------------------------------------- */
/* Drops size-1 dims, detects "dense in some dim order" (-> contiguous), else
 * orders dims by stride (innermost last) and merges mergeable neighbours. */
static int plan_make(const void *ptr, int elsize, int ndim, const int64_t *sizes,
                     const int64_t *strides, sb_plan *p, uint64_t *numel_out) {
    uint64_t sz[SB_MAX_DIMS], st[SB_MAX_DIMS], numel = 1;
    int nd = 0, empty = 0;
    if (ndim < 0 || ndim > SB_MAX_DIMS) return fail("ndim %d is outside 0..%d", ndim, SB_MAX_DIMS);
    if (ndim > 0 && (!sizes || !strides)) return fail("sizes and strides are required when ndim > 0");
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) return fail("size %lld of dim %d is negative", (long long)sizes[d], d);
        if (strides[d] < 0)
            return fail("stride %lld of dim %d is negative (not supported)", (long long)strides[d], d);
        if (sizes[d] == 0) empty = 1;
    }
    memset(p, 0, sizeof *p);
    if (empty) { *numel_out = 0; return 0; }
    for (int d = 0; d < ndim; d++) {
        uint64_t s = (uint64_t)sizes[d];
        if (s == 1) continue;
        if (s > (UINT64_C(1) << 62) / numel) return fail("element count overflows 2^62");
        numel *= s;
        /* Keep every offset well inside 64 bits. */
        if ((uint64_t)strides[d] > (UINT64_C(1) << 62) / s)
            return fail("dim %d: size %llu * stride %lld overflows 2^62", d,
                        (unsigned long long)s, (long long)strides[d]);
        sz[nd] = s; st[nd] = (uint64_t)strides[d]; nd++;
    }
    *numel_out = numel;
    /* order by stride descending: innermost (smallest stride) last */
    for (int i = 1; i < nd; i++)
        for (int j = i; j > 0 && st[j - 1] < st[j]; j--) {
            uint64_t t = st[j]; st[j] = st[j - 1]; st[j - 1] = t;
            t = sz[j]; sz[j] = sz[j - 1]; sz[j - 1] = t;
        }
    int dense = 1;
    uint64_t expect = 1;
    for (int i = nd - 1; i >= 0; i--) {
        if (st[i] != expect) { dense = 0; break; }
        expect *= sz[i];
    }
    p->base = (const unsigned char *)ptr;
    p->numel = numel;
    if (dense) {
        uintptr_t a = (uintptr_t)ptr;
        if (a % (uintptr_t)elsize) return fail("data pointer %p is not aligned to its %d-byte elements", ptr, elsize);
        uint64_t mis = a % 16, head = mis ? (16 - mis) / (uint64_t)elsize : 0;
        if (head > numel) head = numel;
        p->strided = 0;
        p->head = head;
        p->nvec = (numel - head) / (uint64_t)(16 / elsize);
        return 0;
    }
    if ((uintptr_t)ptr % (uintptr_t)elsize)
        return fail("data pointer %p is not aligned to its %d-byte elements", ptr, elsize);
    int m = 0;
    for (int i = 0; i < nd; i++) {
        if (m > 0 && st[m - 1] == st[i] * sz[i]) {   /* outer dim continues inner: merge */
            sz[m - 1] *= sz[i];
            st[m - 1] = st[i];
        } else {
            sz[m] = sz[i]; st[m] = st[i]; m++;
        }
    }
    p->strided = 1;
    p->nd = m;
    for (int i = 0; i < m; i++) { p->size[i] = sz[i]; p->stride[i] = st[i]; }
    return 0;
}

static void fill_empty(tensor_stats *out, uint64_t numel) {
    memset(out, 0, sizeof *out);
    out->numel = numel;
    out->min = out->max = out->mean = out->std = NAN;
    out->has_at = 1;
    out->at.min = out->at.max = out->at.nonfinite = -1;
}

/* The tensor's row-major flat index of the element at element offset off
 * from its first one: dims by falling stride each take what they can
 * (stride-0 and size-1 dims index 0, the first of the elements sharing that
 * memory). -1 when off is no element of it. */
static int64_t flat_of_offset(uint64_t off, int ndim, const int64_t *sizes, const int64_t *strides) {
    int order[SB_MAX_DIMS], n = 0;
    int64_t idx[SB_MAX_DIMS] = {0};
    for (int d = 0; d < ndim; d++)
        if (sizes[d] > 1 && strides[d] > 0) {
            int j = n++;
            for (; j > 0 && strides[order[j - 1]] < strides[d]; j--) order[j] = order[j - 1];
            order[j] = d;
        }
    for (int i = 0; i < n; i++) {
        int d = order[i];
        uint64_t q = off / (uint64_t)strides[d];
        if (q >= (uint64_t)sizes[d]) return -1;
        idx[d] = (int64_t)q;
        off -= q * (uint64_t)strides[d];
    }
    if (off) return -1;
    int64_t flat = 0;
    for (int d = 0; d < ndim; d++) flat = flat * sizes[d] + idx[d];
    return flat;
}

/* A kernel position (plan order: element offset, or the strided plan's index) as a flat index. */
static int64_t flat_of_position(uint64_t pos, const sb_plan &plan, int ndim, const int64_t *sizes,
                                const int64_t *strides) {
    if (pos == SB_NONE) return -1;
    return flat_of_offset(plan.strided ? sb_offset(plan, pos) : pos, ndim, sizes, strides);
}

/* ---- the API ----------------------------------------------------------- */
/* Blocks for one call: enough for the work, at most max_blocks (the
 * dtype's blocks per SM times the SMs). */
static int grid_blocks(const sb_plan &plan, uint64_t numel, int threads, int max_blocks) {
    uint64_t per_block = (uint64_t)threads * (plan.strided ? SB_SCHUNK : SB_CHUNK);
    uint64_t want = (numel + per_block - 1) / per_block;
    if (want < 1) want = 1;
    return want < (uint64_t)max_blocks ? (int)want : max_blocks;
}

/* The merged partial as tensor_stats; -1 if the counts do not add up (a bug).
 * Positions are mapped back through the tensor's own sizes and strides. */
static int fill_result(const sb_partial &r, uint64_t numel, const sb_plan &plan, int ndim, const int64_t *sizes,
                       const int64_t *strides, tensor_stats *out) {
    if (r.fin + r.nan + r.pinf + r.ninf != numel)
        return fail("internal error: counted %llu elements of %llu",
                    (unsigned long long)(r.fin + r.nan + r.pinf + r.ninf), (unsigned long long)numel);
    fill_empty(out, numel);
    out->finite = r.fin; out->nan = r.nan; out->posinf = r.pinf; out->neginf = r.ninf;
    out->zeros = r.zero; out->subnormal = r.sub;
    if (r.fin) {
        out->min = r.mn; out->max = r.mx; out->mean = r.mean;
        out->std = r.fin > 1 ? sqrt(r.m2 / (double)(r.fin - 1)) : NAN;
        out->at.min = flat_of_position(r.mn_at, plan, ndim, sizes, strides);
        out->at.max = flat_of_position(r.mx_at, plan, ndim, sizes, strides);
    }
    out->at.nonfinite = flat_of_position(r.bad_at, plan, ndim, sizes, strides);
    return 0;
}

static int run_locked(const dtype_entry *dt, const sb_plan &plan, uint64_t numel, int dev,
                      cudaStream_t stream, int ndim, const int64_t *sizes, const int64_t *strides,
                      tensor_stats *out) {
    dev_scratch *s = NULL;
    if (scratch_get(dev, &s)) return -1;
    int blocks = grid_blocks(plan, numel, dt->threads, s->sms * dt->bps);
    uint64_t threads = (uint64_t)blocks * (uint64_t)dt->threads;
    if (numel / threads + 64 >= UINT64_C(0xffffffff))
        return fail("%llu elements is past what one call handles", (unsigned long long)numel);
    (void)cudaGetLastError();   /* a stale launch error of someone else's must not read as ours */
    memset(s->h_res, 0, sizeof *s->h_res);   /* a result never written reads as 0 elements: caught below */
    sb_out o = { s->d_parts, s->d_ticket, s->ticket_base, s->d_res };
    dt->launch(plan, blocks, stream, o);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return fail("statistics kernel (%s) did not launch: %s", dt->name, cudaGetErrorString(e));
    s->ticket_base += (unsigned)blocks;
    if ((e = cudaStreamSynchronize(stream)) != cudaSuccess)
        return fail("CUDA error while computing statistics (%s, %llu elements): %s "
                    "(it may come from earlier work on the stream)", dt->name,
                    (unsigned long long)numel, cudaGetErrorString(e));
    sb_partial r;
    memcpy(&r, (const void *)s->h_res, sizeof r);
    return fill_result(r, numel, plan, ndim, sizes, strides, out);
}

extern "C" int aotidbg_cuda_stats(const void *dev_ptr, const char *dtype, int ndim,
                                  const int64_t *sizes, const int64_t *strides,
                                  void *stream, tensor_stats *out) {
    g_err[0] = 0;
    if (!dtype || !out) return fail("dtype and out are required");
    const dtype_entry *dt = NULL;
    for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (!strcmp(k_dtypes[i].name, dtype)) dt = &k_dtypes[i];
    if (!dt) return fail("dtype '%.64s' is not supported by the CUDA statistics kernel", dtype);
    sb_plan plan;
    uint64_t numel = 0;
    if (plan_make(dev_ptr, dt->size, ndim, sizes, strides, &plan, &numel)) return -1;
    if (numel == 0) { fill_empty(out, 0); return 0; }
    if (!dev_ptr) return fail("data pointer is NULL for %llu elements", (unsigned long long)numel);

    cudaPointerAttributes attr;
    cudaError_t e = cudaPointerGetAttributes(&attr, dev_ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return fail("cannot query pointer %p: %s", dev_ptr, cudaGetErrorString(e));
    }
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
        return fail("pointer %p is not CUDA device memory (use the host statistics path)", dev_ptr);
    int prev = -1;
    if ((e = cudaGetDevice(&prev)) != cudaSuccess) return fail("cudaGetDevice: %s", cudaGetErrorString(e));
    int dev = attr.device;
    if (dev != prev && (e = cudaSetDevice(dev)) != cudaSuccess)
        return fail("cannot switch to cuda:%d: %s", dev, cudaGetErrorString(e));
    pthread_mutex_lock(&g_lock);
    int rc = run_locked(dt, plan, numel, dev, (cudaStream_t)stream, ndim, sizes, strides, out);
    pthread_mutex_unlock(&g_lock);
    if (dev != prev) cudaSetDevice(prev);
    return rc;
}
