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
 * Positions: each thread also keeps which of its elements (the ordinal in
 * the order it reads them: 32 bits, three registers) holds its first
 * minimum, maximum and NaN/Inf; its partial turns them into positions in the
 * plan's order (the element offset on the contiguous path, the index over
 * the plan's dims on the strided one; both rise with memory order) by
 * replaying its access pattern (sb_pos_of_ordinal). A thread reads its
 * elements in rising position order (the odd tail comes last), so a strict
 * "<" keeps the first; merges break ties by the lower position. The fast
 * path pays one compare per chunk: the element is searched for only when the
 * chunk beats the running min or max (rare, but every chunk for data that
 * keeps falling). The host maps a position back to the tensor's multi-index
 * (stats.cu). */
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
/* Float path: raw storage type, conversion to float (exact), smallest normal. */
#define SB_FTRAIT(NAME, RAW, CONV, TINY)                                   \
    struct NAME { typedef RAW raw;                                         \
        static SB_HD float conv(RAW r) { return CONV; }                    \
        static SB_HD float tiny() { return TINY; } };
SB_FTRAIT(tf_f32, uint32_t, sb_f32(r), 0x1p-126f)
SB_FTRAIT(tf_bf16, uint16_t, sb_f32((uint32_t)r << 16), 0x1p-126f)
SB_FTRAIT(tf_f16, uint16_t, sb_half(r), 0x1p-14f)
SB_FTRAIT(tf_e4m3, uint8_t, sb_e4m3(r), 0x1p-6f)
SB_FTRAIT(tf_e5m2, uint8_t, sb_half((uint32_t)r << 8), 0x1p-14f)
/* Small integers are exact in float; tiny 1 means "never subnormal". */
SB_FTRAIT(tf_i8, uint8_t, (float)(int8_t)r, 1.0f)
SB_FTRAIT(tf_u8, uint8_t, (float)r, 1.0f)
SB_FTRAIT(tf_bool, uint8_t, r ? 1.0f : 0.0f, 1.0f)
SB_FTRAIT(tf_i16, uint16_t, (float)(int16_t)r, 1.0f)
SB_FTRAIT(tf_u16, uint16_t, (float)r, 1.0f)

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
/* Counts are 32-bit per thread: the host caps elements per thread below 2^32. */
typedef struct {
    uint32_t nan, pinf, ninf, zero, sub, fin;
    float mn, mx;
    double K, S1, S2;
    uint32_t mn_at, mx_at, bad_at;   /* ordinals; SB_NONE32 */
} sb_accf;

template <class M> struct sb_accw {
    uint32_t nan, pinf, ninf, zero, sub, fin;
    M mn, mx;
    double K, S1, S2;
    uint32_t mn_at, mx_at, bad_at;
};

/* Elements the thread has read so far: the ordinal of the next one. */
template <class A> SB_HD uint32_t sb_seen(const A &a) { return a.fin + a.nan + a.pinf + a.ninf; }

SB_HD void sb_accf_init(sb_accf &a) {
    a.nan = a.pinf = a.ninf = a.zero = a.sub = a.fin = 0;
    a.mn = INFINITY; a.mx = -INFINITY;
    a.K = a.S1 = a.S2 = 0.0;
    a.mn_at = a.mx_at = a.bad_at = SB_NONE32;
}
template <class M> SB_HD M sb_lowest();
template <> SB_HD double sb_lowest<double>() { return -INFINITY; }
template <> SB_HD long long sb_lowest<long long>() { return (long long)(~0ULL >> 1) * -1 - 1; }
template <> SB_HD unsigned long long sb_lowest<unsigned long long>() { return 0ULL; }
template <class M> SB_HD M sb_highest();
template <> SB_HD double sb_highest<double>() { return INFINITY; }
template <> SB_HD long long sb_highest<long long>() { return (long long)(~0ULL >> 1); }
template <> SB_HD unsigned long long sb_highest<unsigned long long>() { return ~0ULL; }

