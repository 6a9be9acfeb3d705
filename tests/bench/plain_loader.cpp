// plain_loader.cpp — the baseline of the load benchmarks (tests/bench/bench_load.sh,
// tests/gpu/run_load_gpu.sh): what a user's own C++ program does with a package.
// torch::inductor::AOTIModelPackageLoader (which extracts the package, loads the
// .so and its weights), then one run, then exit.
//
//   plain_loader [--profile PREFIX [--iters N]] PKG.pt2 INPUT...
//        INPUT is DTYPE:SHAPE:FILL, e.g. int64:1x16:arange
//        (DTYPE float32|bfloat16|float16|int64; FILL arange|randn|zeros)
//
// Prints "load_s run_s" and the first output's sum on stdout; exit 0, or 1 with the error.
// --profile: the first run and N more (default 5) each under libtorch's kineto profiler (CPU
// and, with a CUDA libtorch, CUDA activities: CUPTI's kernel times, what torch.profiler
// records), saved as chrome traces PREFIX.0.json (the first, cold run: its load/run times
// include the profiler's) to PREFIX.N.json; kernels are the events of cat "kernel"
// (tests/gpu/check_device_us.py reads them). In C++ because torch 2.11's Python
// aoti_load_package segfaults on CUDA packages on the H200 image. Prints "profiled N PREFIX".
// The package's device (CUDA or CPU) comes from its metadata, as torch's loader reads it.
//
// The benchmark packages carry the intermediate-value printer (what aotidbg steps on).
// libtorch's own aoti_torch_save_tensor_handle would pickle every tensor of every kernel
// to ./tmp/aoti_torch/; this program defines the hook as a no-op (exported: link with
// -rdynamic) so the baseline is the plain load and run, not that file dump.
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <ATen/ATen.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" void aoti_torch_save_tensor_handle(AtenTensorHandle, const char *, const char *, const char *) {}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static at::Tensor make_input(const std::string &spec, const c10::Device &dev)
{
    size_t a = spec.find(':'), b = spec.rfind(':');
    if (a == std::string::npos || a == b)
        throw std::runtime_error("input '" + spec + "': want DTYPE:SHAPE:FILL");
    std::string dt = spec.substr(0, a), shape = spec.substr(a + 1, b - a - 1), fill = spec.substr(b + 1);
    std::vector<int64_t> dims;
    for (size_t p = 0; p <= shape.size();) {
        size_t x = shape.find('x', p);
        if (x == std::string::npos)
            x = shape.size();
        dims.push_back(std::stoll(shape.substr(p, x - p)));
        p = x + 1;
    }
    at::ScalarType st = dt == "float32" ? at::kFloat : dt == "bfloat16" ? at::kBFloat16
                      : dt == "float16" ? at::kHalf : dt == "int64" ? at::kLong
                      : throw std::runtime_error("input '" + spec + "': unknown dtype");
    auto opt = at::TensorOptions().dtype(st).device(dev);
    int64_t n = 1;
    for (int64_t d : dims)
        n *= d;
    if (fill == "arange")
        return at::arange(n, opt).reshape(dims);
    if (fill == "randn")
        return at::randn(dims, opt);
    if (fill == "zeros")
        return at::zeros(dims, opt);
    throw std::runtime_error("input '" + spec + "': unknown fill");
}

// Starts libtorch's kineto profiler (what torch.profiler.profile starts).
static void profiler_on(bool cuda)
{
    namespace prof = torch::profiler::impl;
    std::set<prof::ActivityType> acts{prof::ActivityType::CPU};
    if (cuda)
        acts.insert(prof::ActivityType::CUDA);
    prof::ProfilerConfig cfg(prof::ProfilerState::KINETO);
    torch::autograd::profiler::prepareProfiler(cfg, acts);
    torch::autograd::profiler::enableProfiler(cfg, acts);
}

// Stops it and saves its chrome trace to PREFIX.I.json.
static void profiler_save(const std::string &prefix, int i)
{
    torch::autograd::profiler::disableProfiler()->save(prefix + "." + std::to_string(i) + ".json");
}

int main(int argc, char **argv)
{
    std::string prefix;
    int iters = 5, a = 1;
    for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
        if (!strcmp(argv[a], "--profile") && a + 1 < argc)
            prefix = argv[++a];
        else if (!strcmp(argv[a], "--iters") && a + 1 < argc && atoi(argv[a + 1]) > 0)
            iters = atoi(argv[++a]);
        else {
            fprintf(stderr, "plain_loader: unknown option or missing value: %s\n", argv[a]);
            return 2;
        }
    }
    if (argc - a < 1) {
        fprintf(stderr, "usage: plain_loader [--profile PREFIX [--iters N]] PKG.pt2 DTYPE:SHAPE:FILL...\n");
        return 2;
    }
    try {
        double t0 = now_s();
        torch::inductor::AOTIModelPackageLoader loader(argv[a]);
        auto meta = loader.get_metadata();
        std::string key = meta.count("AOTI_DEVICE_KEY") ? meta["AOTI_DEVICE_KEY"] : "cpu";
        c10::Device dev(key == "cuda" ? c10::kCUDA : c10::kCPU);
        double t1 = now_s();
        std::vector<at::Tensor> in;
        for (int i = a + 1; i < argc; i++)
            in.push_back(make_input(argv[i], dev));
        if (!prefix.empty())
            profiler_on(dev.is_cuda());
        auto out = loader.run(in);
        double sum = out.empty() ? 0.0 : out[0].to(at::kCPU).to(at::kDouble).sum().item<double>();
        double t2 = now_s();
        printf("%.3f %.3f\nsum %.6g\n", t1 - t0, t2 - t1, sum);
        if (!prefix.empty()) {
            profiler_save(prefix, 0);   /* the sum above waited for the kernels */
            for (int i = 1; i <= iters; i++) {
                profiler_on(dev.is_cuda());
                out = loader.run(in);
                if (!out.empty())
                    out[0].to(at::kCPU);   /* waits for the kernels */
                profiler_save(prefix, i);
            }
            printf("profiled %d %s\n", iters + 1, prefix.c_str());
        }
    } catch (const std::exception &e) {
        fprintf(stderr, "plain_loader: %s\n", e.what());
        return 1;
    }
    return 0;
}
