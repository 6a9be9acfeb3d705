// The launcher: the kernel once on in/, outputs to out/, checked against expected/ (aotidbg repro).
#include <unistd.h>
#include "repro.h"
#include "repro_cuda.h"

using namespace repro;

int main()
{
    if (chdir(REPRO_DIR)) repro::die(std::string("cannot enter ") + REPRO_DIR);
    Driver &d = driver();
    check(d.Init(0), "cuInit");
    CUdevice dev;
    check(d.DeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(d.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(d.CtxSetCurrent(ctx), "cuCtxSetCurrent");
    FILE *cf = std::fopen("kernel.cubin", "rb");
    if (!cf) die("no kernel.cubin");
    std::vector<unsigned char> cubin;
    for (int ch; (ch = std::fgetc(cf)) != EOF;) cubin.push_back((unsigned char)ch);
    std::fclose(cf);
    CUmodule mod;
    check(d.ModuleLoadData(&mod, cubin.data()), "cuModuleLoadData");
    CUfunction f;
    check(d.ModuleGetFunction(&f, mod, "triton_per_fused__softmax_add_exp_mul_prepare_softmax_online_sin_sub_0"), "cuModuleGetFunction");
    auto arg0_1 = repro::load("arg0_1");
    auto arg1_1 = repro::load("arg1_1");
    auto buf2 = repro::load("buf2");
    CUdeviceptr d_arg0_1;
    check(d.MemAlloc(&d_arg0_1, arg0_1.bytes.size() ? arg0_1.bytes.size() : 1), "cuMemAlloc");
    check(d.MemcpyHtoD(d_arg0_1, arg0_1.bytes.data(), arg0_1.bytes.size()), "cuMemcpyHtoD");
    CUdeviceptr d_arg1_1;
    check(d.MemAlloc(&d_arg1_1, arg1_1.bytes.size() ? arg1_1.bytes.size() : 1), "cuMemAlloc");
    check(d.MemcpyHtoD(d_arg1_1, arg1_1.bytes.data(), arg1_1.bytes.size()), "cuMemcpyHtoD");
    CUdeviceptr d_buf2;
    check(d.MemAlloc(&d_buf2, buf2.bytes.size() ? buf2.bytes.size() : 1), "cuMemAlloc");
    check(d.MemcpyHtoD(d_buf2, buf2.bytes.data(), buf2.bytes.size()), "cuMemcpyHtoD");
    CUdeviceptr a0 = d_arg0_1 + 0;   // the run's 0x7f10f3e00000
    CUdeviceptr a1 = d_arg1_1 + 0;   // the run's 0x7f10f3e08000
    CUdeviceptr a2 = d_buf2 + 0;   // the run's 0x7f10f3e10000
    unsigned char a3[4] = {0x40, 0x00, 0x00, 0x00};
    unsigned char a4[4] = {0x80, 0x00, 0x00, 0x00};
    unsigned char a5[8] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    unsigned char a6[8] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    void *params[] = {(void *)&a0, (void *)&a1, (void *)&a2, (void *)&a3, (void *)&a4, (void *)&a5, (void *)&a6};
    check(d.LaunchKernel(f, 64, 1, 1, 64, 1, 1, 8, nullptr, params, nullptr), "cuLaunchKernel");
    check(d.CtxSynchronize(), "the kernel triton_per_fused__softmax_add_exp_mul_prepare_softmax_online_sin_sub_0");
    check(d.MemcpyDtoH(arg0_1.bytes.data(), d_arg0_1, arg0_1.bytes.size()), "cuMemcpyDtoH");
    check(d.MemcpyDtoH(arg1_1.bytes.data(), d_arg1_1, arg1_1.bytes.size()), "cuMemcpyDtoH");
    check(d.MemcpyDtoH(buf2.bytes.data(), d_buf2, buf2.bytes.size()), "cuMemcpyDtoH");
    return finish({&arg0_1, &arg1_1, &buf2});
}