template <class M> SB_HD void sb_accw_init(sb_accw<M> &a) {
    a.nan = a.pinf = a.ninf = a.zero = a.sub = a.fin = 0;
    a.mn = sb_highest<M>(); a.mx = sb_lowest<M>();
    a.K = a.S1 = a.S2 = 0.0;
    a.mn_at = a.mx_at = a.bad_at = SB_NONE32;
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

/* The first j with x[j] == v (v is one of them). */
template <int N>
SB_HD uint32_t sb_first_eq(const float (&x)[N], float v) {
    uint32_t f = N - 1;
SB_UNROLL
    for (int j = N - 1; j >= 0; j--)
        if (x[j] == v) f = j;
    return f;
}

/* The common case: every value finite and no float overflow. Returns false,
 * leaving a untouched, when that does not hold: NaN or Inf anywhere, or an
 * overflow, leaves s1, e1 or s2 non-finite. Six adds per element for the
 * compensated sum, one FMA for s2, two min/max, two compares and counts. */
template <int N>
SB_HD bool sb_chunk_fast(sb_accf &a, const float (&x)[N], float tiny) {
    float c = x[0], s1 = 0.0f, e1 = 0.0f, s2 = 0.0f, mn = a.mn, mx = a.mx;
    uint32_t nzero = 0, nsmall = 0;
SB_UNROLL
    for (int j = 0; j < N; j++) {
        float d = x[j] - c;
        sb_twosum(s1, e1, x[j]);
        s2 = fmaf(d, d, s2);
        mn = fminf(mn, x[j]);
        mx = fmaxf(mx, x[j]);
        nzero += (x[j] == 0.0f);
        nsmall += (fabsf(x[j]) < tiny);
    }
    if (!(s2 + fabsf(s1) + fabsf(e1) <= FLT_MAX)) return false;
    if (mn < a.mn) a.mn_at = sb_seen(a) + sb_first_eq<N>(x, mn);
    if (mx > a.mx) a.mx_at = sb_seen(a) + sb_first_eq<N>(x, mx);
    a.mn = mn; a.mx = mx;
    a.zero += nzero;
    a.sub += nsmall - nzero;
    sb_add_sums(a, N, c, s1, e1, s2);
    return true;
}

/* Any chunk: classifies every value, sums the finite ones. */
template <int N, bool FULL>
SB_HD void sb_chunk_any(sb_accf &a, const float (&x)[N], int n, float tiny) {
    float c = 0.0f, s1 = 0.0f, e1 = 0.0f, s2 = 0.0f, mn = a.mn, mx = a.mx;
    uint32_t m = 0, o0 = sb_seen(a);
    int mnj = -1, mxj = -1, badj = -1;
SB_UNROLL
    for (int j = N - 1; j >= 0; j--)
        if ((FULL || j < n) && fabsf(x[j]) <= FLT_MAX) c = x[j];
SB_UNROLL
    for (int j = 0; j < N; j++) {
        if (FULL || j < n) {
            float v = x[j], av = fabsf(v);
            bool fin = av <= FLT_MAX, inf = av == INFINITY;
            a.nan += (v != v);
            a.pinf += inf && v > 0.0f;
            a.ninf += inf && v < 0.0f;
            a.zero += (v == 0.0f);
            a.sub += (av < tiny) && v != 0.0f;
            if (fin) {
                float d = v - c;
                sb_twosum(s1, e1, v);
                s2 = fmaf(d, d, s2);
                if (v < mn) { mn = v; mnj = j; }
                if (v > mx) { mx = v; mxj = j; }
                m++;
            } else if (badj < 0) {
                badj = j;
            }
        }
    }
    if (mnj >= 0) a.mn_at = o0 + mnj;
    if (mxj >= 0) a.mx_at = o0 + mxj;
    if (badj >= 0 && a.bad_at == SB_NONE32) a.bad_at = o0 + badj;
    a.mn = mn; a.mx = mx;
    sb_chunk_commit<N, FULL>(a, x, n, m, c, s1, e1, s2);
}

/* Add up to N float values x[0..n) (n == N when FULL) as one chunk. */
template <int N, bool FULL>
SB_HD void sb_chunk(sb_accf &a, const float (&x)[N], int n, float tiny) {
    if (FULL) {
        /* x*0 is 0 for finite x and NaN for NaN/Inf: one FMA per element
         * picks the path before any sum is spent. */
        float probe = 0.0f;
SB_UNROLL
        for (int j = 0; j < N; j++) probe = fmaf(x[j], 0.0f, probe);
        if (probe == 0.0f && sb_chunk_fast<N>(a, x, tiny)) return;
    }
    sb_chunk_any<N, FULL>(a, x, n, tiny);
}

template <class Tr>
SB_HD void sb_elem_w(sb_accw<typename Tr::M> &a, typename Tr::raw r) {
    typedef typename Tr::M M;
    M v = Tr::val(r);
    double x = (double)v;
    if (Tr::is_float) {
        double ax = fabs(x);
        if (!(ax <= DBL_MAX)) {
            a.nan += (x != x);
            a.pinf += (ax == INFINITY) && x > 0.0;
            a.ninf += (ax == INFINITY) && x < 0.0;
            a.bad_at = a.bad_at == SB_NONE32 ? sb_seen(a) - 1 : a.bad_at;   /* counted above */
            return;
        }
        a.sub += (ax < DBL_MIN) && x != 0.0;
    }
    a.zero += (v == (M)0);
    /* the first finite element sets both (a min equal to the type's highest) */
    if (v < a.mn || a.fin == 0) { a.mn = v; a.mn_at = sb_seen(a); }
    if (v > a.mx || a.fin == 0) { a.mx = v; a.mx_at = sb_seen(a); }
    if (a.fin == 0) a.K = x;
    double d = x - a.K;
    a.S1 += d;
    a.S2 = fma(d, d, a.S2);
    a.fin++;
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

/* U vectors of one group: thread g's v, v+T, ..., v+(U-1)T. */
template <int U, bool HINT>
SB_HD void sb_load_group(sb_vec (&r)[U], const uint4 *vp, uint64_t v, uint64_t T) {
SB_UNROLL
    for (int k = 0; k < U; k++) r[k].v = sb_ld16<HINT>(vp + v + (uint64_t)k * T);
}
/* A group's U*V elements as one chunk. The fast path runs first, with no
 * probe: the rare group it refuses is loaded again (from cache) rather than
 * kept in registers across it. */
template <class Tr, int U, int V>
SB_HD void sb_sum_group(sb_accf &a, const sb_vec (&r)[U], float tiny,
                        const uint4 *vp, uint64_t v, uint64_t T) {
    typedef typename Tr::raw R;
    float x[U * V];
SB_UNROLL
    for (int k = 0; k < U; k++)
SB_UNROLL
        for (int j = 0; j < V; j++) x[k * V + j] = Tr::conv(sb_lane<R>(r[k], j));
    if (sb_chunk_fast<U * V>(a, x, tiny)) return;
    sb_vec q[U];
SB_UNROLL
    for (int k = 0; k < U; k++) q[k].v = sb_ld16_again(vp + v + (uint64_t)k * T);
    float y[U * V];
SB_UNROLL
    for (int k = 0; k < U; k++)
SB_UNROLL
        for (int j = 0; j < V; j++) y[k * V + j] = Tr::conv(sb_lane<R>(q[k], j));
    sb_chunk_any<U * V, true>(a, y, U * V, tiny);
}

template <class Tr, class C>
SB_HD void sb_thread_f(const sb_plan &p, uint64_t g, uint64_t T, sb_accf &a) {
    typedef typename Tr::raw R;
    const R *e = (const R *)p.base;
    const float tiny = Tr::tiny();
    if (p.strided) {
        for (uint64_t i = g; i < p.numel; i += T * SB_SCHUNK) {
            float x[SB_SCHUNK];
            int n = 0;
SB_UNROLL
            for (int k = 0; k < SB_SCHUNK; k++) {
                uint64_t li = i + (uint64_t)k * T;
                x[k] = 0.0f;
                if (li < p.numel) { x[k] = Tr::conv(SB_LD(e + sb_offset(p, li))); n++; }
            }
            sb_chunk<SB_SCHUNK, false>(a, x, n, tiny);
        }
        return;
    }
    enum { V = sb_shape_f<Tr>::V, U = sb_shape_f<Tr>::U };
    uint64_t tail0 = p.head + p.nvec * V;
    if (g < p.head) {
        float x[1] = { Tr::conv(SB_LD(e + g)) };
        sb_chunk<1, true>(a, x, 1, tiny);
    }
    const uint4 *vp = (const uint4 *)(e + p.head);
    uint64_t v = g;
    const uint64_t step = (uint64_t)U * T, last = (uint64_t)(U - 1) * T;
    if (C::pf && v + last < p.nvec) {
        /* Two buffers in turn: the loads of the next group are in flight
         * while this one is summed (no register copies between iterations). */
        sb_vec ra[U], rb[U];
        sb_load_group<U, C::hint>(ra, vp, v, T);
        for (;;) {
            bool more = v + step + last < p.nvec;
            if (more) sb_load_group<U, C::hint>(rb, vp, v + step, T);
            sb_sum_group<Tr, U, V>(a, ra, tiny, vp, v, T);
            v += step;
            if (!more) break;
            more = v + step + last < p.nvec;
            if (more) sb_load_group<U, C::hint>(ra, vp, v + step, T);
            sb_sum_group<Tr, U, V>(a, rb, tiny, vp, v, T);
            v += step;
            if (!more) break;
        }
    }
    for (; v + last < p.nvec; v += step) {   /* without PF: every group */
        sb_vec r[U];
        sb_load_group<U, C::hint>(r, vp, v, T);
        sb_sum_group<Tr, U, V>(a, r, tiny, vp, v, T);
    }
    for (; v < p.nvec; v += T) {
        sb_vec r;
        r.v = sb_ld16<C::hint>(vp + v);
        float x[V];
SB_UNROLL
        for (int j = 0; j < V; j++) x[j] = Tr::conv(sb_lane<R>(r, j));
        sb_chunk<V, true>(a, x, V, tiny);
    }
    if (g < p.numel - tail0) {   /* last: positions rise through the thread */
        float x[1] = { Tr::conv(SB_LD(e + tail0 + g)) };
        sb_chunk<1, true>(a, x, 1, tiny);
    }
}

template <class Tr>
SB_HD void sb_thread_w(const sb_plan &p, uint64_t g, uint64_t T, sb_accw<typename Tr::M> &a) {
    typedef typename Tr::raw R;
    const R *e = (const R *)p.base;
    if (p.strided) {
        for (uint64_t i = g; i < p.numel; i += T * SB_SCHUNK) {
            R x[SB_SCHUNK];
SB_UNROLL
            for (int k = 0; k < SB_SCHUNK; k++) {
                uint64_t li = i + (uint64_t)k * T;
                x[k] = 0;
                if (li < p.numel) x[k] = SB_LD(e + sb_offset(p, li));
            }
SB_UNROLL
            for (int k = 0; k < SB_SCHUNK; k++)
                if (i + (uint64_t)k * T < p.numel) sb_elem_w<Tr>(a, x[k]);
        }
        return;
    }
    enum { V = sb_shape_w<Tr>::V, U = sb_shape_w<Tr>::U };
    uint64_t tail0 = p.head + p.nvec * V;
    if (g < p.head) sb_elem_w<Tr>(a, SB_LD(e + g));
    const uint4 *vp = (const uint4 *)(e + p.head);
    uint64_t v = g;
    for (; v + (uint64_t)(U - 1) * T < p.nvec; v += (uint64_t)U * T) {
        sb_vec r[U];
SB_UNROLL
        for (int k = 0; k < U; k++) r[k].v = sb_ld16<false>(vp + v + (uint64_t)k * T);
SB_UNROLL
        for (int k = 0; k < U; k++)
SB_UNROLL
            for (int j = 0; j < V; j++) sb_elem_w<Tr>(a, sb_lane<R>(r[k], j));
    }
    for (; v < p.nvec; v += T) {
        sb_vec r;
        r.v = sb_ld16<false>(vp + v);
SB_UNROLL
        for (int j = 0; j < V; j++) sb_elem_w<Tr>(a, sb_lane<R>(r, j));
    }
    if (g < p.numel - tail0) sb_elem_w<Tr>(a, SB_LD(e + tail0 + g));   /* last: rising positions */
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
/* The plan position of thread g's o-th element, replaying how sb_thread_f
 * (U vectors of V a group) and sb_thread_w read: the head element, the
 * groups, the single vectors, the tail element; strided, every T-th index. */
template <int U, int V>
SB_HD uint64_t sb_pos_of_ordinal(const sb_plan &p, uint64_t g, uint64_t T, uint32_t ord) {
    if (ord == SB_NONE32) return SB_NONE;
    uint64_t o = ord;
    if (p.strided) return g + o * T;
    if (g < p.head) {
        if (o == 0) return g;
        o--;
    }
    const uint64_t step = (uint64_t)U * T, last = (uint64_t)(U - 1) * T;
    const uint64_t ng = g + last < p.nvec ? (p.nvec - 1 - g - last) / step + 1 : 0;
    if (o < ng * U * V) {
        uint64_t i = o / (U * V), r = o % (U * V);
        return p.head + (g + i * step + (r / V) * T) * V + r % V;
    }
    o -= ng * U * V;
    const uint64_t v0 = g + ng * step, ns = v0 < p.nvec ? (p.nvec - 1 - v0) / T + 1 : 0;
    if (o < ns * V) return p.head + (v0 + (o / V) * T) * V + o % V;
    return p.head + p.nvec * V + g;
}
template <class Tr>
SB_HD void sb_partial_of(sb_partial &p, const sb_accf &a, const sb_plan &pl, uint64_t g, uint64_t T) {
    typedef sb_shape_f<Tr> S;
    sb_partial_from(p, a.nan, a.pinf, a.ninf, a.zero, a.sub, a.fin, a.K, a.S1, a.S2, a.mn, a.mx,
                    sb_pos_of_ordinal<S::U, S::V>(pl, g, T, a.mn_at), sb_pos_of_ordinal<S::U, S::V>(pl, g, T, a.mx_at),
                    sb_pos_of_ordinal<S::U, S::V>(pl, g, T, a.bad_at));
}
template <class Tr>
SB_HD void sb_partial_of(sb_partial &p, const sb_accw<typename Tr::M> &a, const sb_plan &pl, uint64_t g,
                         uint64_t T) {
    typedef sb_shape_w<Tr> S;
    sb_partial_from(p, a.nan, a.pinf, a.ninf, a.zero, a.sub, a.fin, a.K, a.S1, a.S2,
                    (double)a.mn, (double)a.mx, sb_pos_of_ordinal<S::U, S::V>(pl, g, T, a.mn_at),
                    sb_pos_of_ordinal<S::U, S::V>(pl, g, T, a.mx_at), sb_pos_of_ordinal<S::U, S::V>(pl, g, T, a.bad_at));
}

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
