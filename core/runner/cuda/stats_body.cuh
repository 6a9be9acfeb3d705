/* stats_body.cuh — what one thread of the statistics kernel does, and how two
 * partial results merge. Everything here is __host__ __device__ so that
 * tests/gpu/stats_sim.cu can run the very same code for every thread of a
 * simulated grid on a machine without a GPU; stats.cu adds the launch, the
 * warp/block reductions and the C API. No CUDA runtime calls here.
 *
 * Accumulation (why this scheme): each thread keeps, over the finite values
 * it sees, a count n, a shift K (its first finite value) and the sums
 * S1 = sum(x - K) and S2 = sum((x - K)^2) in double. Per-element double
 * arithmetic would spend the H200's FP64 and conversion pipes (16 F2F per
 * clock per SM) on every element, so values are taken in chunks of up to 16:
 * within a chunk, in float, d = x - c with c the chunk's first finite value,
 * s2 = sum d^2, and s1 = sum d taken as (sum x) - m*c with sum x compensated
 * (sb_twosum): the rounding of each d would not average out over periodic or
 * stride-0 data, and the mean needs better than float. The chunk then enters
 * the thread's double sums exactly through D = c - K:
 *   S1 += m*D + s1,   S2 += D*(m*D + 2*s1) + s2        (m finite values).
 * Any error in s1 enters M2 = S2 - S1^2/n with the weight 2*(c - mean), the
 * chunk's own distance from the mean, not (K - mean), so a shift far from
 * the data (padding zeros ahead of data near 1e3) costs no precision; s2's
 * rounding is relative to the chunk's own spread (std to ~1e-7 relative).
 * Float64 and the 32/64-bit integers (not exact in float) go element by
 * element in double. A chunk whose float sums overflowed (values past
 * ~1.8e19 apart, or sums past 3.4e38) is redone in double. Threads then turn
 * (n, K, S1, S2) into (n, mean, M2) and merge with Chan's parallel formula
 * (sb_merge), which the reductions use.
 *
 * Classification is done on the value converted to float (exact for every
 * type on this path): NaN is x != x, Inf is |x| == inf, subnormal is
 * 0 < |x| < the dtype's smallest normal (tiny). No fast-math: FTZ must stay
 * off or subnormals would read as zero.
 *
 * Positions (first min, max, NaN/Inf) cost the hot loop two compares and
 * two predicated moves per chunk: a thread keeps only which of its chunks
 * (numbered in the order it reads them, which is rising position order)
 * first reached its final min and max (a strict "<" against the running
 * value; ties keep the earlier chunk) and which first held a NaN/Inf. After
 * its loop it reads that chunk again and takes the first element equal to
 * the min (max), or the first non-finite one (sb_find_f, sb_find_w): one
 * chunk per thread, and on the GPU only in lanes whose min (max) equals
 * their warp's (stats.cu), since no other lane can hold the tensor's first.
 * Merges break ties by the lower position. The host maps a position back to
 * the tensor's multi-index (stats.cu).
 *
 * Zero and subnormal counts (float32/bfloat16/float16, SB_GATE): the fast
 * path takes min |x| over the chunk (one instruction per element) and counts
 * only in chunks where it is below the smallest normal, which dense data
 * never has; sparse data (ReLU outputs) counts as before plus that one. */
#ifndef AOTIDBG_STATS_BODY_CUH
#define AOTIDBG_STATS_BODY_CUH
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <float.h>
#ifdef __CUDACC__
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#define SB_HD __host__ __device__ __forceinline__
#else
#define SB_HD static inline
#endif

#define SB_MAX_DIMS 16
#define SB_CHUNK 16        /* elements per float chunk (contiguous path) */
#define SB_SCHUNK 8        /* elements gathered per iteration (strided path) */
/* A launch configuration: threads per block, blocks per SM, whether the
 * contiguous loop loads the next group while summing this one (PF, more
 * registers: fewer blocks), and whether loads carry the L1::no_allocate
 * L2::256B hint (HINT). stats.cu picks one per element width; the figures
 * behind the choice come from tests/gpu/tune_stats.sh on the H200. */
template <int THREADS, int BPS, bool PF, bool HINT> struct sb_cfg {
    enum { threads = THREADS, bps = BPS, pf = PF, hint = HINT };
};

/* What the host plans for one call; passed to the kernel by value. */
typedef struct {
    const unsigned char *base;   /* first element (contiguous) or element 0 (strided) */
    uint64_t numel;              /* logical element count */
    int strided;                 /* 0: elements base[0..numel) in any order */
    /* contiguous: [0, head) scalar, then nvec 16-byte vectors, then the tail */
    uint64_t head, nvec;
    /* strided: collapsed dims, innermost last, strides in elements */
    int nd;
    uint64_t size[SB_MAX_DIMS];
    uint64_t stride[SB_MAX_DIMS];
} sb_plan;

/* One thread's, one block's or the whole tensor's result. */
typedef struct {
    unsigned long long nan, pinf, ninf, zero, sub, fin;
    double mean, m2, mn, mx;      /* mean/m2 over finite; mn/mx +inf/-inf when fin == 0 */
    unsigned long long mn_at, mx_at, bad_at;   /* positions in the plan's order; SB_NONE */
} sb_partial;

