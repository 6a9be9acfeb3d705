/* test_eager_plan.c — which graph nodes each kernel call is compared on with --eager
 * (eager_ref.h eager_ref_call_nodes, then eager_program.h eager_program_refs), on the
 * wrapper.cpp torch 2.11 wrote on the H200 for the bf16 nanoGPT built the usual way (printer
 * on, no provenance: tests/data/eager_cuda_gpt, trimmed) and that model's exported program
 * (the same graph at tiny sizes: the plan reads names only). On CUDA every launch carries a
 * source-node comment, and an extern call's names its input's chain too ([..., add,
 * layer_norm, linear] for the addmm after the Triton kernel that writes the layer norm): the
 * Triton kernels keep their nodes (on the H200 16 of the 19 had none, and 16 of 50 kernels were not
 * compared); a node that only the later library call makes (attention) is the library call's.
 * tests/gpu/run_eager_usual_gpu.sh runs the same package on the H200. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "eager_program.h"
#include "eager_ref.h"
#include "provenance.h"
#include "session_io.h"

#define DATA AOTIDBG_SOURCE_DIR "/tests/data/eager_cuda_gpt/"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    CHECK(buf && fread(buf, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    buf[len] = 0;
    *n = (size_t)len;
    return buf;
}

static int has(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], name)) return 1;
    return 0;
}

static eager_program *program(void)
{
    eager_program *p = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(eager_program_read(&p, DATA "gpt_tiny.ep.pt2", &err) == 0);
    if (err.len) fprintf(stderr, "%s\n", err.buf);
    strbuf_release(&err);
    return p;
}

/* Call i's references (the nodes the runner compares its outputs with). */
static eager_call_refs refs_of(const session *s, size_t i, eager_program *p, arena *a, size_t *occ)
{
    const char **nodes = NULL;
    size_t n = eager_ref_call_nodes(&s->prov, i, p, a, &nodes, occ);
    eager_call_refs r = {0};
    if (n) eager_program_refs(p, nodes, n, &r);
    return r;
}

