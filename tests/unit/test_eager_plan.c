/* test_eager_plan.c — which graph nodes each kernel call is compared on with --eager
 * (eager_ref.h eager_ref_call_nodes, then eager_program.h eager_program_refs), on the
 * wrapper.cpp torch 2.11 wrote on the H200 for the bf16 nanoGPT built the usual way (printer
 * on, no provenance: tests/data/eager_cuda_gpt, trimmed) and that model's exported program
 * (the same graph at tiny sizes, exported by tests/models/export_plan_programs.py: the plan reads names only). On CUDA every launch carries a
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
/* made by the eager_plan_programs test (tests/models/export_plan_programs.py) */
#define PROGRAMS AOTIDBG_BINARY_DIR "/eager-plan-programs/"

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
    CHECK(eager_program_read(&p, PROGRAMS "gpt_tiny.ep.pt2", &err) == 0);
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

/* Float32 on the H200 (tests/gpu/results/run26_eager_heldout_summary.txt): inductor unfuses an
 * addmm whose users are pointwise into an extern mm and an add in the next Triton kernel, and
 * peels a convolution's bias off the same way, so the mm's output is the linear less its bias
 * (it was taken for a departure of linear_1). The comments are those the H200's wrapper.cpp
 * has for this GPT in float32 (run26's session provenance). */
static const char fp32_split[] =
    "void AOTInductorModel::run_impl(\n"
    "    // Topologically Sorted Source Nodes: [transpose_3, reshape, linear_1], Original ATen: [aten.transpose, "
    "aten.view, aten.t, aten.addmm]\n"
    "    aoti_torch_save_tensor_handle(buf10, \"buf10\", \"before_launch\", \"aoti_torch_cuda_mm_out\");\n"
    "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf10, buf9, buf8));\n"
    "    aoti_torch_save_tensor_handle(buf10, \"buf10\", \"after_launch\", \"aoti_torch_cuda_mm_out\");\n"
    "    // Topologically Sorted Source Nodes: [embedding, arange, embedding_1, add, linear_1, add_1, layer_norm_1], "
    "Original ATen: [aten.embedding, aten.arange, aten.add, aten.addmm, aten.view, aten.native_layer_norm]\n"
    "    aoti_torch_save_tensor_handle(buf11, \"buf11\", \"before_launch\", \"triton_per_fused_add_addmm_1\");\n"
    "    call_triton_per_fused_add_addmm_1(buf11, buf10, 256L, this->device_idx_, stream, kernels, this->cubin_dir_);\n"
    "    aoti_torch_save_tensor_handle(buf11, \"buf11\", \"after_launch\", \"triton_per_fused_add_addmm_1\");\n"
    "    // Topologically Sorted Source Nodes: [layer_norm_1, linear_2], Original ATen: [aten.native_layer_norm, "
    "aten.view, aten.t, aten.addmm]\n"
    "    aoti_torch_save_tensor_handle(buf12, \"buf12\", \"before_launch\", \"aoti_torch_cuda_addmm_out\");\n"
    "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf12, buf11, buf8, buf8, 1L, 1L));\n"
    "    aoti_torch_save_tensor_handle(buf12, \"buf12\", \"after_launch\", \"aoti_torch_cuda_addmm_out\");\n"
    "    // Topologically Sorted Source Nodes: [linear_2, gelu], Original ATen: [aten.addmm, aten.view, aten.gelu]\n"
    "    aoti_torch_save_tensor_handle(buf13, \"buf13\", \"before_launch\", \"triton_poi_fused_addmm_gelu_2\");\n"
    "    call_triton_poi_fused_addmm_gelu_2(buf13, buf12, 256L, this->device_idx_, stream, kernels, this->cubin_dir_);\n"
    "    aoti_torch_save_tensor_handle(buf13, \"buf13\", \"after_launch\", \"triton_poi_fused_addmm_gelu_2\");\n"
    "} // AOTInductorModel::run_impl\n";