#define SB_NONE (~0ULL)          /* no such position */
#define SB_NONE32 (~0u)          /* no such ordinal */

/* ---- bit helpers ------------------------------------------------------ */
SB_HD float sb_f32(uint32_t b) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(b);
#else
    float f; memcpy(&f, &b, 4); return f;
#endif
}
SB_HD double sb_f64(uint64_t b) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)b);
#else
    double f; memcpy(&f, &b, 8); return f;
#endif
}
SB_HD float sb_half(uint32_t h) {
#ifdef __CUDA_ARCH__
    return __half2float(__ushort_as_half((unsigned short)h));
#else
    uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) { float v = (float)m * 0x1p-24f; return s ? -v : v; }
    if (e == 31) return sb_f32(s | 0x7f800000u | (m << 13));
    return sb_f32(s | ((e + 112u) << 23) | (m << 13));
#endif
}
/* float8_e4m3fn: bias 7, no Inf, S.1111.111 is NaN, max 448. sm_89 and
 * later convert in hardware (2 instructions, not ~10 of bit fiddling). */
SB_HD float sb_e4m3(uint32_t b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    return __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b, __NV_E4M3)));
#else
    uint32_t s = (b & 0x80u) << 24, e = (b >> 3) & 0xfu, m = b & 7u;
    if (e == 15 && m == 7) return sb_f32(s | 0x7fc00000u);
    if (e == 0) { float v = (float)m * 0x1p-9f; return s ? -v : v; }
    return sb_f32(s | ((e + 120u) << 23) | (m << 20));
#endif
}

#ifdef __CUDA_ARCH__
#define SB_LD(p) __ldg(p)
#define SB_UNROLL _Pragma("unroll")
#else
#define SB_LD(p) (*(p))
#define SB_UNROLL
#endif
/* 16-byte vector load of the contiguous path. */
template <bool HINT> SB_HD uint4 sb_ld16(const uint4 *p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (HINT) {
        uint4 r;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
        return r;
    }
#endif
    return SB_LD(p);
}
/* The same load again, never merged with the first (which would keep its
 * registers alive across the fast path). */
#ifdef __CUDA_ARCH__
__device__ __forceinline__ uint4 sb_ld16_again(const uint4 *p) {
    uint4 r;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return r;
}
#else
SB_HD uint4 sb_ld16_again(const uint4 *p) { return *p; }
#endif

/* ---- dtype traits ----------------------------------------------------- */
/* Float path: raw storage type, conversion to float (exact), smallest normal,
 * and whether zero/subnormal counting is gated on the chunk's min |x| (types
 * whose dense data has neither: not fp8, whose subnormals are common, nor
 * the integers, where zero is an ordinary value). */
#ifndef SB_GATE
#define SB_GATE 1          /* tune_stats.sh builds 0 to time the ungated count */
#endif
#define SB_FTRAIT(NAME, RAW, CONV, TINY, GATE)                             \
    struct NAME { typedef RAW raw; enum { gate = (GATE) && SB_GATE };      \
        static SB_HD float conv(RAW r) { return CONV; }                    \
        static SB_HD float tiny() { return TINY; } };
SB_FTRAIT(tf_f32, uint32_t, sb_f32(r), 0x1p-126f, 1)
SB_FTRAIT(tf_bf16, uint16_t, sb_f32((uint32_t)r << 16), 0x1p-126f, 1)
SB_FTRAIT(tf_f16, uint16_t, sb_half(r), 0x1p-14f, 1)
SB_FTRAIT(tf_e4m3, uint8_t, sb_e4m3(r), 0x1p-6f, 0)
SB_FTRAIT(tf_e5m2, uint8_t, sb_half((uint32_t)r << 8), 0x1p-14f, 0)
/* Small integers are exact in float; tiny 1 means "never subnormal". */
SB_FTRAIT(tf_i8, uint8_t, (float)(int8_t)r, 1.0f, 0)
SB_FTRAIT(tf_u8, uint8_t, (float)r, 1.0f, 0)
SB_FTRAIT(tf_bool, uint8_t, r ? 1.0f : 0.0f, 1.0f, 0)
SB_FTRAIT(tf_i16, uint16_t, (float)(int16_t)r, 1.0f, 0)
SB_FTRAIT(tf_u16, uint16_t, (float)r, 1.0f, 0)

/* Wide path: element by element in double; M is the min/max type. */
struct tw_f64 { typedef uint64_t raw; typedef double M; enum { is_float = 1 };
    static SB_HD M val(uint64_t r) { return sb_f64(r); } };
struct tw_i32 { typedef uint32_t raw; typedef long long M; enum { is_float = 0 };
    static SB_HD M val(uint32_t r) { return (int32_t)r; } };
struct tw_u32 { typedef uint32_t raw; typedef unsigned long long M; enum { is_float = 0 };
    static SB_HD M val(uint32_t r) { return r; } };
struct tw_i64 { typedef uint64_t raw; typedef long long M; enum { is_float = 0 };
    static SB_HD M val(uint64_t r) { return (long long)r; } };
