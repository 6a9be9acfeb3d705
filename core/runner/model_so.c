/* model_so.c — loading and running an AOTI model .so (model_so.h). */
#define _GNU_SOURCE
#include "model_so.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "stderr_tap.h"
#include "torch_abi.h"

/* The container's message: its own API, else what it printed on our stderr since mark. */
static void add_last_error(model_so *m, strbuf *err, uint64_t mark, const char *fallback)
{
    const char *msg = NULL;
    if (m->last_error && m->last_error(&msg) == 0 && msg && *msg) strbuf_addstr(err, msg);
    else if (!stap_model_error(mark, err)) strbuf_addstr(err, fallback);
}

int model_load(model_so *m, const char *so_path, const char *device, const char *cubin_dir, strbuf *err)
{
    memset(m, 0, sizeof *m);
    struct stat st;
    if (stat(so_path, &st) != 0 || !S_ISREG(st.st_mode)) {
        strbuf_addf(err, "%s: no such model library (extract the package, or check the path)", so_path);
        return -1;
    }
    /* RTLD_LOCAL: the model's aoti_torch_* references still resolve to
     * libtorch, and its printer calls to our exported hooks. */
    m->dl = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (!m->dl) {
        const char *e = dlerror();
        strbuf_addf(err, "%s: dlopen failed: %s", so_path, e ? e : "unknown error");
        if (e && strstr(e, "undefined symbol"))
            strbuf_addstr(err, " (the package was built against another torch: rebuild it with this torch)");
        return -1;
    }
    struct { void **slot; const char *name; } need[] = {
        {(void **)&m->create, "AOTInductorModelContainerCreateWithDevice"},
        {(void **)&m->destroy, "AOTInductorModelContainerDelete"},
        {(void **)&m->run, "AOTInductorModelContainerRun"},
        {(void **)&m->num_inputs, "AOTInductorModelContainerGetNumInputs"},
        {(void **)&m->num_outputs, "AOTInductorModelContainerGetNumOutputs"},
        {(void **)&m->input_name, "AOTInductorModelContainerGetInputName"},
    };
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        *need[i].slot = dlsym(m->dl, need[i].name);
        if (!*need[i].slot) {
            strbuf_addf(err, "%s does not export %s: is it an AOTInductor model (<key>.wrapper.so from "
                        "data/aotinductor/<model>/ of a .pt2)?", so_path, need[i].name);
            return -1;
        }
    }
    /* AOTIDBG_RUNNER_IGNORE_LAST_ERROR=1: read the message from stderr even
     * when the .so has AOTInductorGetLastError (tests the torch-2.11 path) */
    const char *ign = getenv("AOTIDBG_RUNNER_IGNORE_LAST_ERROR");
    if (!(ign && *ign && strcmp(ign, "0")))
        m->last_error = (aoti_last_error_fn)dlsym(m->dl, "AOTInductorGetLastError");
    m->is_cuda = !strncmp(device, "cuda", 4);
    uint64_t mark = stap_mark();
    if (m->create(&m->h, 1, device, cubin_dir && *cubin_dir ? cubin_dir : NULL) != 0 || !m->h) {
        strbuf_addf(err, "%s: creating the model on device %s failed: ", so_path, device);
        add_last_error(m, err, mark, "see the runner's stderr for the model's message");
        m->h = NULL;
        return -1;
    }
    if (m->num_inputs(m->h, &m->n_inputs) || m->num_outputs(m->h, &m->n_outputs) ||
        m->n_inputs > MODEL_MAX_IO || m->n_outputs > MODEL_MAX_IO) {
        strbuf_addf(err, "%s: the model container did not report its inputs and outputs", so_path);
        return -1;
    }
    m->input_names = calloc(m->n_inputs ? m->n_inputs : 1, sizeof *m->input_names);
    for (size_t i = 0; i < m->n_inputs; i++)
        if (m->input_name(m->h, i, &m->input_names[i]) || !m->input_names[i]) m->input_names[i] = "";
    return 0;
}

int model_run(model_so *m, AtenTensorHandle *inputs, size_t n_inputs, AtenTensorHandle *outputs, strbuf *err)
{
    if (n_inputs != m->n_inputs) {   /* a wrong count throws across the C boundary: never call */
        strbuf_addf(err, "model takes %zu inputs, the spec gives %zu", m->n_inputs, n_inputs);
        return -1;
    }
    uint64_t mark = stap_mark();
    if (m->run(m->h, inputs, n_inputs, outputs, m->n_outputs, NULL, NULL) != 0) {
        add_last_error(m, err, mark, "model run failed; see stderr");
        return -1;
    }
    if (m->is_cuda && !m->no_post_check) {   /* kernels run asynchronously: a fault shows only now */
        char text[512];
        if (tabi_cuda_sync_check(text, sizeof text)) {
            m->cuda_failed = 1;
            strbuf_addstr(err, text);
            return -1;
        }
    }
    return 0;
}

void model_unload(model_so *m)
{
    if (m->h) m->destroy(m->h);
    m->h = NULL;
    free(m->input_names);
    m->input_names = NULL;
}