static void test_cuda_gpt_every_call_has_references(void)
{
    size_t len = 0;
    char *text = slurp(DATA "wrapper.cpp", &len);
    session *s = session_new();
    strbuf err = STRBUF_INIT;
    CHECK(text && provenance_scan(s, text, len, NULL, 0, NULL, &err) == 0);
    CHECK(s->prov.ncalls == 50);
    eager_program *p = program();
    arena a = {0};
    size_t triton = 0, planned = 0;
    for (size_t i = 0; p && i < s->prov.ncalls; i++) {
        const kernel_call *c = &s->prov.calls[i];
        size_t occ;
        eager_call_refs r = refs_of(s, i, p, &a, &occ);
        CHECK(r.nmissing == 0);   /* the tiny program has every node the H200's names */
        planned += r.nrefs > 0;
        if (!strncmp(c->kernel, "triton_", 7)) {
            triton++;
            if (!r.nrefs) fprintf(stderr, "call %zu %s: no reference\n", i, c->kernel);
        }
    }
    CHECK(triton == 19);   /* 16 of them had no reference before */
    CHECK(planned == 50);

    /* what the Triton kernels write: the layer norm (an out_ptr), the residual stream updated in
       place (in_out_ptr0), gelu in place */
    size_t occ;
    eager_call_refs r = refs_of(s, 0, p, &a, &occ);
    CHECK_STR(s->prov.calls[0].kernel, "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    CHECK(has(r.refs, r.nrefs, "layer_norm") && has(r.refs, r.nrefs, "add") && occ == 0);
    r = refs_of(s, 6, p, &a, &occ);
    CHECK_STR(s->prov.calls[6].kernel, "triton_poi_fused_gelu_view_2");
    CHECK(has(r.refs, r.nrefs, "gelu") && !has(r.refs, r.nrefs, "linear_3"));
    r = refs_of(s, 8, p, &a, &occ);
    CHECK(has(r.refs, r.nrefs, "add_2") && has(r.refs, r.nrefs, "layer_norm_2"));
    r = refs_of(s, 46, p, &a, &occ);
    CHECK_STR(s->prov.calls[46].kernel, "triton_poi_fused_gelu_view_2");
    CHECK(occ == 5 && has(r.refs, r.nrefs, "gelu_5"));
    r = refs_of(s, 48, p, &a, &occ);
    CHECK(has(r.refs, r.nrefs, "layer_norm_12"));
    /* the library calls keep what they make */
    r = refs_of(s, 1, p, &a, &occ);
    CHECK_STR(s->prov.calls[1].kernel, "aoti_torch_cuda_addmm_out");
    CHECK(has(r.refs, r.nrefs, "linear"));
    r = refs_of(s, 2, p, &a, &occ);
    CHECK(has(r.refs, r.nrefs, "scaled_dot_product_attention"));
    r = refs_of(s, 49, p, &a, &occ);
    CHECK_STR(s->prov.calls[49].kernel, "aoti_torch_cuda_mm_out");
    CHECK(has(r.refs, r.nrefs, "linear_24"));

    /* without the program (the Python helper's fallback) the comment's order gives the same nodes */
    for (size_t i = 0; p && i < s->prov.ncalls; i++) {
        const char **with = NULL, **without = NULL;
        size_t o1, o2, n1 = eager_ref_call_nodes(&s->prov, i, p, &a, &with, &o1),
                       n2 = eager_ref_call_nodes(&s->prov, i, NULL, &a, &without, &o2);
        CHECK(n1 == n2 && n1 > 0 && o1 == o2);
        for (size_t k = 0; k < n1 && n1 == n2; k++) CHECK_STR(with[k], without[k]);
    }
    arena_release(&a);
    eager_program_free(p);
    strbuf_release(&err);
    session_free(s);
    free(text);
}

/* The llama-style decoder on the H200 (S3-4): a Triton kernel that lays out q/k/v for cuDNN
 * attention names the attention node, and the attention call after it makes that node; the
 * kernel is compared on what it writes, never with the attention's output. */
static const char llama_like[] =
    "void AOTInductorModel::run_impl(\n"
    "    // Topologically Sorted Source Nodes: [view, transpose, view_1, transpose_1, view_2, transpose_2, "
    "scaled_dot_product_attention], Original ATen: [aten.view, aten.transpose, aten._scaled_dot_product_cudnn_attention]\n"
    "    aoti_torch_save_tensor_handle(buf4, \"buf4\", \"before_launch\", \"triton_poi_fused_sdpa_0\");\n"
    "    aoti_torch_save_tensor_handle(buf5, \"buf5\", \"before_launch\", \"triton_poi_fused_sdpa_0\");\n"
    "    call_triton_poi_fused_sdpa_0(buf4, buf5, 98304L, this->device_idx_, stream, kernels, this->cubin_dir_);\n"
    "    aoti_torch_save_tensor_handle(buf4, \"buf4\", \"after_launch\", \"triton_poi_fused_sdpa_0\");\n"
    "    aoti_torch_save_tensor_handle(buf5, \"buf5\", \"after_launch\", \"triton_poi_fused_sdpa_0\");\n"
    "    // Topologically Sorted Source Nodes: [transpose, scaled_dot_product_attention], Original ATen: "
    "[aten._scaled_dot_product_cudnn_attention]\n"
    "    aoti_torch_save_tensor_handle(buf6, \"buf6\", \"before_launch\", "
    "\"aoti_torch_cuda__scaled_dot_product_cudnn_attention\");\n"
    "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(buf5, buf5, buf5, "
    "&buf6_handle));\n"
    "    aoti_torch_save_tensor_handle(buf6, \"buf6\", \"after_launch\", "
    "\"aoti_torch_cuda__scaled_dot_product_cudnn_attention\");\n"
    "} // AOTInductorModel::run_impl\n";

static void test_a_node_the_later_library_call_makes_is_its(void)
{
    session *s = session_new();
    strbuf err = STRBUF_INIT;
    CHECK(provenance_scan(s, llama_like, strlen(llama_like), NULL, 0, NULL, &err) == 0);
    CHECK(s->prov.ncalls == 2);
    eager_program *p = program();
    arena a = {0};
    for (int with_prog = 0; with_prog < 2 && s->prov.ncalls == 2; with_prog++) {
        const char **nodes = NULL;
        size_t occ, n = eager_ref_call_nodes(&s->prov, 0, with_prog ? p : NULL, &a, &nodes, &occ);
        CHECK(n == 6 && !has(nodes, n, "scaled_dot_product_attention") && has(nodes, n, "transpose_2"));
        CHECK(has(nodes, n, "transpose"));   /* named by both, made by neither: the kernel's */
        n = eager_ref_call_nodes(&s->prov, 1, with_prog ? p : NULL, &a, &nodes, &occ);
        CHECK(n == 2 && has(nodes, n, "scaled_dot_product_attention"));
    }
    arena_release(&a);
    eager_program_free(p);
    strbuf_release(&err);
    session_free(s);
}

int main(void)
{
    RUN(test_cuda_gpt_every_call_has_references);
    RUN(test_a_node_the_later_library_call_makes_is_its);
    return CHECK_DONE();
}