struct tw_u64 { typedef uint64_t raw; typedef unsigned long long M; enum { is_float = 0 };
    static SB_HD M val(uint64_t r) { return r; } };

/* ---- per-thread accumulators ------------------------------------------ */
/* Counts are 32-bit per thread: the host caps elements per thread below 2^32.
 * What the hot loop only ever writes, rarely (non-finite counts, the chunk
 * marks), lives apart (sb_cold): in shared memory on the GPU (stats.cu), so
 * it holds no registers across the loop, where registers are what limits
 * float32 (64 a thread at 1024 threads an SM). */
typedef struct {
    uint32_t nan, pinf, ninf;
    uint32_t mn_id, mx_id, bad_id;   /* chunks of the first min, max, NaN/Inf; SB_NONE32 */
    uint32_t groups;                 /* groups read (contiguous path), for sb_chunk_where */
} sb_cold;

typedef struct {
    uint32_t zero, sub, fin;
    float mn, mx;
    double K, S1, S2;
    sb_cold *c;
} sb_accf;

template <class M> struct sb_accw {
    uint32_t zero, sub, fin;
    M mn, mx;
    double K, S1, S2;
    sb_cold *c;
};

SB_HD void sb_cold_init(sb_cold *c) {
    c->nan = c->pinf = c->ninf = 0;
    c->mn_id = c->mx_id = c->bad_id = SB_NONE32;
    c->groups = 0;
}
SB_HD void sb_accf_init(sb_accf &a, sb_cold *c) {
    a.zero = a.sub = a.fin = 0;
    a.mn = INFINITY; a.mx = -INFINITY;
    a.K = a.S1 = a.S2 = 0.0;
    a.c = c;
    sb_cold_init(c);
}
template <class M> SB_HD M sb_lowest();
template <> SB_HD double sb_lowest<double>() { return -INFINITY; }
template <> SB_HD long long sb_lowest<long long>() { return (long long)(~0ULL >> 1) * -1 - 1; }
template <> SB_HD unsigned long long sb_lowest<unsigned long long>() { return 0ULL; }
template <class M> SB_HD M sb_highest();
template <> SB_HD double sb_highest<double>() { return INFINITY; }
template <> SB_HD long long sb_highest<long long>() { return (long long)(~0ULL >> 1); }
template <> SB_HD unsigned long long sb_highest<unsigned long long>() { return ~0ULL; }

template <class M> SB_HD void sb_accw_init(sb_accw<M> &a, sb_cold *c) {
    a.zero = a.sub = a.fin = 0;
    a.mn = sb_highest<M>(); a.mx = sb_lowest<M>();
    a.K = a.S1 = a.S2 = 0.0;
    a.c = c;
    sb_cold_init(c);
}

/* Compensated sum: after any number of calls, s + e is sum x to about twice
 * float precision. Knuth's TwoSum gives each addition's exact rounding error
 * whatever the magnitudes (plain Kahan loses it when |x| > |s|). Six FP32
 * adds, on the pipe this kernel leaves most idle. */
SB_HD void sb_twosum(float &s, float &e, float x) {
    float t = s + x, z = t - s;
    e += (s - (t - z)) + (x - z);
    s = t;
}

/* m finite values whose float sums (no overflow) are s1 + e1 and s2 about
 * c enter the thread's double sums exactly through D = c - K (see the top).
 * The sum of d comes from the exact x values: d itself is rounded, and that
 * rounding would not average out over periodic or stride-0 data. */
SB_HD void sb_add_sums(sb_accf &a, uint32_t m, float c, float s1, float e1, float s2) {
    if (a.fin == 0) a.K = (double)c;
    double D = (double)c - a.K, dm = (double)m, t1 = ((double)s1 + (double)e1) - dm * (double)c;
    a.S1 += dm * D + t1;
    a.S2 += D * (dm * D + 2.0 * t1) + (double)s2;
    a.fin += m;
}

/* A chunk's float sums enter the thread's double sums; on float overflow
 * the chunk is redone in double. */
template <int N, bool FULL>
SB_HD void sb_chunk_commit(sb_accf &a, const float (&x)[N], int n, uint32_t m,
                           float c, float s1, float e1, float s2) {
    if (m == 0) return;
    if (s2 + fabsf(s1) + fabsf(e1) <= FLT_MAX) {   /* false on overflow */
        sb_add_sums(a, m, c, s1, e1, s2);
        return;
    }
    /* float overflow (|x| or |x - c| near 1.8e19+): redo in double */
    if (a.fin == 0) a.K = (double)c;
SB_UNROLL
    for (int j = 0; j < N; j++) {
        if ((FULL || j < n) && fabsf(x[j]) <= FLT_MAX) {
            double d = (double)x[j] - a.K;
            a.S1 += d;
            a.S2 += d * d;
        }
    }
    a.fin += m;
}

