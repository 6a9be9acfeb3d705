/* stats_sim.cu — runs the CUDA statistics kernel's per-thread code
 * (core/runner/cuda/stats_body.cuh) and its planning (stats.cu) on the CPU,
 * for every thread of a simulated grid, so the indexing, chunking,
 * classification and merge logic can be checked on a machine with no GPU.
 * What it cannot check: the warp shuffles, the block reduction and the CUDA
 * calls (the GPU test does). Built and driven by check_stats_sim.py.
 *
 * usage: stats_sim DTYPE STORAGE_FILE STORAGE_OFFSET_ELEMS MAX_BLOCKS NDIM SIZES... STRIDES...
 * (MAX_BLOCKS 0: the grid the H200 would get for this dtype)
 * prints: numel finite nan posinf neginf zeros subnormal min max mean std min_at max_at nonfinite_at
 * exit 0, or 1 with a message on stderr.
 *
 * Built with -DSTATS_SIM_LIB -shared instead, it is a stand-in for
 * libaotidbg_cudastats.so that takes HOST pointers and runs the simulated grid:
 * test_cuda_stats.py --device cpu uses it to dry-run the GPU test's own logic. */
#define aotidbg_cuda_stats aotidbg_cuda_stats_real
#define aotidbg_cuda_stats_error aotidbg_cuda_stats_error_real
#include "../../core/runner/cuda/stats.cu"
#undef aotidbg_cuda_stats
#undef aotidbg_cuda_stats_error
#include <stdlib.h>

#define H200_SMS 132

/* One block: its threads run one warp (32 threads) at a time, so that the
 * kernel's warp filter (only lanes holding their warp's min or max read
 * their chunk again: sb_wants_mn/_mx) is simulated as well. */
template <class A, class Init, class Run, class Part>
static void sim_block(int b, int threads, sb_partial &tot, Init init, Run run, Part part) {
    sb_partial bp;
    sb_partial_empty(bp);
    for (int w0 = 0; w0 < threads; w0 += 32) {
        A a[32];
        sb_cold cold[32];
        int n = threads - w0 < 32 ? threads - w0 : 32;
        for (int l = 0; l < n; l++) {
            init(a[l], &cold[l]);
            run(a[l], (uint64_t)b * threads + w0 + l);
        }
        auto wmn = a[0].mn, wmx = a[0].mx;
        for (int l = 1; l < n; l++) {
            wmn = a[l].mn < wmn ? a[l].mn : wmn;
            wmx = a[l].mx > wmx ? a[l].mx : wmx;
        }
        for (int l = 0; l < n; l++) {
            sb_partial q;
            part(q, a[l], (uint64_t)b * threads + w0 + l, sb_wants_mn(a[l], wmn), sb_wants_mx(a[l], wmx));
            sb_merge(bp, q);
        }
    }
    sb_merge(tot, bp);
}
template <class Tr, class C> static void sim_f(const sb_plan &p, int blocks, sb_partial &tot) {
    uint64_t T = (uint64_t)blocks * C::threads;
    for (int b = 0; b < blocks; b++)
        sim_block<sb_accf>(b, C::threads, tot, [](sb_accf &a, sb_cold *c) { sb_accf_init(a, c); },
                           [&](sb_accf &a, uint64_t g) { sb_thread_f<Tr, C>(p, g, T, a); },
                           [&](sb_partial &q, const sb_accf &a, uint64_t g, bool fmn, bool fmx) {
                               sb_partial_of<Tr>(q, a, p, g, T, fmn, fmx);
                           });
}
template <class Tr, class C> static void sim_w(const sb_plan &p, int blocks, sb_partial &tot) {
    typedef sb_accw<typename Tr::M> A;
    uint64_t T = (uint64_t)blocks * C::threads;
    for (int b = 0; b < blocks; b++)
        sim_block<A>(b, C::threads, tot, [](A &a, sb_cold *c) { sb_accw_init(a, c); },
                     [&](A &a, uint64_t g) { sb_thread_w<Tr>(p, g, T, a); },
                     [&](sb_partial &q, const A &a, uint64_t g, bool fmn, bool fmx) {
                         sb_partial_of<Tr>(q, a, p, g, T, fmn, fmx);
                     });
}

typedef void (*sim_fn)(const sb_plan &, int, sb_partial &);
/* In k_dtypes' order, with the same configurations. */
static const struct { const char *name; sim_fn fn; } k_sims[] = {
    {"float32", sim_f<tf_f32, cfg4>}, {"float16", sim_f<tf_f16, cfg2>}, {"bfloat16", sim_f<tf_bf16, cfg2>},
    {"float64", sim_w<tw_f64, cfgw>}, {"float8_e4m3fn", sim_f<tf_e4m3, cfg1>}, {"float8_e5m2", sim_f<tf_e5m2, cfg1>},
    {"int64", sim_w<tw_i64, cfgw>}, {"int32", sim_w<tw_i32, cfgw>}, {"int16", sim_f<tf_i16, cfg2>},
    {"int8", sim_f<tf_i8, cfg1>}, {"uint8", sim_f<tf_u8, cfg1>}, {"bool", sim_f<tf_bool, cfg1>},
    {"uint16", sim_f<tf_u16, cfg2>}, {"uint32", sim_w<tw_u32, cfgw>}, {"uint64", sim_w<tw_u64, cfgw>},
};