static void test_an_mm_whose_bias_a_later_kernel_adds_is_compared_without_it(void)
{
    session *s = session_new();
    strbuf err = STRBUF_INIT;
    CHECK(provenance_scan(s, fp32_split, strlen(fp32_split), NULL, 0, NULL, &err) == 0);
    CHECK(s->prov.ncalls == 4);
    eager_program *p = program();
    arena a = {0};
    eager_call_refs r;
    size_t occ;
    if (p && s->prov.ncalls == 4) {
        CHECK(eager_ref_call_refs(&s->prov, 0, p, &a, &r, &occ) > 0);
        CHECK(has(r.refs, r.nrefs, "linear_1__no_bias") && !has(r.refs, r.nrefs, "linear_1"));
        /* the kernel that adds it is compared on what it writes, never on the mm's value */
        CHECK(eager_ref_call_refs(&s->prov, 1, p, &a, &r, &occ) > 0);
        CHECK(!has(r.refs, r.nrefs, "linear_1__no_bias") && has(r.refs, r.nrefs, "layer_norm_1"));
        /* an addmm has its bias, even where a later kernel names its node with aten.addmm */
        CHECK(eager_ref_call_refs(&s->prov, 2, p, &a, &r, &occ) > 0);
        CHECK(has(r.refs, r.nrefs, "linear_2") && !has(r.refs, r.nrefs, "linear_2__no_bias"));
        /* the plan computes the derived value once, after the graph, not as a graph value */
        CHECK_STR(eager_program_without_bias(p, "linear_1"), "linear_1__no_bias");
        CHECK(eager_program_index(p, "linear_1__no_bias") >= (long)eager_program_index(p, "linear_24"));
        for (size_t i = 0; i < eager_program_nvalues(p); i++) {
            const char *v = eager_program_value(p, i);
            CHECK(!v || !strstr(v, "__no_bias"));
        }
        eager_program_refs(p, (const char *const[]){"linear_1__no_bias"}, 1, &r);
        CHECK(r.nrefs == 1 && r.nmissing == 0);
        /* none for what has no bias: the head (bias=False), gelu, a derived value */
        CHECK(eager_program_without_bias(p, "linear_24") == NULL);
        CHECK(eager_program_without_bias(p, "gelu") == NULL);
        CHECK(eager_program_without_bias(p, "linear_1__no_bias") == NULL);
        CHECK(eager_program_without_bias(p, "no_such_node") == NULL);
    }
    arena_release(&a);
    eager_program_free(p);
    strbuf_release(&err);
    session_free(s);
}

/* The conv-bn net of tests/gpu/run_eager_heldout_gpu.sh on the H200 (run27): two Triton kernels
 * lay out the input and c1's weight for cuDNN (they name only conv2d), the convolution runs
 * without its bias, which the next kernel adds with the batch norm; kernel 4 lays out c2's
 * weight (it names relu, the earlier kernel's, and conv2d_1). Kernels, nodes and ATen as the
 * session's provenance has them; the program: ConvBn exported on CPU (tests/models/export_plan_programs.py). */
typedef struct {
    const char *kernel, *nodes, *aten;
} call_row;

static const call_row convbn_calls[] = {
    {"triton_poi_fused_convolution_0", "conv2d", "aten.convolution"},
    {"triton_poi_fused_convolution_1", "conv2d", "aten.convolution"},
    {"aoti_torch_cuda_convolution", "conv2d", "aten.convolution"},
    {"triton_poi_fused__native_batch_norm_legit_no_training_convolution_relu_2", "conv2d, batch_norm, relu",
     "aten.convolution, aten._native_batch_norm_legit_no_training, aten.relu"},
    {"triton_poi_fused_convolution_relu_3", "relu, conv2d_1", "aten.relu, aten.convolution"},
    {"aoti_torch_cuda_convolution", "relu, conv2d_1", "aten.relu, aten.convolution"},
    {"triton_poi_fused__native_batch_norm_legit_no_training_convolution_relu_4",
     "relu, conv2d_1, batch_norm_1, relu_1", "aten.relu, aten.convolution, aten._native_batch_norm_legit_no_training"},
};

/* A session whose call table is rows[0..n), through a wrapper.cpp's run_impl written for them. */
static session *session_of(const call_row *rows, size_t n)
{
    strbuf w = STRBUF_INIT, err = STRBUF_INIT;
    strbuf_addstr(&w, "void AOTInductorModel::run_impl(\n");
    for (size_t i = 0; i < n; i++) {
        const char *k = rows[i].kernel;
        strbuf_addf(&w, "    // Topologically Sorted Source Nodes: [%s], Original ATen: [%s]\n", rows[i].nodes,
                    rows[i].aten);
        strbuf_addf(&w, "    aoti_torch_save_tensor_handle(buf%zu, \"buf%zu\", \"before_launch\", \"%s\");\n", i, i, k);
        if (!strncmp(k, "triton_", 7))
            strbuf_addf(&w, "    call_%s(buf%zu, 64L, this->device_idx_, stream, kernels, this->cubin_dir_);\n", k, i);
        else
            strbuf_addf(&w, "    AOTI_TORCH_ERROR_CODE_CHECK(%s(buf%zu, buf0, buf1));\n", k, i);
        strbuf_addf(&w, "    aoti_torch_save_tensor_handle(buf%zu, \"buf%zu\", \"after_launch\", \"%s\");\n", i, i, k);
    }
    strbuf_addstr(&w, "} // AOTInductorModel::run_impl\n");
    session *s = session_new();
    CHECK(provenance_scan(s, w.buf, w.len, NULL, 0, NULL, &err) == 0);
    CHECK(s->prov.ncalls == n);
    strbuf_release(&w);
    strbuf_release(&err);
    return s;
}