/* The common case: every value finite and no float overflow. Returns false,
 * leaving a untouched, when that does not hold: NaN or Inf anywhere, or an
 * overflow, leaves s1, e1 or s2 non-finite. Six adds per element for the
 * compensated sum, one FMA for s2, two min/max, and either min |x| (GATE:
 * zeros and subnormals counted only when it is below tiny) or two compares
 * and counts. A new min or max marks the chunk (id), nothing more. */
template <int N, bool GATE>
SB_HD bool sb_chunk_fast(sb_accf &a, const float (&x)[N], float tiny, uint32_t id) {
    float c = x[0], s1 = 0.0f, e1 = 0.0f, s2 = 0.0f, mn = a.mn, mx = a.mx, amin = INFINITY;
    uint32_t nzero = 0, nsmall = 0;
SB_UNROLL
    for (int j = 0; j < N; j++) {
        float d = x[j] - c;
        sb_twosum(s1, e1, x[j]);
        s2 = fmaf(d, d, s2);
        mn = fminf(mn, x[j]);
        mx = fmaxf(mx, x[j]);
        if (GATE) {
            amin = fminf(amin, fabsf(x[j]));
        } else {
            nzero += (x[j] == 0.0f);
            nsmall += (fabsf(x[j]) < tiny);
        }
    }
    if (!(s2 + fabsf(s1) + fabsf(e1) <= FLT_MAX)) return false;
    if (GATE && amin < tiny) {
SB_UNROLL
        for (int j = 0; j < N; j++) {
            nzero += (x[j] == 0.0f);
            nsmall += (fabsf(x[j]) < tiny);
        }
    }
    if (mn < a.mn) a.c->mn_id = id;
    if (mx > a.mx) a.c->mx_id = id;
    a.mn = mn; a.mx = mx;
    a.zero += nzero;
    a.sub += nsmall - nzero;
    sb_add_sums(a, N, c, s1, e1, s2);
    return true;
}

/* Any chunk: classifies every value, sums the finite ones. */
template <int N, bool FULL>
SB_HD void sb_chunk_any(sb_accf &a, const float (&x)[N], int n, float tiny, uint32_t id) {
    float c = 0.0f, s1 = 0.0f, e1 = 0.0f, s2 = 0.0f, mn = a.mn, mx = a.mx;
    uint32_t m = 0, nan = 0, pinf = 0, ninf = 0;
    bool bad = false;
SB_UNROLL
    for (int j = N - 1; j >= 0; j--)
        if ((FULL || j < n) && fabsf(x[j]) <= FLT_MAX) c = x[j];
SB_UNROLL
    for (int j = 0; j < N; j++) {
        if (FULL || j < n) {
            float v = x[j], av = fabsf(v);
            bool fin = av <= FLT_MAX, inf = av == INFINITY;
            nan += (v != v);
            pinf += inf && v > 0.0f;
            ninf += inf && v < 0.0f;
            a.zero += (v == 0.0f);
            a.sub += (av < tiny) && v != 0.0f;
            if (fin) {
                float d = v - c;
                sb_twosum(s1, e1, v);
                s2 = fmaf(d, d, s2);
                mn = fminf(mn, v);
                mx = fmaxf(mx, v);
                m++;
            } else {
                bad = true;
            }
        }
    }
    if (mn < a.mn) a.c->mn_id = id;
    if (mx > a.mx) a.c->mx_id = id;
    if (bad) {
        a.c->nan += nan; a.c->pinf += pinf; a.c->ninf += ninf;
        if (a.c->bad_id == SB_NONE32) a.c->bad_id = id;
    }
    a.mn = mn; a.mx = mx;
    sb_chunk_commit<N, FULL>(a, x, n, m, c, s1, e1, s2);
}

/* Add up to N float values x[0..n) (n == N when FULL) as chunk id. */
template <int N, bool FULL, bool GATE>
SB_HD void sb_chunk(sb_accf &a, const float (&x)[N], int n, float tiny, uint32_t id) {
    if (FULL) {
        /* x*0 is 0 for finite x and NaN for NaN/Inf: one FMA per element
         * picks the path before any sum is spent. */
        float probe = 0.0f;
SB_UNROLL
        for (int j = 0; j < N; j++) probe = fmaf(x[j], 0.0f, probe);
        if (probe == 0.0f && sb_chunk_fast<N, GATE>(a, x, tiny, id)) return;
    }
    sb_chunk_any<N, FULL>(a, x, n, tiny, id);
}

/* One element of chunk id. A new min or max marks the chunk straight in
 * sb_cold (a predicated store: no register held across the loop), as does
 * the thread's first finite value (its min may equal the type's highest,
 * which no "<" lowers). */
template <class Tr>
SB_HD void sb_elem_w(sb_accw<typename Tr::M> &a, typename Tr::raw r, uint32_t id) {
    typedef typename Tr::M M;
    M v = Tr::val(r);
    double x = (double)v;
    if (Tr::is_float) {
        double ax = fabs(x);
        if (!(ax <= DBL_MAX)) {
            a.c->nan += (x != x);
            a.c->pinf += (ax == INFINITY) && x > 0.0;
            a.c->ninf += (ax == INFINITY) && x < 0.0;
            if (a.c->bad_id == SB_NONE32) a.c->bad_id = id;
            return;
        }
        a.sub += (ax < DBL_MIN) && x != 0.0;
    }
    a.zero += (v == (M)0);
    if (v < a.mn) { a.mn = v; a.c->mn_id = id; }
    if (v > a.mx) { a.mx = v; a.c->mx_id = id; }
    if (a.fin == 0) { a.K = x; a.mn = a.mx = v; a.c->mn_id = a.c->mx_id = id; }
    double d = x - a.K;
    a.S1 += d;
    a.S2 = fma(d, d, a.S2);
    a.fin++;
}

