/* test_run_record.c — run_record (core/run): interposed launches inside
 * torch.cond / while_loop branches take their launch sites off the session's
 * hidden_kernels (the printer's "+N hidden" counted them before interposition
 * named them), once a run, and a restart counts them hidden again. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "model.h"
#include "protocol.h"
#include "run_record.h"
#include "strbuf.h"

static void launch(run_record *r, int64_t index, const char *name, const char *source)
{
    proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = PROTO_KERNEL;
    m.u.kernel.index = index;
    m.u.kernel.name = name;
    m.u.kernel.phase = 0;
    m.u.kernel.t_us = -1;
    m.u.kernel.duration_us = -1;
    m.u.kernel.device_us = -1;
    m.u.kernel.source = source;
    m.u.kernel.branch = "";
    strbuf err = STRBUF_INIT;
    CHECK(run_record_message(r, &m, 0, &err) == 1);
    strbuf_release(&err);
}

static void test_hidden_drops_by_what_interposition_saw(void)
{
    session *s = session_new();
    s->mode = "printer";
    s->hidden_kernels = 5;   /* 2 sites in true_graph_0, 1 in false_graph_0, 1 in the body, 1 proxy call */
    s->hidden_why = "5 kernel launch(es) the printer does not reach";
    launch_branch rows[] = {
        {"triton_t", "true_graph_0", 2},  {"triton_f", "false_graph_0", 1}, {"triton_body", "while_loop_body_graph_0", 1},
        {"cpp_main", "", 0},              {"triton_two", NULL, 1},
    };
    run_record *r = run_record_new(s, NULL, 0);
    run_record_set_branches(r, rows, sizeof rows / sizeof *rows);
    launch(r, 0, "cpp_main", "printer");
    CHECK(s->hidden_kernels == 5);
    launch(r, 1, "triton_t", "interpose");
    CHECK(s->hidden_kernels == 3);            /* both of its sites */
    CHECK(s->kernels[1]->u.kernel.branch && !strcmp(s->kernels[1]->u.kernel.branch, "true_graph_0"));
    CHECK(strstr(s->hidden_why, "3 of 5 still hidden") && strstr(s->hidden_why, "printer does not reach"));
    launch(r, 2, "triton_body", "interpose");
    launch(r, 3, "triton_body", "interpose");   /* a loop's second round: the same site */
    launch(r, 4, "triton_body", "interpose");
    CHECK(s->hidden_kernels == 2);
    launch(r, 5, "triton_two", "interpose");    /* launched in the main graph and a branch: unsure, kept */
    launch(r, 6, "unknown_kernel", "interpose");
    CHECK(s->hidden_kernels == 2);              /* false_graph_0 did not run; the proxy call is not interposed */
    run_record_restart(r);
    CHECK(s->hidden_kernels == 5 && !strcmp(s->hidden_why, "5 kernel launch(es) the printer does not reach"));
    launch(r, 0, "triton_f", "interpose");
    CHECK(s->hidden_kernels == 4);
    run_record_free(r);
    session_free(s);
}

/* torch 2.11 on CUDA: the printer hooks the Triton launches inside a branch
 * (saying no branch); they get their branch from wrapper.cpp and are not
 * hidden, so they take nothing off the count. */
static void test_printer_hooks_in_a_branch(void)
{
    session *s = session_new();
    s->mode = "printer";
    s->hidden_kernels = 1;   /* the extern mm in true_graph_0: interposition cannot name it */
    launch_branch rows[] = {{"triton_gt_sum_0", "", 0}, {"aoti_torch_cuda_mm_out", "true_graph_0", 1},
                            {"triton_relu_1", "true_graph_0", 0}, {"triton_mul_3", "", 0}};
    run_record *r = run_record_new(s, NULL, 0);
    run_record_set_branches(r, rows, sizeof rows / sizeof *rows);
    launch(r, 0, "triton_gt_sum_0", "printer");
    launch(r, 1, "triton_relu_1", "printer");
    launch(r, 2, "triton_mul_3", "reinstrument");
    CHECK(!s->kernels[0]->u.kernel.branch && !s->kernels[2]->u.kernel.branch);
    CHECK(s->kernels[1]->u.kernel.branch && !strcmp(s->kernels[1]->u.kernel.branch, "true_graph_0"));
    CHECK(s->hidden_kernels == 1);
    run_record_free(r);
    session_free(s);
}

int main(void)
{
    RUN(test_printer_hooks_in_a_branch);
    RUN(test_hidden_drops_by_what_interposition_saw);
    return CHECK_DONE();
}