static sim_fn sim_for(const char *dtype, const dtype_entry **dt) {
    for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (!strcmp(k_dtypes[i].name, dtype) && !strcmp(k_sims[i].name, dtype)) { *dt = &k_dtypes[i]; return k_sims[i].fn; }
    return NULL;
}

#ifdef STATS_SIM_LIB
extern "C" const char *aotidbg_cuda_stats_error(void) { return g_err; }
extern "C" int aotidbg_cuda_stats(const void *ptr, const char *dtype, int ndim, const int64_t *sizes,
                                  const int64_t *strides, void *stream, tensor_stats *out) {
    g_err[0] = 0;
    if (!dtype || !out) return fail("dtype and out are required");
    const dtype_entry *dt = NULL;
    sim_fn fn = sim_for(dtype, &dt);
    if (!fn) return fail("dtype '%.64s' is not supported by the CUDA statistics kernel", dtype);
    sb_plan plan;
    uint64_t numel = 0;
    if (plan_make(ptr, dt->size, ndim, sizes, strides, &plan, &numel)) return -1;
    if (numel == 0) { fill_empty(out, 0); return 0; }
    if (!ptr) return fail("data pointer is NULL for %llu elements", (unsigned long long)numel);
    sb_partial tot;
    sb_partial_empty(tot);
    fn(plan, grid_blocks(plan, numel, dt->threads, H200_SMS * dt->bps), tot);
    return fill_result(tot, numel, plan, ndim, sizes, strides, out);
}
#else
int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: stats_sim DTYPE FILE OFFSET MAX_BLOCKS NDIM SIZES... STRIDES...\n"); return 1; }
    const char *dtype = argv[1];
    long long off = atoll(argv[3]);
    int max_blocks = atoi(argv[4]), ndim = atoi(argv[5]);
    if (ndim < 0 || ndim > 16 || argc != 6 + 2 * ndim || max_blocks < 0) { fprintf(stderr, "bad arguments\n"); return 1; }
    int64_t sizes[16], strides[16];
    for (int d = 0; d < ndim; d++) { sizes[d] = atoll(argv[6 + d]); strides[d] = atoll(argv[6 + ndim + d]); }
    const dtype_entry *dt = NULL;
    sim_fn fn = sim_for(dtype, &dt);
    if (!fn) { fprintf(stderr, "unknown dtype %s\n", dtype); return 1; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* 64-byte aligned like a CUDA allocation, so storage offsets give the same misalignment */
    unsigned char *buf = (unsigned char *)aligned_alloc(64, ((size_t)n + 64) / 64 * 64);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "read failed\n"); return 1; }
    fclose(f);
    sb_plan plan;
    uint64_t numel = 0;
    tensor_stats out;
    if (plan_make(buf + off * dt->size, dt->size, ndim, sizes, strides, &plan, &numel)) {
        fprintf(stderr, "plan: %s\n", g_err); return 1;
    }
    if (numel == 0) {
        fill_empty(&out, 0);
    } else {
        /* MAX_BLOCKS 0: the H200's grid for this dtype */
        int blocks = grid_blocks(plan, numel, dt->threads, max_blocks ? max_blocks : H200_SMS * dt->bps);
        sb_partial tot;
        sb_partial_empty(tot);
        fn(plan, blocks, tot);
        if (fill_result(tot, numel, plan, ndim, sizes, strides, &out)) { fprintf(stderr, "%s\n", g_err); return 1; }
        fprintf(stderr, "plan: %s nd=%d head=%llu nvec=%llu blocks=%d\n", plan.strided ? "strided" : "dense",
                plan.nd, (unsigned long long)plan.head, (unsigned long long)plan.nvec, blocks);
    }
    printf("%llu %llu %llu %llu %llu %llu %llu %.17g %.17g %.17g %.17g %lld %lld %lld\n",
           (unsigned long long)out.numel, (unsigned long long)out.finite, (unsigned long long)out.nan,
           (unsigned long long)out.posinf, (unsigned long long)out.neginf, (unsigned long long)out.zeros,
           (unsigned long long)out.subnormal, out.min, out.max, out.mean, out.std, (long long)out.at.min,
           (long long)out.at.max, (long long)out.at.nonfinite);
    free(buf);
    return 0;
}
#endif