/* Elements x[0..n) as chunk id. */
template <class Tr, int N>
SB_HD void sb_chunk_w(sb_accw<typename Tr::M> &a, const typename Tr::raw (&x)[N], int n, uint32_t id) {
SB_UNROLL
    for (int j = 0; j < N; j++)
        if (j < n) sb_elem_w<Tr>(a, x[j], id);
}

/* ---- one thread's share of the tensor --------------------------------- */
/* Group shapes of the two paths: U 16-byte vectors of V elements. */
template <class Tr> struct sb_shape_f { enum { V = 16 / sizeof(typename Tr::raw), U = SB_CHUNK / V }; };
template <class Tr> struct sb_shape_w { enum { V = 16 / sizeof(typename Tr::raw), U = 4 }; };

/* Thread g of T (grid-stride). Contiguous: 16-byte loads, U of them in flight
 * per iteration, each U*V-element group one chunk. */
SB_HD uint64_t sb_offset(const sb_plan &p, uint64_t li) {
    uint64_t off = 0;
    for (int d = p.nd - 1; d > 0; d--) {
        uint64_t s = p.size[d], q = li / s;
        off += (li - q * s) * p.stride[d];
        li = q;
    }
    return off + li * p.stride[0];
}

union sb_vec { uint4 v; uint8_t b[16]; uint16_t h[8]; uint32_t w[4]; uint64_t q[2]; };
template <class R> SB_HD R sb_lane(const sb_vec &u, int j);
template <> SB_HD uint8_t sb_lane<uint8_t>(const sb_vec &u, int j) { return u.b[j]; }
template <> SB_HD uint16_t sb_lane<uint16_t>(const sb_vec &u, int j) { return u.h[j]; }
template <> SB_HD uint32_t sb_lane<uint32_t>(const sb_vec &u, int j) { return u.w[j]; }
template <> SB_HD uint64_t sb_lane<uint64_t>(const sb_vec &u, int j) { return u.q[j]; }

/* U vectors of one group: q[0], q[T], ..., q[(U-1)T]. */
template <int U, bool HINT>
SB_HD void sb_load_group(sb_vec (&r)[U], const uint4 *q, uint64_t T) {
SB_UNROLL
    for (int k = 0; k < U; k++) r[k].v = sb_ld16<HINT>(q + (uint64_t)k * T);
}
/* A group's U*V elements as chunk id. The fast path runs first, with no
 * probe: the rare group it refuses is loaded again (from cache) rather than
 * kept in registers across it. */
template <class Tr, int U, int V>
SB_HD void sb_sum_group(sb_accf &a, const sb_vec (&r)[U], float tiny, const uint4 *q, uint64_t T, uint32_t id) {
    typedef typename Tr::raw R;
    float x[U * V];
SB_UNROLL
    for (int k = 0; k < U; k++)
SB_UNROLL
        for (int j = 0; j < V; j++) x[k * V + j] = Tr::conv(sb_lane<R>(r[k], j));
    if (sb_chunk_fast<U * V, Tr::gate>(a, x, tiny, id)) return;
    sb_vec b[U];
SB_UNROLL
    for (int k = 0; k < U; k++) b[k].v = sb_ld16_again(q + (uint64_t)k * T);
    float y[U * V];
SB_UNROLL
    for (int k = 0; k < U; k++)
SB_UNROLL
        for (int j = 0; j < V; j++) y[k * V + j] = Tr::conv(sb_lane<R>(b[k], j));
    sb_chunk_any<U * V, true>(a, y, U * V, tiny, id);
}

/* Groups of U vectors T apart that thread g reads (the host keeps a
 * thread's elements below 2^32). */
template <int U>
SB_HD uint32_t sb_groups(const sb_plan &p, uint64_t g, uint64_t T) {
    const uint64_t step = (uint64_t)U * T, last = (uint64_t)(U - 1) * T;
    return g + last < p.nvec ? (uint32_t)((p.nvec - 1 - g - last) / step + 1) : 0;
}

/* Chunk ids, in the order a thread reads (rising positions). Contiguous: 0
 * the head element, 1..ng the groups, then the single vectors, then the
 * tail element. Strided: the iteration. sb_chunk_where inverts this. The
 * group loops count ids, not vector indices: one 32-bit register is the
 * loop counter and the id both. */
