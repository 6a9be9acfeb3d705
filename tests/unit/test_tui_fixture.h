/* test_tui_fixture.h — an in-memory session for the TUI tests and the bench.
 * Tensor values are computed here (sin ramp, relu, log) and their statistics
 * come from those values, so what the panes show follows from real arithmetic. */
#ifndef AOTIDBG_TEST_TUI_FIXTURE_H
#define AOTIDBG_TEST_TUI_FIXTURE_H
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

static void fx_stats(tensor_rec *t)
{
    tensor_stats *s = &t->stats;
    memset(s, 0, sizeof *s);
    s->numel = t->nvalues;
    double sum = 0, sq = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
    for (size_t i = 0; i < t->nvalues; i++) {
        double v = t->values[i];
        if (isnan(v)) { s->nan++; continue; }
        if (isinf(v)) { if (v > 0) s->posinf++; else s->neginf++; continue; }
        if (v == 0) s->zeros++;
        s->finite++;
        sum += v;
        if (v < s->min) s->min = v;
        if (v > s->max) s->max = v;
    }
    s->mean = s->finite ? sum / (double)s->finite : NAN;
    for (size_t i = 0; i < t->nvalues; i++)
        if (isfinite(t->values[i]))
            sq += (t->values[i] - s->mean) * (t->values[i] - s->mean);
    s->std = s->finite > 1 ? sqrt(sq / (double)(s->finite - 1)) : NAN;
    if (!s->finite) s->min = s->max = NAN;
    t->has_stats = 1;
}

/* Fills a 2-D float32 tensor; f maps the input value (or i when src is NULL). */
static void fx_tensor(session *s, tensor_rec *t, const char *name, tensor_phase ph, int r, int c,
                      const double *src, double (*f)(double))
{
    t->name = arena_strdup(&s->arena, name);
    t->phase = ph;
    t->ndim = 2;
    t->shape = arena_alloc(&s->arena, 2 * sizeof(int64_t));
    t->strides = arena_alloc(&s->arena, 2 * sizeof(int64_t));
    t->shape[0] = r; t->shape[1] = c;
    t->strides[0] = c; t->strides[1] = 1;
    t->dtype = "float32";
    t->device = "cpu";
    t->nvalues = (size_t)(r * c);
    t->values = arena_alloc(&s->arena, t->nvalues * sizeof(double));
    for (size_t i = 0; i < t->nvalues; i++) {
        double x = src ? src[i] : sin(0.7 * (double)i) * 2.0;
        t->values[i] = f ? f(x) : x;
    }
    t->values_complete = 1;
    fx_stats(t);
}

static double fx_relu(double x) { return x > 0 ? x : 0; }
static double fx_log(double x) { return log(x); }   /* negative -> NaN, 0 -> -inf */
static double fx_scale(double x) { return 0.5 * x - 0.25; }   /* relu's zeros go negative */

/* Three kernels (relu, addmm, log that makes NaN), the NaN error, two checks,
 * and a three-step narration. nextra adds that many plain kernels after. */
static session *fx_session(size_t nextra)
{
    session *s = session_new();
    s->package.path = "tests/models/mlp_ln.pt2";
    s->package.device_key = "cpu";
    s->device = "cpu";
    s->title = "NaN hunt";
    s->end_state = "complete";
    static const char *names[3] = {"cpp_fused_relu_0", "aoti_torch_cpu_addmm_out", "cpp_fused_log_1"};
    static double (*fns[3])(double) = {fx_relu, fx_scale, fx_log};
    const double *prev = NULL;
    for (int k = 0; k < 3; k++) {
        event *e = session_add_event(s, EV_KERNEL);
        kernel_event *ke = &e->u.kernel;
        ke->name = names[k];
        ke->type = kernel_type_guess(names[k]);
        ke->duration_us = 10.5 * (k + 1);
        ke->ntensors = 2;
        ke->tensors = arena_alloc(&s->arena, 2 * sizeof(tensor_rec));
        fx_tensor(s, &ke->tensors[0], "buf0", PHASE_BEFORE, 4, 6, prev, NULL);
        fx_tensor(s, &ke->tensors[1], "buf0", PHASE_AFTER, 4, 6, ke->tensors[0].values, fns[k]);
        prev = ke->tensors[1].values;
        ke->status = (ke->tensors[1].stats.nan || ke->tensors[1].stats.posinf || ke->tensors[1].stats.neginf)
                         ? KSTAT_NAN : KSTAT_OK;
    }
    event *err = session_add_event(s, EV_ERROR);
    err->u.error.text = "Exception in aoti_torch: At least one NaN in buf0\nError: aoti_torch_check_inf_and_nan(\"buf0\", buf0) API call failed";
    err->u.error.route = "nan-inf";
    err->u.error.kernel_index = 2;
    err->u.error.nfields = 1;
    err->u.error.fields = arena_alloc(&s->arena, sizeof(kv_pair));
    err->u.error.fields[0] = (kv_pair){"buffer", "buf0"};
    for (size_t i = 0; i < nextra; i++) {
        event *e = session_add_event(s, EV_KERNEL);
        e->u.kernel.name = (i % 7 == 3) ? "cpp_fused_mul_sum_2" : "triton_poi_fused_add_0";
        e->u.kernel.type = i % 7 == 3 ? KTYPE_CPP : KTYPE_TRITON;
        e->u.kernel.status = KSTAT_OK;
        e->u.kernel.duration_us = (double)(i % 100);
    }
    s->nchecks = 2;
    s->checks = arena_alloc(&s->arena, 2 * sizeof(check_row));
    s->checks[0] = (check_row){"device.compile-vs-load", CHECK_PASS, "compile device vs load device", "cpu", "cpu",
                               "metadata AOTI_DEVICE_KEY", NULL};
    s->checks[1] = (check_row){"flag.nan-asserts", CHECK_WARN, "NaN asserts compiled in", "1", "0",
                               "wrapper.cpp", "rebuild with TORCHINDUCTOR_NAN_ASSERTS=1"};
    s->nnarration = 3;
    s->narration = arena_alloc(&s->arena, 3 * sizeof(narration_step));
    s->narration[0] = (narration_step){"The router names the route: nan-inf. Press Enter.", "router", 3, NULL, NULL};
    s->narration[1] = (narration_step){"Step to the next kernel with s.", "kernels", 0, "step", "cpp_fused_relu_0"};
    s->narration[2] = (narration_step){"The log kernel turned negatives into NaN.", "inspector", 2, NULL, "NaN"};
    return s;
}

#endif
