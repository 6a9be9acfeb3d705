/* bench.c — `aotidbg-runner --bench`: times model runs through the same
 * loader, input builder and hooks as protocol mode, for the hook-overhead
 * figures (tests/bench/gpu_runner_bench.sh drives it on the GPU box).
 * Prints one line: mode=M iters=N us_per_run=X events_per_run=E kernels_per_run=K.
 * AOTIDBG_RUNNER_PROFILE=1 adds a per-run time breakdown on stderr (prof.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "device_timer.h"
#include "hooks.h"
#include "input_build.h"
#include "model_so.h"
#include "prof.h"
#include "runner_main.h"
#include "torch_abi.h"
#include "compat.h"

static strbuf sink = STRBUF_INIT;

/* record mode pays for encoding, not for a socket */
static int sink_send(const proto_msg *m)
{
    strbuf err = STRBUF_INIT;
    strbuf_reset(&sink);
    int r = proto_encode(&sink, m, &err);
    strbuf_release(&err);
    return r;
}

/* DTYPE:SHAPE:FILL, e.g. float32:4x8:randn, int64:3:arange, float32:scalar:full=2 */
static int parse_input(const char *arg, int index, input_spec *s)
{
    memset(s, 0, sizeof *s);
    char *copy = strdup(arg), *save = NULL;
    char *dtype = strtok_r(copy, ":", &save), *shape = strtok_r(NULL, ":", &save),
         *fill = strtok_r(NULL, ":", &save);
    if (!dtype || !shape || !fill || !tabi_dtype_by_name(dtype)) goto bad;
    s->dtype = strdup(dtype);
    s->device = NULL;
    s->seed = (uint64_t)index;
    if (strcmp(shape, "scalar")) {
        for (char *p = shape; *p;) {
            if (s->ndim == TENSOR_MAX_DIMS) goto bad;
            char *end;
            long long v = strtoll(p, &end, 10);
            if (end == p || v < 0) goto bad;
            s->shape[s->ndim++] = v;
            p = *end == 'x' ? end + 1 : end;
            if (*end && *end != 'x') goto bad;
        }
    }
    if (!strcmp(fill, "randn")) s->fill = FILL_RANDN;
    else if (!strcmp(fill, "zeros")) s->fill = FILL_ZEROS;
    else if (!strcmp(fill, "ones")) s->fill = FILL_ONES;
    else if (!strcmp(fill, "arange")) s->fill = FILL_ARANGE;
    else if (starts_with(fill, "full=")) {
        s->fill = FILL_FULL;
        s->value = strtod(fill + 5, NULL);
    } else goto bad;
    free(copy);
    return 0;
bad:
    fprintf(stderr, "aotidbg-runner --bench: input %d '%s' is not DTYPE:SHAPE:FILL (e.g. float32:4x8:randn)\n",
            index, arg);
    free(copy);
    return -1;
}

int bench_main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: aotidbg-runner --bench SO CUBIN_DIR DEVICE ITERS MODE INPUT...\n");
        return 2;
    }
    const char *so = argv[0], *cubin = strcmp(argv[1], "-") ? argv[1] : NULL, *device = argv[2],
               *mode = argv[4];
    int iters = atoi(argv[3]);
    int record = !strcmp(mode, "record"), blocking = !strcmp(mode, "blocking");
    if (iters <= 0 || (!record && !blocking && strcmp(mode, "off"))) {
        fprintf(stderr, "aotidbg-runner --bench: ITERS must be > 0 and MODE one of off, record, blocking\n");
        return 2;
    }
    int nin = argc - 5;
    input_spec *specs = calloc(nin ? nin : 1, sizeof *specs);
    for (int i = 0; i < nin; i++) {
        if (parse_input(argv[5 + i], i, &specs[i])) return 2;
        specs[i].device = device;
    }
    model_so m;
    strbuf err = STRBUF_INIT;
    if (model_load(&m, so, device, cubin, &err)) {
        fprintf(stderr, "aotidbg-runner --bench: %s\n", err.buf);
        return 1;
    }
    dtimer_setup(m.is_cuda);
    if ((size_t)nin != m.n_inputs) {
        fprintf(stderr, "aotidbg-runner --bench: model takes %zu inputs, %d given\n", m.n_inputs, nin);
        return 2;
    }
    m.no_post_check = 1;   /* time the runs back to back, as before */
    int32_t dt, di = 0;
    tabi_parse_device(device, 0, &dt, &di);
    built_input *master = calloc(nin ? nin : 1, sizeof *master);
    for (int i = 0; i < nin; i++)
        if (input_build(&specs[i], i, di, &master[i], &err)) {
            fprintf(stderr, "aotidbg-runner --bench: %s\n", err.buf);
            return 1;
        }
    hooks_config hc = {record, blocking, m.is_cuda, record ? 64 : 0, record ? sink_send : NULL, NULL};
    hooks_configure(&hc);
    hooks_set_control(PROTO_CMD_CONTINUE, -1, "", 0);
    AtenTensorHandle *in = calloc(nin ? nin : 1, sizeof *in);
    AtenTensorHandle *out = calloc(m.n_outputs ? m.n_outputs : 1, sizeof *out);
    const cuda_rt *cu = tabi_cuda();
    double t0 = 0;
    int warm = 5;
    for (int it = -warm; it < iters; it++) {
        if (it == 0) {
            if (m.is_cuda && cu->device_synchronize) cu->device_synchronize();
            hooks_reset_counters();
            prof_reset();
            t0 = hooks_now_us();
        }
        for (int i = 0; i < nin; i++)   /* Run steals handles: give it fresh ones on the same storage */
            if (aoti_torch_new_tensor_handle(master[i].h, &in[i])) {
                fprintf(stderr, "aotidbg-runner --bench: aoti_torch_new_tensor_handle failed\n");
                return 1;
            }
        hooks_begin_run();
        double pt = prof_now();
        int bad = model_run(&m, in, (size_t)nin, out, &err);
        prof_add(PROF_RUN, pt);
        if (bad) {
            fprintf(stderr, "aotidbg-runner --bench: run %d failed: %s\n", it, err.buf);
            return 1;
        }
        hooks_end_run(0);
        for (size_t o = 0; o < m.n_outputs; o++) aoti_torch_delete_tensor_object(out[o]);
    }
    if (m.is_cuda && cu->device_synchronize) cu->device_synchronize();
    double t1 = hooks_now_us();
    hooks_counters c = hooks_get_counters();
    printf("mode=%s iters=%d us_per_run=%.3f events_per_run=%.1f kernels_per_run=%lld\n", mode, iters,
           (t1 - t0) / iters, (double)c.events / iters, (long long)c.kernels);
    prof_report(stderr, mode, iters, (unsigned long long)c.events);
    for (int i = 0; i < nin; i++) {
        aoti_torch_delete_tensor_object(master[i].h);
        free(master[i].host);
    }
    model_unload(&m);
    fflush(stdout);
    _exit(0);
}