template <class Tr, class C>
SB_HD void sb_thread_f(const sb_plan &p, uint64_t g, uint64_t T, sb_accf &a) {
    typedef typename Tr::raw R;
    const R *e = (const R *)p.base;
    const float tiny = Tr::tiny();
    if (p.strided) {
        uint32_t id = 0;
        for (uint64_t i = g; i < p.numel; i += T * SB_SCHUNK, id++) {
            float x[SB_SCHUNK];
            int n = 0;
SB_UNROLL
            for (int k = 0; k < SB_SCHUNK; k++) {
                uint64_t li = i + (uint64_t)k * T;
                x[k] = 0.0f;
                if (li < p.numel) { x[k] = Tr::conv(SB_LD(e + sb_offset(p, li))); n++; }
            }
            sb_chunk<SB_SCHUNK, false, Tr::gate>(a, x, n, tiny, id);
        }
        return;
    }
    enum { V = sb_shape_f<Tr>::V, U = sb_shape_f<Tr>::U };
    if (g < p.head) {
        float x[1] = { Tr::conv(SB_LD(e + g)) };
        sb_chunk<1, true, Tr::gate>(a, x, 1, tiny, 0);
    }
    const uint4 *vp = (const uint4 *)(e + p.head);
    const uint4 *q = vp + g;
    const uint64_t step = (uint64_t)U * T;
    const uint32_t ng = sb_groups<U>(p, g, T);
    a.c->groups = ng;
    uint32_t id = 1;
    if (C::pf && ng > 0) {
        /* Two buffers in turn: the loads of the next group are in flight
         * while this one is summed (no register copies between iterations). */
        sb_vec ra[U], rb[U];
        sb_load_group<U, C::hint>(ra, q, T);
        for (;;) {
            bool more = id < ng;
            if (more) sb_load_group<U, C::hint>(rb, q + step, T);
            sb_sum_group<Tr, U, V>(a, ra, tiny, q, T, id++);
            q += step;
            if (!more) break;
            more = id < ng;
            if (more) sb_load_group<U, C::hint>(ra, q + step, T);
            sb_sum_group<Tr, U, V>(a, rb, tiny, q, T, id++);
            q += step;
            if (!more) break;
        }
    }
    for (; id <= ng; id++, q += step) {   /* without PF: every group */
        sb_vec r[U];
        sb_load_group<U, C::hint>(r, q, T);
        sb_sum_group<Tr, U, V>(a, r, tiny, q, T, id);
    }
    for (uint64_t v = g + (uint64_t)ng * step; v < p.nvec; v += T, id++) {
        sb_vec r;
        r.v = sb_ld16<C::hint>(vp + v);
        float x[V];
SB_UNROLL
        for (int j = 0; j < V; j++) x[j] = Tr::conv(sb_lane<R>(r, j));
        sb_chunk<V, true, Tr::gate>(a, x, V, tiny, id);
    }
    const uint64_t tail0 = p.head + p.nvec * V;
    if (g < p.numel - tail0) {   /* last: ids rise with positions */
        float x[1] = { Tr::conv(SB_LD(e + tail0 + g)) };
        sb_chunk<1, true, Tr::gate>(a, x, 1, tiny, id);
    }
}

template <class Tr>
SB_HD void sb_thread_w(const sb_plan &p, uint64_t g, uint64_t T, sb_accw<typename Tr::M> &a) {
    typedef typename Tr::raw R;
    const R *e = (const R *)p.base;
    if (p.strided) {
        uint32_t id = 0;
        for (uint64_t i = g; i < p.numel; i += T * SB_SCHUNK, id++) {
            R x[SB_SCHUNK];
            int n = 0;
SB_UNROLL
            for (int k = 0; k < SB_SCHUNK; k++) {
                uint64_t li = i + (uint64_t)k * T;
                x[k] = 0;
                if (li < p.numel) { x[k] = SB_LD(e + sb_offset(p, li)); n++; }
            }
            sb_chunk_w<Tr, SB_SCHUNK>(a, x, n, id);
        }
        return;
    }
    enum { V = sb_shape_w<Tr>::V, U = sb_shape_w<Tr>::U };
    if (g < p.head) {
        R x[1] = { SB_LD(e + g) };
        sb_chunk_w<Tr, 1>(a, x, 1, 0);
    }
    const uint4 *vp = (const uint4 *)(e + p.head);
    const uint4 *q = vp + g;
    const uint64_t step = (uint64_t)U * T;
    const uint32_t ng = sb_groups<U>(p, g, T);
    a.c->groups = ng;
    uint32_t id = 1;
    for (; id <= ng; id++, q += step) {
        sb_vec r[U];
        sb_load_group<U, false>(r, q, T);
        R x[U * V];
SB_UNROLL
        for (int k = 0; k < U; k++)
SB_UNROLL
            for (int j = 0; j < V; j++) x[k * V + j] = sb_lane<R>(r[k], j);
        sb_chunk_w<Tr, U * V>(a, x, U * V, id);
    }
    for (uint64_t v = g + (uint64_t)ng * step; v < p.nvec; v += T, id++) {
        sb_vec r;
        r.v = sb_ld16<false>(vp + v);
        R x[V];
SB_UNROLL
        for (int j = 0; j < V; j++) x[j] = sb_lane<R>(r, j);
        sb_chunk_w<Tr, V>(a, x, V, id);
    }
    const uint64_t tail0 = p.head + p.nvec * V;
    if (g < p.numel - tail0) {   /* last: ids rise with positions */
        R x[1] = { SB_LD(e + tail0 + g) };
        sb_chunk_w<Tr, 1>(a, x, 1, id);
    }
}

