/* model_so.c — loading and running an AOTI model .so (model_so.h). */
#define _GNU_SOURCE
#include "model_so.h"
#include "compat.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stderr_tap.h"
#include "torch_abi.h"

/* The container's message: its own API, else what it printed on our stderr since mark. */
static void add_last_error(model_so *m, strbuf *err, uint64_t mark, const char *fallback)
{
    const char *msg = NULL;
    if (m->last_error && m->last_error(&msg) == 0 && msg && *msg) strbuf_addstr(err, msg);
    else if (!stap_model_error(mark, err)) strbuf_addstr(err, fallback);
}

/* "<dir>/<stem>.json" beside the .so: the proxy executor's node list. */
static int has_proxy_json(const char *so_path)
{
    size_t n = strlen(so_path);
    if (!ends_with(so_path, ".so")) return 0;
    char *j = malloc(n + 3);
    if (!j) return 0;
    memcpy(j, so_path, n - 3);
    memcpy(j + n - 3, ".json", 6);
    int ok = access(j, R_OK) == 0;
    free(j);
    return ok;
}

/* The external weights blob, as torch's loader finds it: a *.blob file in the
 * model's folder. 0 none, 1 found (*path malloc'd), -1 ambiguous (err). */
static int find_blob(const char *dir, char **path, strbuf *err)
{
    *path = NULL;
    DIR *d = dir && *dir ? opendir(dir) : NULL;
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".blob")) continue;
        if (++n > 1) {
            strbuf_addf(err, "%s holds more than one weights *.blob (%s and %s): which one the model needs is not "
                        "recorded; keep the one the package shipped", dir, strrchr(*path, '/') + 1, e->d_name);
            break;
        }
        strbuf p = STRBUF_INIT;
        strbuf_addf(&p, "%s/%s", dir, e->d_name);
        *path = strbuf_detach(&p, NULL);
    }
    closedir(d);
    if (n > 1) {
        free(*path);
        *path = NULL;
        return -1;
    }
    return n;
}

/* binary_blob weights: the file must hold what the model asks for; it is
 * mapped, copied in by the model, and unmapped (as torch's runner does). */