static void test_cuda_convbn_layout_kernels_and_the_peeled_bias(void)
{
    strbuf err = STRBUF_INIT;
    session *s = session_of(convbn_calls, sizeof convbn_calls / sizeof *convbn_calls);
    eager_program *p = NULL;
    CHECK(eager_program_read(&p, PROGRAMS "convbn.ep.pt2", &err) == 0);
    arena a = {0};
    eager_call_refs r;
    size_t occ;
    if (p && s->prov.ncalls == 7) {
        CHECK(eager_ref_call_refs(&s->prov, 0, p, &a, &r, &occ) > 0);   /* the input, laid out */
        CHECK(has(r.refs, r.nrefs, "x") && has(r.refs, r.nrefs, "p_c1_weight") && !has(r.refs, r.nrefs, "conv2d"));
        CHECK(eager_ref_call_refs(&s->prov, 1, p, &a, &r, &occ) > 0 && occ == 0);
        CHECK(has(r.refs, r.nrefs, "p_c1_weight"));
        CHECK(eager_ref_call_refs(&s->prov, 2, p, &a, &r, &occ) > 0);
        CHECK(r.nrefs == 1 && has(r.refs, r.nrefs, "conv2d__no_bias"));
        CHECK(eager_ref_call_refs(&s->prov, 3, p, &a, &r, &occ) > 0);
        CHECK(has(r.refs, r.nrefs, "relu") && !has(r.refs, r.nrefs, "conv2d__no_bias"));
        CHECK(eager_ref_call_refs(&s->prov, 4, p, &a, &r, &occ) > 0);   /* relu is kernel 3's: c2's weight */
        CHECK(has(r.refs, r.nrefs, "p_c2_weight") && !has(r.refs, r.nrefs, "conv2d_1"));
        CHECK(eager_ref_call_refs(&s->prov, 5, p, &a, &r, &occ) > 0 && occ == 1);
        CHECK(r.nrefs == 1 && has(r.refs, r.nrefs, "conv2d_1__no_bias"));
        CHECK(eager_ref_call_refs(&s->prov, 6, p, &a, &r, &occ) > 0);
        CHECK(has(r.refs, r.nrefs, "relu_1") && !has(r.refs, r.nrefs, "p_c2_weight"));
    }
    arena_release(&a);
    eager_program_free(p);
    strbuf_release(&err);
    session_free(s);
}

/* The kv-cache block of the same script (run26): each index_put of a cache buffer is two Triton
 * kernels, the first copies the buffer (k_cache into buf1), the second writes the new rows; the
 * first is compared with the buffer it copies, the second with the index_put. */
static const call_row kvcache_calls[] = {
    {"aoti_torch_cuda_addmm_out", "linear", "aten.t, aten.addmm"},
    {"triton_poi_fused_index_put_split_0", "chunk, index_put", "aten.split, aten.index_put"},
    {"triton_poi_fused_index_put_split_1", "chunk, index_put", "aten.split, aten.index_put"},
    {"aoti_torch_cuda_mm_out", "t, matmul", "aten.t, aten.mm"},
    {"triton_per_fused__softmax_exp_prepare_softmax_online_sub_2", "softmax",
     "prims.prepare_softmax_online, aten.sub, aten.exp, aten._softmax"},
    {"triton_poi_fused_index_put_split_0", "chunk, index_put_1", "aten.split, aten.index_put"},
    {"triton_poi_fused_index_put_split_3", "chunk, index_put_1", "aten.split, aten.index_put"},
    {"aoti_torch_cuda_mm_out", "softmax, matmul_1", "aten.sub, aten.exp, aten._softmax, aten.mm"},
};

static void test_cuda_kvcache_copy_before_index_put(void)
{
    strbuf err = STRBUF_INIT;
    session *s = session_of(kvcache_calls, sizeof kvcache_calls / sizeof *kvcache_calls);
    eager_program *p = NULL;
    CHECK(eager_program_read(&p, PROGRAMS "kvcache.ep.pt2", &err) == 0);
    arena a = {0};
    eager_call_refs r;
    size_t occ;
    if (p && s->prov.ncalls == 8) {
        CHECK_STR(eager_program_updated_input(p, "index_put"), "b_k_cache");
        CHECK(eager_program_updated_input(p, "matmul") == NULL && eager_program_updated_input(p, "x") == NULL);
        CHECK(eager_ref_call_refs(&s->prov, 1, p, &a, &r, &occ) > 0);
        CHECK(has(r.refs, r.nrefs, "b_k_cache") && has(r.refs, r.nrefs, "index_put"));
        CHECK(eager_ref_call_refs(&s->prov, 2, p, &a, &r, &occ) > 0);   /* the last: the index_put only */
        CHECK(has(r.refs, r.nrefs, "index_put") && !has(r.refs, r.nrefs, "b_k_cache"));
        CHECK(eager_ref_call_refs(&s->prov, 5, p, &a, &r, &occ) > 0 && occ == 1);
        CHECK(has(r.refs, r.nrefs, "b_v_cache") && !has(r.refs, r.nrefs, "b_k_cache"));
        /* matmul is an mm with no bias (no later kernel adds one): the node itself */
        CHECK(eager_ref_call_refs(&s->prov, 3, p, &a, &r, &occ) > 0);
        CHECK(has(r.refs, r.nrefs, "matmul") && !has(r.refs, r.nrefs, "matmul__no_bias"));
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
    RUN(test_an_mm_whose_bias_a_later_kernel_adds_is_compared_without_it);
    RUN(test_cuda_convbn_layout_kernels_and_the_peeled_bias);
    RUN(test_cuda_kvcache_copy_before_index_put);
    return CHECK_DONE();
}