/* ---- positions: the marked chunk read again ------------------------------ */
/* Where chunk id of thread g lies (inverting sb_thread_f/_w's numbering;
 * groups: how many groups the thread read, from its sb_cold). Contiguous: n
 * vectors of V elements T vectors apart from vector v0, or (one) the single
 * element at position pos0. Strided: up to SB_SCHUNK elements of plan index
 * pos0 + r*T, those below numel. */
typedef struct { uint64_t v0, pos0; int n, one; } sb_where;

template <int U, int V>
SB_HD sb_where sb_chunk_where(const sb_plan &p, uint64_t g, uint64_t T, uint32_t id, uint32_t groups) {
    sb_where w = { 0, 0, 0, 0 };
    if (p.strided) {
        w.pos0 = g + (uint64_t)id * SB_SCHUNK * T; w.n = SB_SCHUNK; w.one = 1;
    } else if (id == 0) {           /* the head element */
        w.pos0 = g; w.n = w.one = 1;
    } else if (id <= groups) {      /* a group */
        w.v0 = g + (uint64_t)(id - 1) * U * T; w.n = U;
    } else {                        /* a single vector, or the tail element */
        w.v0 = g + ((uint64_t)groups * U + (id - 1 - groups)) * T; w.n = 1;
        if (w.v0 >= p.nvec) { w.pos0 = p.head + p.nvec * V + g; w.one = 1; }
    }
    return w;
}

enum { SB_FIND_MIN, SB_FIND_MAX, SB_FIND_BAD };
template <class Tr> struct sb_hit_f {   /* float path: the value as float */
    typedef float M;
    static SB_HD bool hit(typename Tr::raw r, int what, float v) {
        float x = Tr::conv(r);
        return what == SB_FIND_BAD ? !(fabsf(x) <= FLT_MAX) : x == v;
    }
};
template <class Tr> struct sb_hit_w {   /* wide path: the value as M */
    typedef typename Tr::M M;
    static SB_HD bool hit(typename Tr::raw r, int what, M v) {
        M x = Tr::val(r);
        return what == SB_FIND_BAD ? !(fabs((double)x) <= DBL_MAX) : x == v;
    }
};
/* The position of the first element of chunk id that is the min (max) value
 * v, or the first NaN/Inf (what); SB_NONE when id is SB_NONE32. Contiguous:
 * the group's loads are all issued before any compare (one memory round
 * trip); strided: element by element (that path is paced by its index
 * arithmetic anyway). */
template <class Tr, class H, int U, int V>
SB_HD uint64_t sb_find(const sb_plan &p, uint64_t g, uint64_t T, uint32_t id, uint32_t groups, int what,
                       typename H::M v) {
    typedef typename Tr::raw R;
    if (id == SB_NONE32) return SB_NONE;
    const R *e = (const R *)p.base;
    const sb_where w = sb_chunk_where<U, V>(p, g, T, id, groups);
    if (w.one) {
        for (int r = 0; r < w.n; r++) {
            uint64_t pos = w.pos0 + (uint64_t)r * T;
            if (pos < p.numel && H::hit(SB_LD(e + (p.strided ? sb_offset(p, pos) : pos)), what, v)) return pos;
        }
        return SB_NONE;   /* not reached: the chunk holds what marked it */
    }
    const uint4 *vp = (const uint4 *)(e + p.head);
    sb_vec x[U];
SB_UNROLL
    for (int k = 0; k < U; k++)
        if (k < w.n) x[k].v = SB_LD(vp + w.v0 + (uint64_t)k * T);
    int first = -1;   /* unrolled, so x stays in registers */
SB_UNROLL
    for (int k = U - 1; k >= 0; k--)
SB_UNROLL
        for (int j = V - 1; j >= 0; j--)
            if (k < w.n && H::hit(sb_lane<R>(x[k], j), what, v)) first = k * V + j;
    if (first < 0) return SB_NONE;
    return p.head + (w.v0 + (uint64_t)(first / V) * T) * V + (uint64_t)(first % V);
}

/* The three positions of thread g; one copy of the search code (the loop is
 * not unrolled). find_mn / find_mx false: that one stays SB_NONE. */
template <class Tr, class H, int U, int V, class A>
SB_HD void sb_find_all(const sb_plan &p, uint64_t g, uint64_t T, const A &a, bool find_mn, bool find_mx,
                       uint64_t &mn_at, uint64_t &mx_at, uint64_t &bad_at) {
    mn_at = mx_at = bad_at = SB_NONE;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
    for (int what = SB_FIND_MIN; what <= SB_FIND_BAD; what++) {
        uint32_t id = what == SB_FIND_MIN ? (find_mn ? a.c->mn_id : SB_NONE32)
                    : what == SB_FIND_MAX ? (find_mx ? a.c->mx_id : SB_NONE32) : a.c->bad_id;
        if (id == SB_NONE32) continue;
        uint64_t at = sb_find<Tr, H, U, V>(p, g, T, id, a.c->groups, what, what == SB_FIND_MAX ? a.mx : a.mn);
        if (what == SB_FIND_MIN) mn_at = at;
        else if (what == SB_FIND_MAX) mx_at = at;
        else bad_at = at;
    }
}