static int load_blob(model_so *m, const char *so_path, const char *blob, strbuf *err)
{
    aoti_blob_size_fn size_fn = (aoti_blob_size_fn)dlsym(m->dl, "AOTInductorModelContainerGetConstantsBlobSize");
    aoti_from_blob_fn from_fn = (aoti_from_blob_fn)dlsym(m->dl, "AOTInductorModelUpdateConstantsFromBlob");
    if (!size_fn || !from_fn) {
        strbuf_addf(err, "%s: the package carries weights outside the .so (%s), but the model exports no "
                    "AOTInductorModelUpdateConstantsFromBlob: it was built by a torch too old to load them; "
                    "rebuild the package with this torch", so_path, blob);
        return -1;
    }
    uint64_t want = 0;
    uint64_t mark = stap_mark();
    if (size_fn(m->h, &want) != 0) {
        strbuf_addf(err, "%s: the model did not say how large its weights are: ", so_path);
        add_last_error(m, err, mark, "see the runner's stderr");
        return -1;
    }
    int fd = open(blob, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        strbuf_addf(err, "%s: cannot read the weights: %s", blob, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size < want) {
        strbuf_addf(err, "%s: the weights file holds %lld bytes, but the model needs %llu: a truncated or "
                    "mismatched blob; copy the package again or rebuild it", blob, (long long)st.st_size,
                    (unsigned long long)want);
        close(fd);
        return -1;
    }
    void *p = want ? mmap(NULL, (size_t)want, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (p == MAP_FAILED) {
        strbuf_addf(err, "%s: mapping %llu bytes of weights failed: %s", blob, (unsigned long long)want,
                    strerror(errno));
        return -1;
    }
    mark = stap_mark();
    int bad = want && from_fn(m->h, (const uint8_t *)p) != 0;
    if (p) munmap(p, (size_t)want);   /* the model copied them into its own buffers */
    if (bad) {
        strbuf_addf(err, "%s: loading the weights from %s failed: ", so_path, blob);
        add_last_error(m, err, mark, "see the runner's stderr");
        return -1;
    }
    m->weights_bytes = want;
    return 0;
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
    m->is_cuda = starts_with(device, "cuda");
    snprintf(m->device, sizeof m->device, "%s", device);
    uint64_t mark = stap_mark();
    const char *cdir = cubin_dir && *cubin_dir ? cubin_dir : NULL;
    if (has_proxy_json(so_path)) {
        char terr[2048] = "";
        void *h = NULL, *px = NULL;
        if (tcxx_runner_create(so_path, device, cdir, &m->torch_runner, &h, &px, terr, sizeof terr) || !h) {
            strbuf_addf(err, "%s: creating the model (with its proxy executor, for ops without a C shim) on "
                        "device %s failed: %s", so_path, device, terr);
            if (strstr(terr, "Could not find schema"))
                strbuf_addstr(err, " (an op the package calls is not registered in the runner: a C++ custom op "
                                   "needs its library loaded, e.g. LD_PRELOAD=/path/libmy_ops.so aotidbg ...; a "
                                   "Python op (torch.library.custom_op) can only run inside Python)");
            strbuf e2 = STRBUF_INIT;
            if (stap_model_error(mark, &e2)) strbuf_addf(err, "; %s", e2.buf);
            strbuf_release(&e2);
            return -1;
        }
        m->h = h;
        m->proxy = px;
    } else if (m->create(&m->h, 1, device, cdir) != 0 || !m->h) {
        strbuf_addf(err, "%s: creating the model on device %s failed: ", so_path, device);
        add_last_error(m, err, mark, "see the runner's stderr for the model's message");
        m->h = NULL;
        return -1;
    }
    char *blob = NULL;
    int nb = find_blob(cdir, &blob, err);
    if (nb < 0) return -1;
    if (nb > 0) {
        int bad = load_blob(m, so_path, blob, err);
        if (bad) {
            free(blob);
            return -1;
        }
        m->weights_path = blob;
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

/* Maps a whole weights file copy-on-write (a model may write into mutable
 * buffers); the mapping lives until model_unload. NULL with err. */
static char *map_file(model_so *m, const char *path, uint64_t need, strbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size < need) {
        strbuf_addf(err, "%s holds %lld bytes, but the tensor needs %llu (truncated or mismatched weights file)",
                    path, (long long)st.st_size, (unsigned long long)need);
        close(fd);
        return NULL;
    }
    size_t n = st.st_size ? (size_t)st.st_size : 1;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        strbuf_addf(err, "%s: mapping %zu bytes failed: %s", path, n, strerror(errno));
        return NULL;
    }
    void *nm = realloc(m->maps, (m->nmaps + 1) * sizeof *m->maps);
    if (!nm) abort();
    m->maps = nm;
    m->maps[m->nmaps].p = p;
    m->maps[m->nmaps].n = n;
    m->nmaps++;
    return p;
}

/* One CONSTANT as a tensor handle of the model's dtype and device. */
static int constant_tensor(model_so *m, const model_constant *c, int32_t dcode, AtenTensorHandle *out, strbuf *err)
{
    const dtype_entry *dt = tabi_dtype_by_code(dcode);
    if (!dt) {
        strbuf_addf(err, "weight %s: the model keeps it in dtype code %d, which aotidbg cannot make", c->fqn,
                    (int)dcode);
        return -1;
    }
    if (c->dtype && *c->dtype && strcmp(c->dtype, dt->name)) {
        strbuf_addf(err, "weight %s: the file holds %s, the model needs %s", c->fqn, c->dtype, dt->name);
        return -1;
    }
    if (c->ndim < 0 || c->ndim > TENSOR_MAX_DIMS || c->storage_offset < 0) {
        strbuf_addf(err, "weight %s: bad shape (%d dims, storage offset %lld)", c->fqn, c->ndim,
                    (long long)c->storage_offset);
        return -1;
    }
    /* the furthest element, in elements from the storage's start */
    uint64_t last = (uint64_t)c->storage_offset, numel = 1;
    for (int d = 0; d < c->ndim; d++) {
        if (c->shape[d] < 0 || c->strides[d] < 0) {
            strbuf_addf(err, "weight %s: negative size or stride in dim %d", c->fqn, d);
            return -1;
        }
        numel *= (uint64_t)c->shape[d];
        if (c->shape[d] > 0) last += (uint64_t)(c->shape[d] - 1) * (uint64_t)c->strides[d];
    }
    uint64_t need = c->offset + (numel ? (last + 1) * dt->itemsize : 0);
    size_t mark = err->len;
    strbuf_addf(err, "weight %s: ", c->fqn);
    char *base = map_file(m, c->path, need, err);
    if (!base) return -1;
    strbuf_setlen(err, mark);
    AtenTensorHandle host = NULL;
    if (aoti_torch_create_tensor_from_blob(base + c->offset, c->ndim, c->shape, c->strides, c->storage_offset,
                                           dt->code, tabi_device_cpu(), 0, &host)) {
        strbuf_addf(err, "weight %s: torch refused to wrap it (see stderr)", c->fqn);
        return -1;
    }
    if (!m->is_cuda) {
        *out = host;
        return 0;
    }
    int32_t dt_cuda, di;
    tabi_parse_device(m->device, 0, &dt_cuda, &di);
    AtenTensorHandle dev = NULL;
    if (aoti_torch_empty_strided(c->ndim, c->shape, c->strides, dt->code, dt_cuda, di, &dev) ||
        aoti_torch_copy_(dev, host, 0)) {
        strbuf_addf(err, "weight %s: copying it to %s failed (see stderr: out of memory?)", c->fqn, m->device);
        aoti_torch_delete_tensor_object(host);
        return -1;
    }
    aoti_torch_delete_tensor_object(host);
    *out = dev;
    return 0;
}

int model_set_constants(model_so *m, const model_constant *c, size_t n, strbuf *err)
{
    aoti_get_count_fn count = (aoti_get_count_fn)dlsym(m->dl, "AOTInductorModelContainerGetNumConstants");
    aoti_const_name_fn name_of = (aoti_const_name_fn)dlsym(m->dl, "AOTInductorModelContainerGetConstantName");
    aoti_const_name_fn fqn_of = (aoti_const_name_fn)dlsym(m->dl, "AOTInductorModelContainerGetConstantOriginalFQN");
    aoti_const_i32_fn dtype_of = (aoti_const_i32_fn)dlsym(m->dl, "AOTInductorModelContainerGetConstantDtype");
    aoti_const_bool_fn folded = (aoti_const_bool_fn)dlsym(m->dl, "AOTInductorModelContainerGetConstantFromFolded");
    void *update = dlsym(m->dl, "AOTInductorModelContainerUpdateUserManagedConstantBuffer");
    if (!update) update = dlsym(m->dl, "AOTInductorModelContainerUpdateConstantBuffer");
    size_t nc = 0;
    if (!count || !name_of || !fqn_of || !dtype_of || !update || count(m->h, &nc) || nc > MODEL_MAX_IO * 16) {
        strbuf_addstr(err, "the model .so does not list its constants (AOTInductorModelContainerGetNumConstants "
                           "and friends): it was built by a torch too old to take weights from outside");
        return -1;
    }
    const char **names = calloc(n ? n : 1, sizeof *names);
    AtenTensorHandle *handles = calloc(n ? n : 1, sizeof *handles);
    unsigned char *given = calloc(nc ? nc : 1, 1);
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = nc;
        for (size_t j = 0; j < nc && k == nc; j++) {
            const char *nm = NULL, *fq = NULL;
            name_of(m->h, j, &nm);
            fqn_of(m->h, j, &fq);
            if ((fq && !strcmp(fq, c[i].fqn)) || (nm && !strcmp(nm, c[i].fqn))) k = j;
        }
        if (k == nc) {
            strbuf_addf(err, "weight %s: the model has no constant of that name; it has:", c[i].fqn);
            for (size_t j = 0; j < nc && j < 20; j++) {
                const char *fq = NULL;
                fqn_of(m->h, j, &fq);
                strbuf_addf(err, " %s", fq ? fq : "?");
            }
            goto out;
        }
        int32_t dcode = 0;
        dtype_of(m->h, k, &dcode);
        name_of(m->h, k, &names[i]);
        if (constant_tensor(m, &c[i], dcode, &handles[i], err)) goto out;
        given[k] = 1;
    }
    for (size_t j = 0; j < nc; j++) {   /* torch checks the update is full; say which are missing */
        _Bool f = 0;
        if (given[j] || (folded && folded(m->h, j, &f) == 0 && f)) continue;
        const char *fq = NULL;
        fqn_of(m->h, j, &fq);
        strbuf_addf(err, "the weights given leave out %s (and every constant must be given)", fq ? fq : "?");
        goto out;
    }
    char terr[1024] = "";
    uint64_t mark = stap_mark();
    if (tcxx_update_constants(update, m->h, names, (void *const *)handles, n, 0, 1, terr, sizeof terr)) {
        strbuf_addf(err, "loading the weights into the model failed: %s", terr);
        strbuf e2 = STRBUF_INIT;
        if (stap_model_error(mark, &e2)) strbuf_addf(err, "; %s", e2.buf);
        strbuf_release(&e2);
        goto out;
    }
    rc = 0;   /* user-managed: the model uses our tensors from now on; they stay */
out:
    free(names);
    free(handles);
    free(given);
    return rc;
}

/* The text of the last exception a libtorch shim call caught on this thread (torch 2.10+'s
 * torch_exception_get_what_without_backtrace, stable/c/shim.h; NULL on older torch or none): the
 * shim returns only an error code, and the model's message names the call, not why it failed
 * (gloo's "Timed out waiting 8000ms for recv operation" behind a failed wait_tensor). */
static const char *shim_exception(void)
{
    static const char *(*what)(void);
    static int looked;
    if (!looked) {
        looked = 1;
        *(void **)&what = dlsym(RTLD_DEFAULT, "torch_exception_get_what_without_backtrace");
    }
    const char *w = what ? what() : NULL;
    return w && *w && strcmp(w, "UNKNOWN") ? w : NULL;
}

int model_run(model_so *m, AtenTensorHandle *inputs, size_t n_inputs, AtenTensorHandle *outputs, strbuf *err)
{
    if (n_inputs != m->n_inputs) {   /* a wrong count throws across the C boundary: never call */
        strbuf_addf(err, "model takes %zu inputs, the spec gives %zu", m->n_inputs, n_inputs);
        return -1;
    }
    uint64_t mark = stap_mark();
    const char *seen = shim_exception();   /* one caught before this run is not its cause */
    char *before = seen ? strdup(seen) : NULL;
    if (m->run(m->h, inputs, n_inputs, outputs, m->n_outputs, NULL, m->proxy) != 0) {
        add_last_error(m, err, mark, "model run failed; see stderr");
        const char *why = shim_exception();
        if (why && (!before || strcmp(before, why)))
            strbuf_addf(err, "\nthe shim call's exception: %s", why);
        free(before);
        return -1;
    }
    free(before);
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
    if (m->torch_runner) tcxx_runner_free(m->torch_runner);   /* deletes the container */
    else if (m->h) m->destroy(m->h);
    m->torch_runner = NULL;
    m->h = NULL;
    m->proxy = NULL;
    free(m->weights_path);
    m->weights_path = NULL;
    for (size_t i = 0; i < m->nmaps; i++) munmap(m->maps[i].p, m->maps[i].n);
    free(m->maps);
    m->maps = NULL;
    m->nmaps = 0;
    free(m->input_names);
    m->input_names = NULL;
}