/* ---- partials ---------------------------------------------------------- */
SB_HD void sb_partial_empty(sb_partial &p) {
    p.nan = p.pinf = p.ninf = p.zero = p.sub = p.fin = 0;
    p.mean = p.m2 = 0.0;
    p.mn = INFINITY; p.mx = -INFINITY;
    p.mn_at = p.mx_at = p.bad_at = SB_NONE;
}

SB_HD void sb_partial_from(sb_partial &p, uint32_t nan, uint32_t pinf, uint32_t ninf,
                           uint32_t zero, uint32_t sub, uint32_t fin,
                           double K, double S1, double S2, double mn, double mx,
                           uint64_t mn_at, uint64_t mx_at, uint64_t bad_at) {
    p.nan = nan; p.pinf = pinf; p.ninf = ninf; p.zero = zero; p.sub = sub; p.fin = fin;
    p.mn_at = fin ? mn_at : SB_NONE; p.mx_at = fin ? mx_at : SB_NONE; p.bad_at = bad_at;
    if (fin) {
        double n = (double)fin, m2 = S2 - S1 * S1 / n;
        p.mean = K + S1 / n;
        p.m2 = m2 > 0.0 ? m2 : 0.0;
        p.mn = mn; p.mx = mx;
    } else {
        p.mean = p.m2 = 0.0;
        p.mn = INFINITY; p.mx = -INFINITY;
    }
}

/* Thread g's partial. find_mn / find_mx: read the min's (max's) chunk again
 * for its position; a thread that cannot hold the tensor's first min (its
 * min is above its warp's) passes false and leaves it SB_NONE. */
template <class Tr>
SB_HD void sb_partial_of(sb_partial &p, const sb_accf &a, const sb_plan &pl, uint64_t g, uint64_t T,
                         bool find_mn, bool find_mx) {
    typedef sb_shape_f<Tr> S;
    uint64_t mn_at, mx_at, bad_at;
    sb_find_all<Tr, sb_hit_f<Tr>, S::U, S::V>(pl, g, T, a, find_mn, find_mx, mn_at, mx_at, bad_at);
    sb_partial_from(p, a.c->nan, a.c->pinf, a.c->ninf, a.zero, a.sub, a.fin, a.K, a.S1, a.S2, a.mn, a.mx,
                    mn_at, mx_at, bad_at);
}
template <class Tr>
SB_HD void sb_partial_of(sb_partial &p, const sb_accw<typename Tr::M> &a, const sb_plan &pl, uint64_t g,
                         uint64_t T, bool find_mn, bool find_mx) {
    typedef sb_shape_w<Tr> S;
    uint64_t mn_at, mx_at, bad_at;
    sb_find_all<Tr, sb_hit_w<Tr>, S::U, S::V>(pl, g, T, a, find_mn, find_mx, mn_at, mx_at, bad_at);
    sb_partial_from(p, a.c->nan, a.c->pinf, a.c->ninf, a.zero, a.sub, a.fin, a.K, a.S1, a.S2,
                    (double)a.mn, (double)a.mx, mn_at, mx_at, bad_at);
}

/* Which threads of a warp (lanes) read their min's / max's chunk again:
 * those with finite values whose min (max) equals the warp's (wmn, wmx),
 * the only ones that can hold the tensor's first. */
template <class A, class M>
SB_HD bool sb_wants_mn(const A &a, M wmn) { return a.fin && a.mn == wmn; }
template <class A, class M>
SB_HD bool sb_wants_mx(const A &a, M wmx) { return a.fin && a.mx == wmx; }

/* Chan et al.: merge (n, mean, M2) of two disjoint sets. a += b. Equal
 * minima (maxima) keep the lower position: the first in the plan's order. */
SB_HD void sb_merge(sb_partial &a, const sb_partial &b) {
    a.nan += b.nan; a.pinf += b.pinf; a.ninf += b.ninf; a.zero += b.zero; a.sub += b.sub;
    a.bad_at = b.bad_at < a.bad_at ? b.bad_at : a.bad_at;
    if (b.fin) {
        if (a.fin == 0) {
            a.mean = b.mean; a.m2 = b.m2;
        } else {
            double na = (double)a.fin, nb = (double)b.fin, n = na + nb;
            double delta = b.mean - a.mean;
            a.mean += delta * (nb / n);
            a.m2 += b.m2 + delta * delta * (na * (nb / n));
        }
        a.fin += b.fin;
        if (b.mn < a.mn || (b.mn == a.mn && b.mn_at < a.mn_at)) { a.mn = b.mn; a.mn_at = b.mn_at; }
        if (b.mx > a.mx || (b.mx == a.mx && b.mx_at < a.mx_at)) { a.mx = b.mx; a.mx_at = b.mx_at; }
    }
}

#endif
