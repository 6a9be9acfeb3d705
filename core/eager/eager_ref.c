/* eager_ref.c — the eager reference: cache, helper, manifest (eager_ref.h). */
#define _GNU_SOURCE
#include "eager_ref.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "compat.h"
#include "eager_program.h"
#include "eager_weights.h"
#include "inputs.h"
#include "package.h"
#include "paths.h"
#include "proto_spawn.h"
#include "tensor_file.h"

#define MANIFEST_MAX (64u << 20)   /* bytes of manifest read */
#define HELPER "aotidbg_eager.py"
#define RECORD_HELPER "aotidbg_record.py"   /* the compiler's buffer -> node record (EAGER_MAP_COMPILER) */

/* One kernel call the runner's reference covers (the manifest's calls, in order). */
typedef struct {
    const char *kernel;
    size_t occurrence;
    eager_call_refs refs;      /* in prog's arena */
} runner_call;

struct eager_ref {
    arena ar;                  /* strings and arrays of the messages */
    char *dir;                 /* the key's folder */
    char *manifest;            /* its manifest file */
    char *log;                 /* the helper's output */
    pid_t pid;                 /* the helper (or the runner) while it runs; -1 none */
    int ready;
    /* the reference computed by the runner with libtorch (eager_program.h), Python the fallback */
    int by_runner;             /* pid is `aotidbg-runner --eager-ref` */
    /* ... or a fork of the model's runner (eager_main.h eager_ref_fork): its status pipe, read end
     * and (until that runner started) write end; the pid it said, its "rc" (-1 not yet) */
    int fork_rd, fork_wr;
    pid_t fork_pid;
    strbuf fork_said;
    char *fork_env[4];
    char *plan;                /* the plan, for `--eager-ref PLAN` when no fork took it */
    eager_program *prog;
    runner_call *rcalls;
    size_t nrcalls;
    char *runner_log;
    strbuf why_python;         /* why the runner did not compute it ("" = it did, or was not asked) */
    char *py_argv[20];         /* the Python helper's command, kept for the fallback */
    const char *computed_by;   /* "runner" or "python": who computes it, then who did (the manifest) */
    double atol, rtol;
    proto_msg *msgs;
    size_t nmsgs, capmsgs, ncalls;
    strbuf summary;
    /* the program's weights for the runner to compare with the package's (eager_weights.h):
     * WEIGHT_CHECKs appended to msgs once the references are ready */
    char *program;             /* the program's absolute path */
    size_t nchecks;
    strbuf why_no_checks;      /* why there are none ("" = there are, or the program has no weights) */
    eager_map map;             /* EAGER_MAP_COMPILER: refs name their tensor (the manifest's record) */
    strbuf map_note;           /* what the record did not cover ("" all) */
};

int eager_map_from_name(const char *s)
{
    if (!s) return EAGER_MAP_DEFAULT;
    if (!strcmp(s, "compiler")) return EAGER_MAP_COMPILER;
    if (!strcmp(s, "names")) return EAGER_MAP_NAMES;
    return -1;
}

/* The map a run uses: m, or the default ($AOTIDBG_EAGER_MAP, else compiler). */
static eager_map eager_map_effective(eager_map m)
{
    if (m != EAGER_MAP_DEFAULT) return m;
    int e = eager_map_from_name(getenv("AOTIDBG_EAGER_MAP"));
    return e > 0 ? (eager_map)e : EAGER_MAP_COMPILER;
}

/* Appends the WEIGHT_CHECKs after the REFERENCEs (one array: the runner gets both before RUN). */
static void add_weight_checks(eager_ref *r)
{
    proto_msg *m;
    size_t n = 0;
    if (!r->program || eager_weights_checks(r->program, r->prog, &r->ar, &m, &n, &r->why_no_checks) < 0)
        return;
    for (size_t i = 0; i < n; i++) {
        r->msgs = arena_grow(&r->ar, r->msgs, r->nmsgs, &r->capmsgs, sizeof *r->msgs, 64);
        r->msgs[r->nmsgs++] = m[i];
    }
    r->nchecks = n;
}

static int sha256_hex(const void *data, size_t n, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        return -1;
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return 0;
}

/* The helper: installed under <data>/prepare, or in the source tree. */
static char *find_helper(const char *name)
{
    const char *dd = aotidbg_data_dir();
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "prepare/%s", name);
    char *p = path_join(dd, sb.buf);
    if (access(p, R_OK) == 0) {
        strbuf_release(&sb);
        return p;
    }
    free(p);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "core/prepare/%s", name);
    p = path_join(dd, sb.buf);
    strbuf_release(&sb);
    if (access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}

/* $AOTIDBG_PYTHON, else the python3 whose torch the build found (when it is here: the record needs
 * that torch, and a shell's PATH may lead to another python3), else python3 on PATH. */
static const char *python(void)
{
    const char *py = getenv("AOTIDBG_PYTHON");
    if (py && *py)
        return py;
#ifdef AOTIDBG_BUILD_PYTHON
    if (access(AOTIDBG_BUILD_PYTHON, X_OK) == 0)
        return AOTIDBG_BUILD_PYTHON;
#endif
    return "python3";
}

static int mkdirs(const char *path, strbuf *err)
{
    char *p = xstrdup(path);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            strbuf_addf(err, "cannot make %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        if (!(*s = c))
            break;
    }
    free(p);
    return 0;
}

/* Writes text to path through a temporary name (never half a file). */
static int write_file(const char *path, const char *text, strbuf *err)
{
    strbuf tmp = STRBUF_INIT;
    strbuf_addf(&tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp.buf, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f))
        ok = 0;
    if (!ok || rename(tmp.buf, path)) {
        strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp.buf);
        strbuf_release(&tmp);
        return -1;
    }
    strbuf_release(&tmp);
    return 0;
}

/* ---- what the helper is given ------------------------------------------------ */

/* The inputs as the runner makes them. A fill: file input is given by the
 * SHA-256 of its bytes (sha[i]: what the cache key needs) and, when raw is
 * not NULL, by its materialised raw file (what the helper reads). */
static char *inputs_json(const session *s, char *const *raw, char (*sha)[65])
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "inputs");
    for (size_t i = 0; i < s->ninputs; i++) {
        const input_spec *in = &s->inputs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON *shape = cJSON_AddArrayToObject(o, "shape");
        for (int d = 0; d < in->ndim; d++)
            cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)in->shape[d]));
        cJSON_AddStringToObject(o, "dtype", in->dtype ? in->dtype : "float32");
        cJSON_AddStringToObject(o, "fill", fill_kind_name(in->fill));
        char seed[32];   /* raw digits: a double cannot hold every uint64 */
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)in->seed);
        cJSON_AddRawToObject(o, "seed", seed);
        cJSON_AddNumberToObject(o, "value", in->value);
        if (in->fill == FILL_FILE) {
            cJSON_AddStringToObject(o, "sha256", sha[i]);
            if (raw) {
                cJSON_AddStringToObject(o, "file", raw[i]);
                cJSON_AddBoolToObject(o, "raw", 1);
            }
        }
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return out;
}

/* Call i's graph nodes (pre_grad_nodes, else the source-node comment) and
 * its occurrence among the launches of its kernel; returns how many nodes. */
static size_t own_nodes(const kernel_call *c, const char *const **nodes)
{
    *nodes = (const char *const *)(c->npre ? c->pre_grad : c->nodes);
    return c->npre ? c->npre : c->nnodes;
}

/* The node library call j computes: of the nodes it names, the last in graph order (prog: the
 * program, NULL: the last it lists, its comment being topologically sorted). The others are
 * its inputs' chain: an addmm on CUDA names the layer norm and the adds its input's Triton
 * kernel fused ([..., add, layer_norm, linear]), which that kernel writes. NULL: it names none. */
static const char *library_output(const call_table *ct, size_t j, const eager_program *prog)
{
    const char *const *jn;
    size_t n = own_nodes(&ct->calls[j], &jn);
    const char *out = n ? jn[n - 1] : NULL;
    long best = -1;
    for (size_t k = 0; prog && k < n; k++) {
        long at = eager_program_index(prog, jn[k]);
        if (at > best) {
            best = at;
            out = jn[k];
        }
    }
    return out;
}

/* Node is what a library call after generated call i computes: the Triton kernel that lays out
 * q/k/v for cuDNN attention names the attention node, which the attention call makes. */
static int later_library_call_makes(const call_table *ct, size_t i, const char *node, const eager_program *prog)
{
    if (kernel_type_guess(ct->calls[i].kernel) == KTYPE_EXTERN)
        return 0;
    for (size_t j = i + 1; j < ct->ncalls; j++) {
        if (kernel_type_guess(ct->calls[j].kernel) != KTYPE_EXTERN)
            continue;
        const char *out = library_output(ct, j, prog);
        if (out && !strcmp(out, node))
            return 1;
    }
    return 0;
}

/* Extern call i computes node without its bias, which a later generated kernel adds: on a GPU
 * Inductor peels a convolution's bias off and unfuses an addmm whose users are pointwise into
 * mm + add, and the kernel that adds it names the node with the op's ATen. */
static int bias_added_later(const call_table *ct, size_t i, const char *node)
{
    const char *k = ct->calls[i].kernel, *aten = strstr(k, "convolution") ? "aten.convolution"
                                                : strstr(k, "mm_out") && !strstr(k, "addmm") ? "aten.addmm" : NULL;
    if (!aten || kernel_type_guess(k) != KTYPE_EXTERN)
        return 0;
    for (size_t j = i + 1; j < ct->ncalls; j++) {
        const kernel_call *c = &ct->calls[j];
        if (kernel_type_guess(c->kernel) == KTYPE_EXTERN)
            continue;
        int names = 0, has_op = 0;
        const char *const *nodes;
        for (size_t n = own_nodes(c, &nodes), m = 0; m < n; m++)
            names |= !strcmp(nodes[m], node);
        for (size_t m = 0; m < c->naten; m++)
            has_op |= !strcmp(c->aten[m], aten);
        if (names && has_op)
            return 1;
    }
    return 0;
}

/* Graph-order bounds of the nodes call j names: -1 when it names none the program has. */
static int named_span(const call_table *ct, size_t j, const eager_program *prog, long *lo, long *hi)
{
    const char *const *nodes;
    *lo = *hi = -1;
    for (size_t k = 0, n = own_nodes(&ct->calls[j], &nodes); k < n; k++) {
        long at = eager_program_index(prog, nodes[k]);
        if (at < 0)
            continue;
        if (*lo < 0 || at < *lo)
            *lo = at;
        if (at > *hi)
            *hi = at;
    }
    return *lo < 0 ? -1 : 0;
}

/* A call that names no node (a CPU cpp_fused_* kernel of a package built without
 * provenance): the graph values after the last that the closest earlier
 * naming call names and before the last of the closest later one (its
 * output), as the launch order puts it there. A value that is not among them does not leave the kernel's output
 * unclaimed: the runner reports only what some output holds. */
static size_t between_nodes(const call_table *ct, size_t i, const eager_program *prog, arena *a,
                            const char ***nodes)
{
    enum { GRAPH_INPUTS_MAX = 64 };
    long lo = -1, hi = (long)eager_program_nvalues(prog), l, h;
    size_t next = ct->ncalls;
    for (size_t j = i; j-- > 0;)
        if (named_span(ct, j, prog, &l, &h) == 0) {
            lo = h;
            break;
        }
    for (size_t j = i + 1; j < ct->ncalls; j++)
        if (named_span(ct, j, prog, &l, &h) == 0) {
            hi = h;   /* not l: a library call names the nodes its input's kernel fused too */
            next = j;
            break;
        }
    size_t m = 0;
    *nodes = arena_alloc(a, (size_t)(hi - lo > 1 ? hi - lo - 1 : 0) * sizeof **nodes + GRAPH_INPUTS_MAX * sizeof **nodes);
    for (long k = lo + 1; k < hi; k++) {
        const char *v = eager_program_value(prog, (size_t)k);
        if (v)
            (*nodes)[m++] = v;
    }
    /* no value between: a kernel that lays out the next call's graph inputs (a CPU convolution's
     * input and weight reordered) holds those inputs */
    const char *const *own;
    for (size_t k = 0, n = next < ct->ncalls && !m ? own_nodes(&ct->calls[next], &own) : 0;
         k < n && m < GRAPH_INPUTS_MAX; k++) {
        const char *in[GRAPH_INPUTS_MAX];
        size_t got = eager_program_graph_inputs(prog, own[k], in, GRAPH_INPUTS_MAX - m);
        for (size_t g = 0; g < got; g++) {
            size_t d = 0;
            while (d < m && strcmp((*nodes)[d], in[g]))
                d++;
            if (d == m)
                (*nodes)[m++] = in[g];
        }
    }
    return m;
}

/* A later generated call names node too. */
static int named_later(const call_table *ct, size_t i, const char *node)
{
    for (size_t j = i + 1; j < ct->ncalls; j++) {
        const char *const *nodes;
        if (kernel_type_guess(ct->calls[j].kernel) == KTYPE_EXTERN)
            continue;
        for (size_t n = own_nodes(&ct->calls[j], &nodes), k = 0; k < n; k++)
            if (!strcmp(nodes[k], node))
                return 1;
    }
    return 0;
}

/* An earlier call names node too. */
static int named_before(const call_table *ct, size_t i, const char *node)
{
    for (size_t j = 0; j < i; j++) {
        const char *const *nodes;
        for (size_t n = own_nodes(&ct->calls[j], &nodes), k = 0; k < n; k++)
            if (!strcmp(nodes[k], node))
                return 1;
    }
    return 0;
}

size_t eager_ref_call_nodes(const call_table *ct, size_t i, const eager_program *prog, arena *a,
                            const char ***nodes, size_t *occ)
{
    const kernel_call *c = &ct->calls[i];
    *occ = 0;
    for (size_t j = 0; j < i; j++)
        *occ += !strcmp(ct->calls[j].kernel, c->kernel);
    const char *const *own;
    size_t n = own_nodes(c, &own), m = 0;
    if (!n && prog && kernel_type_guess(c->kernel) != KTYPE_EXTERN)
        return between_nodes(ct, i, prog, a, nodes);
    enum { LAYOUT_INPUTS_MAX = 64 };
    const char **keep = n ? arena_alloc(a, (n + LAYOUT_INPUTS_MAX) * sizeof *keep) : NULL;
    for (size_t k = 0; k < n; k++)
        if (!later_library_call_makes(ct, i, own[k], prog))
            keep[m++] = own[k];
    size_t kept = m;
    /* every node it names is the later library call's, or an earlier call's (its input): it lays
     * out the library call's graph inputs (the Triton kernels that copy a CUDA convolution's input
     * and weight to channels-last) */
    size_t fresh = 0;
    for (size_t k = 0; k < kept; k++)
        fresh += !named_before(ct, i, keep[k]);
    for (size_t k = 0; !fresh && kept < n && prog && k < n; k++) {
        if (!later_library_call_makes(ct, i, own[k], prog))
            continue;
        const char *in[LAYOUT_INPUTS_MAX];
        size_t got = eager_program_graph_inputs(prog, own[k], in, LAYOUT_INPUTS_MAX);
        for (size_t g = 0; g < got && m < n + LAYOUT_INPUTS_MAX; g++) {
            size_t d = 0;
            while (d < m && strcmp(keep[d], in[g]))
                d++;
            if (d == m)
                keep[m++] = in[g];
        }
    }
    *nodes = keep;
    return m;
}

size_t eager_ref_call_refs(const call_table *ct, size_t i, eager_program *prog, arena *a, eager_call_refs *out,
                           size_t *occ)
{
    const char **nodes;
    size_t n = eager_ref_call_nodes(ct, i, prog, a, &nodes, occ);
    memset(out, 0, sizeof *out);
    if (!n)
        return 0;
    eager_program_refs(prog, nodes, n, out);
    for (size_t k = 0; k < out->nrefs; k++) {   /* its output holds the node less its bias */
        const char *nb = bias_added_later(ct, i, out->refs[k]) ? eager_program_without_bias(prog, out->refs[k]) : NULL;
        if (nb)
            out->refs[k] = nb;
    }
    /* an update of a graph input (a kv-cache's index_put) that a later generated kernel finishes:
     * this one copies the input first, and its output holds that input */
    const char **refs = arena_alloc(a, (out->nrefs + n) * sizeof *refs);
    memcpy(refs, out->refs, out->nrefs * sizeof *refs);
    for (size_t k = 0; kernel_type_guess(ct->calls[i].kernel) != KTYPE_EXTERN && k < n; k++) {
        const char *u = named_later(ct, i, nodes[k]) ? eager_program_updated_input(prog, nodes[k]) : NULL;
        size_t d = 0;
        while (u && d < out->nrefs && strcmp(refs[d], u))
            d++;
        if (u && d == out->nrefs)
            refs[out->nrefs++] = u;
    }
    out->refs = refs;
    return n;
}

/* A call with no stack traces of its own (a package built without provenance)
 * gets those of the nodes it is compared on, as the program keeps them, its
 * last nodes (its output) first: the user's line it comes from. */
static void stacks_from_program(session *s, const eager_program *prog)
{
    enum { MAX_STACKS = 4 };
    call_table *ct = &s->prov;
    arena tmp = {0};
    for (size_t i = 0; i < ct->ncalls; i++) {
        kernel_call *c = &ct->calls[i];
        const char **nodes;
        size_t occ, n = c->nstack ? 0 : eager_ref_call_nodes(ct, i, prog, &tmp, &nodes, &occ), m = 0;
        const char **st = n ? arena_alloc(&s->arena, MAX_STACKS * sizeof *st) : NULL;
        for (size_t k = n; k-- > 0 && m < MAX_STACKS;) {
            const char *t = eager_program_stack(prog, nodes[k]);
            int dup = !t;
            for (size_t j = 0; j < m && !dup; j++)
                dup = !strcmp(st[j], t);
            if (!dup)
                st[m++] = arena_strdup(&s->arena, t);
        }
        if (m) {
            c->stack = st;
            c->nstack = m;
        }
    }
    arena_release(&tmp);
}

/* The calls with their nodes, for the Python helper. */
static char *calls_json(const session *s, const eager_program *prog, size_t *ncalls)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "calls");
    const call_table *ct = &s->prov;
    arena tmp = {0};
    *ncalls = 0;
    for (size_t i = 0; i < ct->ncalls; i++) {
        const kernel_call *c = &ct->calls[i];
        size_t occ;
        const char **nodes;
        size_t n = eager_ref_call_nodes(ct, i, prog, &tmp, &nodes, &occ);
        if (!n)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "kernel", c->kernel);
        cJSON_AddNumberToObject(o, "occurrence", (double)occ);
        cJSON_AddItemToObject(o, "nodes", cJSON_CreateStringArray(nodes, (int)n));
        cJSON *nb = cJSON_AddArrayToObject(o, "no_bias");   /* its output holds these less their bias */
        for (size_t k = 0; k < n; k++)
            if (bias_added_later(ct, i, nodes[k]))
                cJSON_AddItemToArray(nb, cJSON_CreateString(nodes[k]));
        (*ncalls)++;
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    arena_release(&tmp);
    return out;
}

/* Every call with the buffers it makes (kernel_call.defines), for aotidbg_record.py. */
static char *record_calls_json(const session *s, size_t *ncalls)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "calls");
    const call_table *ct = &s->prov;
    *ncalls = 0;
    for (size_t i = 0; i < ct->ncalls; i++) {
        const kernel_call *c = &ct->calls[i];
        size_t occ = 0;
        for (size_t j = 0; j < i; j++)
            occ += !strcmp(ct->calls[j].kernel, c->kernel);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "kernel", c->kernel);
        cJSON_AddNumberToObject(o, "occurrence", (double)occ);
        cJSON_AddItemToObject(o, "defines", cJSON_CreateStringArray(c->defines, (int)c->ndefines));
        *ncalls += c->ndefines > 0;
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return out;
}

/* ---- the manifest -------------------------------------------------------------- */

static int node_name_ok(const char *n)
{
    if (!n || !*n || strlen(n) > 200 || (n[0] >= '0' && n[0] <= '9'))
        return 0;
    return strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(n);
}

static char *eager_ref_node_path(const char *dir, const char *node)
{
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/nodes/%s.npy", dir, node);
    return strbuf_detach(&sb, NULL);
}

/* A file the record names under the key's folder: relative, no "..", a plain name set. */
static int record_file_ok(const char *f)
{
    if (!f || !*f || strlen(f) > 300 || f[0] == '/' || strstr(f, ".."))
        return 0;
    return strspn(f, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") == strlen(f);
}

static char *dir_file(const char *dir, const char *fmt, const char *arg);

/* The header of the .npy at path (where its data is); -1 with err (the reference is incomplete). */
static int npy_header_at(const char *path, const char *dir, file_tensor *ft, strbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int rc = -1;
    if (fd < 0 || fstat(fd, &st) < 0)
        strbuf_addf(err, "%s: %s (the reference is incomplete: delete %s to compute it again)", path,
                    strerror(errno), dir);
    else if (npy_read_header(fd, (uint64_t)st.st_size, path, ft, err) == 0)
        rc = 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Where a float64 .npy's data starts; -1 when it is no float64 .npy. */
static int float64_offset(const char *path, const char *dir, uint64_t *off, strbuf *err)
{
    file_tensor ft;
    if (npy_header_at(path, dir, &ft, err) < 0)
        return -1;
    if (strcmp(ft.dtype, "float64")) {
        strbuf_addf(err, "%s: holds %s, not float64", path, ft.dtype);
        return -1;
    }
    *off = ft.offset;
    return 0;
}

/* One reference: the .npy's header says where its data is. */
static int add_ref(eager_ref *r, const char *kernel, uint32_t occ, const cJSON *ref, strbuf *err)
{
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(ref, "node");
    if (!cJSON_IsString(node) || !node_name_ok(node->valuestring)) {
        strbuf_addf(err, "%s: a reference of %s has no usable node name", r->manifest, kernel);
        return -1;
    }
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(ref, "file"),
                *file64 = cJSON_GetObjectItemCaseSensitive(ref, "file64"),
                *tensor = cJSON_GetObjectItemCaseSensitive(ref, "tensor");
    char *path = NULL, *path64 = NULL;
    if (r->map == EAGER_MAP_COMPILER) {   /* the record's: per buffer, under the key's folder */
        if (!cJSON_IsString(file) || !record_file_ok(file->valuestring) || !cJSON_IsString(tensor) ||
            !node_name_ok(tensor->valuestring) || (file64 && !cJSON_IsNull(file64) &&
                                                   (!cJSON_IsString(file64) || !record_file_ok(file64->valuestring)))) {
            strbuf_addf(err, "%s: a reference of %s has no usable file or tensor name", r->manifest, kernel);
            return -1;
        }
        path = dir_file(r->dir, "%s", file->valuestring);
        if (cJSON_IsString(file64))
            path64 = dir_file(r->dir, "%s", file64->valuestring);
    } else {
        path = eager_ref_node_path(r->dir, node->valuestring);
    }
    uint64_t offset64 = 0;
    if (path64 && float64_offset(path64, r->dir, &offset64, err) < 0) {
        free(path);
        free(path64);
        return -1;
    }
    file_tensor ft;
    int rc = npy_header_at(path, r->dir, &ft, err);
    if (rc == 0) {
        r->msgs = arena_grow(&r->ar, r->msgs, r->nmsgs, &r->capmsgs, sizeof *r->msgs, 64);
        proto_msg *m = &r->msgs[r->nmsgs++];
        memset(m, 0, sizeof *m);
        m->type = PROTO_REFERENCE;
        m->u.reference.kernel = arena_strdup(&r->ar, kernel);
        m->u.reference.occurrence = occ;
        m->u.reference.node = arena_strdup(&r->ar, node->valuestring);
        m->u.reference.path = arena_strdup(&r->ar, path);
        m->u.reference.offset = ft.offset;
        m->u.reference.dtype = ft.dtype;   /* static storage */
        m->u.reference.ndim = ft.ndim;
        m->u.reference.shape = arena_memdup(&r->ar, ft.shape, (size_t)ft.ndim * sizeof *ft.shape);
        m->u.reference.atol = r->atol;
        m->u.reference.rtol = r->rtol;
        const cJSON *scale = cJSON_GetObjectItemCaseSensitive(ref, "scale");
        m->u.reference.scale = cJSON_IsNumber(scale) && scale->valuedouble >= 0 ? scale->valuedouble : 0;
        m->u.reference.tensor = r->map == EAGER_MAP_COMPILER ? arena_strdup(&r->ar, tensor->valuestring) : "";
        m->u.reference.path64 = path64 ? arena_strdup(&r->ar, path64) : "";
        m->u.reference.offset64 = offset64;
    }
    free(path);
    free(path64);
    return rc;
}

static int read_manifest(eager_ref *r, strbuf *err)
{
    strbuf text = STRBUF_INIT;
    if (strbuf_read_file(&text, r->manifest, MANIFEST_MAX, err) < 0)
        return -1;
    cJSON *root = cJSON_ParseWithLength(text.buf, text.len);
    strbuf_release(&text);
    const cJSON *calls = root ? cJSON_GetObjectItemCaseSensitive(root, "calls") : NULL;
    if (!cJSON_IsArray(calls)) {
        strbuf_addf(err, "%s: not an aotidbg_eager manifest (no calls list); delete it to compute the reference "
                    "again", r->manifest);
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *c;
    r->ncalls = 0;
    enum { MISSING_MAX = 256 };
    strbuf missing = STRBUF_INIT;   /* nodes the package's kernels name that the program lacks */
    const char *missing_v[MISSING_MAX];
    size_t nmissing = 0;
    cJSON_ArrayForEach(c, calls)
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "kernel"),
                    *o = cJSON_GetObjectItemCaseSensitive(c, "occurrence"),
                    *refs = cJSON_GetObjectItemCaseSensitive(c, "refs");
        if (!cJSON_IsString(k) || !cJSON_IsNumber(o) || o->valuedouble < 0 || o->valuedouble > 1e9 ||
            o->valuedouble != floor(o->valuedouble) || !cJSON_IsArray(refs)) {
            strbuf_addf(err, "%s: a call without kernel, occurrence or refs", r->manifest);
            strbuf_release(&missing);
            cJSON_Delete(root);
            return -1;
        }
        const cJSON *ref, *miss = cJSON_GetObjectItemCaseSensitive(c, "missing"), *mn;
        if (!cJSON_IsArray(miss))
            miss = NULL;
        cJSON_ArrayForEach(mn, miss)
        {
            int seen = !cJSON_IsString(mn) || !node_name_ok(mn->valuestring);
            for (size_t j = 0; j < nmissing && j < MISSING_MAX && !seen; j++)
                seen = !strcmp(missing_v[j], mn->valuestring);
            if (seen)
                continue;
            if (nmissing < 3)
                strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", mn->valuestring);
            if (nmissing < MISSING_MAX)
                missing_v[nmissing] = mn->valuestring;
            nmissing++;
        }
        r->ncalls += cJSON_GetArraySize(refs) > 0;
        cJSON_ArrayForEach(ref, refs) if (add_ref(r, k->valuestring, (uint32_t)o->valuedouble, ref, err) < 0)
        {
            strbuf_release(&missing);
            cJSON_Delete(root);
            return -1;
        }
    }
    r->ready = 1;
    strbuf_addf(&r->summary, "eager reference: %zu node value%s for %zu kernel call%s (%s)", r->nmsgs,
                r->nmsgs == 1 ? "" : "s", r->ncalls, r->ncalls == 1 ? "" : "s", r->dir);
    if (r->map == EAGER_MAP_COMPILER) {
        const cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "record"),
                    *why = rec ? cJSON_GetObjectItemCaseSensitive(rec, "why") : NULL,
                    *torch = rec ? cJSON_GetObjectItemCaseSensitive(rec, "torch") : NULL;
        strbuf_addf(&r->summary, "; buffers named by the compiler's record (Inductor's origin nodes, lowered again "
                    "with torch %s)", cJSON_IsString(torch) ? torch->valuestring : "?");
        strbuf_reset(&r->map_note);
        if (cJSON_IsString(why) && *why->valuestring) {
            strbuf_addstr(&r->map_note, why->valuestring);
            strbuf_addf(&r->summary, "; %s", why->valuestring);
        }
    }
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "computed_by");
    r->computed_by = cJSON_IsString(by) && !strcmp(by->valuestring, "runner") ? "runner" : "python";
    strbuf_addf(&r->summary, ", computed by %s", cJSON_IsString(by) && !strcmp(by->valuestring, "runner")
                ? "the runner with libtorch" : r->map == EAGER_MAP_COMPILER ? "Python (aotidbg_record.py)"
                : "Python (aotidbg_eager.py)");
    if (r->why_python.len)
        strbuf_addf(&r->summary, " because the runner could not: %s", r->why_python.buf);
    if (nmissing)   /* the package was compiled from another graph: gelu became silu, a layer was added */
        strbuf_addf(&r->summary, "; a structural difference: the package's kernels name %zu node%s the program does "
                    "not have (%s%s)", nmissing, nmissing == 1 ? "" : "s", missing.buf, nmissing > 3 ? ", ..." : "");
    strbuf_release(&missing);
    cJSON_Delete(root);
    add_weight_checks(r);
    return 0;
}

/* ---- the helper ------------------------------------------------------------------ */

/* Starts argv with its output in log; r->pid gets it. */
static int spawn(eager_ref *r, char *const *argv, const char *log, strbuf *err)
{
    int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logfd < 0) {
        strbuf_addf(err, "cannot write %s: %s", log, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        strbuf_addf(err, "cannot start %s: %s", argv[0], strerror(errno));
        close(logfd);
        return -1;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        signal(SIGINT, SIG_IGN);   /* ^C is the front end's to handle */
        if (r->by_runner)
            proto_runner_env();
        execvp(argv[0], argv);
        dprintf(2, "aotidbg_eager: cannot start %s: %s (%s)\n", argv[0], strerror(errno),
                r->by_runner ? "set AOTIDBG_RUNNER" : "set AOTIDBG_PYTHON or put python3 with torch on PATH");
        _exit(2);
    }
    close(logfd);
    r->pid = pid;
    return 0;
}

static int spawn_python(eager_ref *r, strbuf *err)
{
    r->by_runner = 0;
    r->computed_by = "python";
    return spawn(r, r->py_argv, r->log, err);
}

/* A helper's own words: its last line starting with prefix, else the log's first line. */
static void helper_error(const char *path, const char *prefix, strbuf *err)
{
    strbuf log = STRBUF_INIT, e = STRBUF_INIT;
    const char *msg = NULL;
    if (strbuf_read_file(&log, path, 1u << 20, &e) == 0) {
        for (char *p = log.buf; p && *p;) {
            char *nl = strchr(p, '\n');
            if (nl)
                *nl = 0;
            if (starts_with(p, prefix) || (*p && !msg))
                msg = p;
            p = nl ? nl + 1 : NULL;
        }
    }
    strbuf_addf(err, "%s (whole output: %s)", msg ? msg : "the helper failed", path);
    strbuf_release(&log);
    strbuf_release(&e);
}

static char *dir_file(const char *dir, const char *fmt, const char *arg)
{
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/", dir);
    strbuf_addf(&sb, fmt, arg);
    return strbuf_detach(&sb, NULL);
}

/* ---- the runner: the reference computed with libtorch ------------------------------- */

/* AOTIDBG_EAGER_WITH=python|runner: one way only (tests, and a way around either). */
static const char *eager_with(void)
{
    const char *w = getenv("AOTIDBG_EAGER_WITH");
    return w && *w ? w : "";
}

static int only_runner(void) { return !strcmp(eager_with(), "runner"); }

/* The manifest of the runner's values, in the helper's format (its refs, scale, missing). */
static int runner_manifest(eager_ref *r, strbuf *err)
{
    strbuf text = STRBUF_INIT;
    char *ap = dir_file(r->dir, "%s", "nodes/absmax.json");
    int rc = strbuf_read_file(&text, ap, MANIFEST_MAX, err);
    free(ap);
    cJSON *absmax = rc < 0 ? NULL : cJSON_ParseWithLength(text.buf, text.len);
    strbuf_release(&text);
    if (!cJSON_IsObject(absmax)) {
        if (rc == 0)
            strbuf_addf(err, "%s/nodes/absmax.json: not the runner's JSON", r->dir);
        cJSON_Delete(absmax);
        return -1;
    }
    cJSON *root = cJSON_CreateObject(), *calls = cJSON_CreateArray();
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "computed_by", "runner");
    cJSON_AddItemToObject(root, "calls", calls);
    size_t nodes = 0;
    for (size_t i = 0; i < r->nrcalls; i++) {
        const runner_call *c = &r->rcalls[i];
        cJSON *o = cJSON_CreateObject(), *refs = cJSON_AddArrayToObject(o, "refs");
        cJSON_AddItemToArray(calls, o);
        cJSON_AddStringToObject(o, "kernel", c->kernel);
        cJSON_AddNumberToObject(o, "occurrence", (double)c->occurrence);
        cJSON *missing = cJSON_AddArrayToObject(o, "missing");
        for (size_t k = 0; k < c->refs.nmissing; k++)
            cJSON_AddItemToArray(missing, cJSON_CreateString(c->refs.missing[k]));
        double scale = 0;
        for (size_t k = 0; k < c->refs.ncombined; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(absmax, c->refs.combined[k]);
            if (cJSON_IsNumber(v) && v->valuedouble > scale)
                scale = v->valuedouble;
        }
        for (size_t k = 0; k < c->refs.nrefs; k++) {
            char *path = eager_ref_node_path(r->dir, c->refs.refs[k]);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            struct stat st;
            file_tensor ft;
            strbuf e = STRBUF_INIT;
            if (fd >= 0 && fstat(fd, &st) == 0 && npy_read_header(fd, (uint64_t)st.st_size, path, &ft, &e) == 0) {
                cJSON *ref = cJSON_CreateObject();
                cJSON_AddItemToArray(refs, ref);
                cJSON_AddStringToObject(ref, "node", c->refs.refs[k]);
                cJSON_AddStringToObject(ref, "file", path + strlen(r->dir) + 1);
                cJSON_AddStringToObject(ref, "dtype", ft.dtype);
                cJSON *shape = cJSON_AddArrayToObject(ref, "shape");
                for (int d = 0; d < ft.ndim; d++)
                    cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)ft.shape[d]));
                cJSON_AddNumberToObject(ref, "scale", scale);
                nodes++;
            }   /* a value the runner did not write (not a tensor): no reference, as the helper does */
            if (fd >= 0)
                close(fd);
            strbuf_release(&e);
            free(path);
        }
    }
    cJSON_AddNumberToObject(root, "nodes", (double)nodes);
    char *out = cJSON_Print(root);
    rc = write_file(r->manifest, out, err);
    free(out);
    cJSON_Delete(root);
    cJSON_Delete(absmax);
    return rc;
}

static int spawn_ref(eager_ref *r, strbuf *err);
static int fork_pipe(eager_ref *r);

/* Reads the program and starts `aotidbg-runner --eager-ref PLAN` (or has the model's runner fork it); -1 with why
 * when the runner cannot do this program (the caller starts Python then). */
static int start_runner(eager_ref *r, const session *s, const char *program, char *const *raw, const char *device,
                        int float64, const char *calls_hex, strbuf *why)
{
    if (!strcmp(eager_with(), "python")) {
        strbuf_addstr(why, "AOTIDBG_EAGER_WITH=python");
        return -1;
    }
    if (!r->prog && eager_program_read(&r->prog, program, why) < 0)
        return -1;
    const call_table *ct = &s->prov;
    r->rcalls = arena_alloc(&r->ar, (ct->ncalls + 1) * sizeof *r->rcalls);
    const char **keep = NULL;
    size_t nkeep = 0, capkeep = 0;
    for (size_t i = 0; i < ct->ncalls; i++) {
        eager_call_refs refs;
        size_t occ;
        if (!eager_ref_call_refs(ct, i, r->prog, &r->ar, &refs, &occ))
            continue;
        runner_call *c = &r->rcalls[r->nrcalls++];
        c->kernel = arena_strdup(&r->ar, ct->calls[i].kernel);
        c->occurrence = occ;
        c->refs = refs;
        for (size_t k = 0; k < c->refs.nrefs; k++) {
            size_t j = 0;
            while (j < nkeep && strcmp(keep[j], c->refs.refs[k]))
                j++;
            if (j == nkeep) {
                keep = arena_grow(&r->ar, keep, nkeep, &capkeep, sizeof *keep, 64);
                keep[nkeep++] = c->refs.refs[k];
            }
        }
    }
    char *plan = dir_file(r->dir, "plan-%s.bin", calls_hex);
    r->runner_log = dir_file(r->dir, "%s", "runner.log");
    int rc = eager_program_write_plan(r->prog, plan, program, device, float64, r->dir, keep, nkeep, s, raw, why);
    r->plan = plan;
    if (rc == 0) {
        r->by_runner = 1;
        r->computed_by = "runner";
        rc = fork_pipe(r) == 0 ? 0 : spawn_ref(r, why);
    }
    return rc;
}

/* `aotidbg-runner --eager-ref PLAN`, a process of its own (libtorch starts in it too). */
static int spawn_ref(eager_ref *r, strbuf *err)
{
    char *argv[] = {(char *)aotidbg_runner_path(), "--eager-ref", r->plan, NULL};
    return spawn(r, argv, r->runner_log, err);
}

/* AOTIDBG_EAGER_FORK=0: always spawn_ref (the model's runner never forks it); otherwise the fork,
 * on any device: it is made before the runner starts a thread or touches CUDA, and on the H200
 * its references gave the same verdicts as their own process's (tests/gpu/results/run29_*). */
static int fork_wanted(void)
{
    const char *f = getenv("AOTIDBG_EAGER_FORK");
    return !f || !*f || strcmp(f, "0") != 0;
}

/* The status pipe and the environment that make the model's runner fork the reference. */
static int fork_pipe(eager_ref *r)
{
    int p[2];
    if (!fork_wanted() || pipe2(p, O_CLOEXEC) < 0)
        return -1;
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    r->fork_rd = p[0];
    r->fork_wr = p[1];
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "AOTIDBG_EAGER_REF_FD=%d", p[1]);
    r->fork_env[0] = strbuf_detach(&sb, NULL);
    strbuf_addf(&sb, "AOTIDBG_EAGER_REF_PLAN=%s", r->plan);
    r->fork_env[1] = strbuf_detach(&sb, NULL);
    strbuf_addf(&sb, "AOTIDBG_EAGER_REF_LOG=%s", r->runner_log);
    r->fork_env[2] = strbuf_detach(&sb, NULL);
    r->fork_env[3] = NULL;
    return 0;
}

int eager_ref_runner_env(eager_ref *r, const char *const **env)
{
    *env = NULL;
    if (!r || r->fork_wr < 0)
        return 0;
    *env = (const char *const *)r->fork_env;
    return r->fork_wr;
}

void eager_ref_runner_started(eager_ref *r, int ok)
{
    if (!r || r->fork_wr < 0)
        return;
    close(r->fork_wr);   /* the fork holds its copy: EOF is its end */
    r->fork_wr = -1;
    if (ok)
        return;
    close(r->fork_rd);
    r->fork_rd = -1;
    strbuf e = STRBUF_INIT;
    spawn_ref(r, &e);   /* failed: eager_ref_poll says it was not computed */
    strbuf_release(&e);
}

/* What the fork said so far, waiting at most timeout_ms: 0 still computing; 1 it ended,
 * *status its wait status (an exit with its "rc", else killed); 2 it never started (the
 * model's runner did not fork it). */
static int fork_wait(eager_ref *r, int timeout_ms, int *status)
{
    for (;;) {
        char buf[256];
        ssize_t n = read(r->fork_rd, buf, sizeof buf);
        if (n > 0) {
            strbuf_add(&r->fork_said, buf, (size_t)n);
            const char *pid = strstr(r->fork_said.buf, "pid ");
            if (pid && strchr(pid, '\n') && !r->fork_pid)
                r->fork_pid = (pid_t)atoi(pid + 4);   /* eager_ref_free's to end */
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd pf = {r->fork_rd, POLLIN, 0};
            if (timeout_ms <= 0 || poll(&pf, 1, timeout_ms) <= 0)
                return 0;
            timeout_ms = 0;
            continue;
        }
        break;   /* EOF (or a broken pipe): it ended */
    }
    close(r->fork_rd);
    r->fork_rd = -1;
    const char *pid = strstr(r->fork_said.buf, "pid "), *rc = strstr(r->fork_said.buf, "rc ");
    if (!pid)
        return 2;
    *status = rc ? (atoi(rc + 3) & 0xff) << 8 : SIGKILL;
    r->fork_pid = -1;
    return 1;
}

int eager_ref_poll(eager_ref *r, int timeout_ms, int *code, strbuf *err)
{
    *code = 0;
    if (r->ready)
        return 1;
    int status = 0, forked = 0;
    if (r->fork_rd >= 0) {
        int f = fork_wait(r, timeout_ms, &status);
        if (f == 0)
            return 0;
        if (f == 2 && spawn_ref(r, err) < 0) {   /* no fork took it: its own process does */
            *code = 1;
            return -1;
        }
        forked = f == 1;
    }
    if (!forked && r->pid <= 0) {
        *code = 1;
        strbuf_addstr(err, "the eager reference was not computed");
        return -1;
    }
    for (int waited = 0; !forked; waited += 20) {
        pid_t w = waitpid(r->pid, &status, WNOHANG);
        if (w == r->pid)
            break;
        if (w < 0 && errno != EINTR) {
            *code = 1;
            strbuf_addf(err, "waiting for the eager helper: %s", strerror(errno));
            r->pid = -1;
            return -1;
        }
        if (waited >= timeout_ms)
            return 0;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    r->pid = -1;
    if (r->by_runner) {   /* the runner's reference, or why not: then Python computes it */
        strbuf why = STRBUF_INIT;
        if (WIFEXITED(status) && !WEXITSTATUS(status) && runner_manifest(r, &why) == 0 && read_manifest(r, &why) == 0) {
            strbuf_release(&why);
            return 1;
        }
        if (!why.len)
            helper_error(r->runner_log, "aotidbg-runner --eager-ref: ", &why);
        r->nmsgs = r->ncalls = 0;
        strbuf_reset(&r->summary);
        strbuf_addstr(&r->why_python, why.buf);
        strbuf_release(&why);
        if (only_runner()) {
            *code = 1;
            strbuf_addf(err, "the runner could not compute it (AOTIDBG_EAGER_WITH=runner): %s", r->why_python.buf);
            return -1;
        }
        if (spawn_python(r, err) < 0) {
            *code = 1;
            return -1;
        }
        return eager_ref_poll(r, timeout_ms, code, err);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        *code = WIFEXITED(status) && WEXITSTATUS(status) == 2 ? 2 : 1;
        helper_error(r->log, "aotidbg_eager: ", err);
        if (r->why_python.len)
            strbuf_addf(err, "; the runner could not either: %s", r->why_python.buf);
        return -1;
    }
    if (read_manifest(r, err) < 0) {
        *code = 1;
        return -1;
    }
    return 1;
}

/* ---- start ------------------------------------------------------------------------- */


/* fill: file inputs as raw bytes (the bytes the runner reads) in a private
 * folder *tmp under root, their hashes into sha: the key needs them first. */
static int materialize(const session *s, const char *root, char **tmp, char **raw, char (*sha)[65], strbuf *err)
{
    int need = 0;
    for (size_t i = 0; i < s->ninputs; i++)
        need |= s->inputs[i].fill == FILL_FILE;
    if (!need)
        return 0;
    *tmp = dir_file(root, "%s", "tmp.XXXXXX");
    if (!mkdtemp(*tmp)) {
        strbuf_addf(err, "cannot make a folder in %s: %s", root, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].fill == FILL_FILE &&
            (inputs_materialize_file(&s->inputs[i], (int)i, *tmp, &raw[i], err) < 0 ||
             package_sha256_file(raw[i], sha[i], err) < 0))
            return -1;
    return 0;
}

/* Moves them into the key's folder dir as input-<i>.raw (same bytes for the same key). */
static int place_inputs(const session *s, const char *dir, char **raw, strbuf *err)
{
    for (size_t i = 0; i < s->ninputs; i++) {
        if (!raw[i])
            continue;
        char name[32];
        snprintf(name, sizeof name, "input-%zu.raw", i);
        char *to = dir_file(dir, "%s", name);
        if (rename(raw[i], to) < 0) {
            strbuf_addf(err, "cannot move %s to %s: %s", raw[i], to, strerror(errno));
            free(to);
            return -1;
        }
        free(raw[i]);
        raw[i] = to;
    }
    return 0;
}

int eager_ref_start(eager_ref **out, const eager_opts *o, session *s, const char *run_device, strbuf *err)
{
    *out = NULL;
    struct stat st;
    int bad = stat(o->program, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EISDIR;
    if (bad) {
        strbuf_addf(err, "--eager %s: %s; give the torch.export.save file of the program", o->program,
                    bad == EISDIR ? "not a regular file" : strerror(bad));
        return -1;
    }
    eager_map map = eager_map_effective(o->map);
    const char *hname = map == EAGER_MAP_COMPILER ? RECORD_HELPER : HELPER;
    char *helper = find_helper(hname), *eager_helper = map == EAGER_MAP_COMPILER ? find_helper(HELPER) : NULL;
    if (!helper || (map == EAGER_MAP_COMPILER && !eager_helper)) {
        strbuf_addf(err, "--eager needs %s, which is not installed (looked in %s/prepare and %s/core/prepare); "
                    "reinstall aotidbg or set AOTIDBG_DATA_DIR", helper ? HELPER : hname, aotidbg_data_dir(),
                    aotidbg_data_dir());
        free(helper);
        free(eager_helper);
        return -1;
    }
    if (map == EAGER_MAP_COMPILER && !o->wrapper) {
        strbuf_addf(err, "--eager: the compiler's record is checked against the package's wrapper.cpp, and %s has "
                    "none (a bare .so?); use --eager-map names", s->package.path ? s->package.path : "the package");
        free(helper);
        free(eager_helper);
        return -1;
    }
    eager_ref *r = xcalloc(1, sizeof *r);
    r->map = map;
    strbuf_init(&r->map_note, 0);
    r->pid = -1;
    r->fork_rd = r->fork_wr = -1;
    strbuf_init(&r->fork_said, 0);
    r->atol = o->atol;
    r->rtol = o->rtol;
    strbuf_init(&r->summary, 0);
    strbuf_init(&r->why_python, 0);
    strbuf_init(&r->why_no_checks, 0);
    const char *device = o->device ? o->device : run_device;
    char prog_hex[65], helper_hex[65], key_hex[65], calls_hex[65];
    size_t ni = s->ninputs ? s->ninputs : 1, ncalls = 0;
    char **raw = xcalloc(ni, sizeof *raw);
    char (*sha)[65] = xcalloc(ni, sizeof *sha);
    strbuf key = STRBUF_INIT;
    char *inputs = NULL, *calls = NULL, *root = NULL, *tmp = NULL, *abs_prog = realpath(o->program, NULL);
    int rc = -1;
    if (!raw || !sha)
        abort();
    strbuf unread = STRBUF_INIT;   /* the runner path says why again, when it needs the program */
    if (eager_program_read(&r->prog, o->program, &unread) < 0)
        r->prog = NULL;
    strbuf_release(&unread);
    calls = map == EAGER_MAP_COMPILER ? record_calls_json(s, &ncalls) : calls_json(s, r->prog, &ncalls);
    if (r->prog)
        stacks_from_program(s, r->prog);
    if (!ncalls && map == EAGER_MAP_COMPILER) {
        strbuf_addf(err, "--eager: no launch of %s passes a buffer of its own (its wrapper.cpp shows no kernel "
                    "arguments to check the compiler's record against)", s->package.path ? s->package.path
                    : "the package");
        goto done;
    }
    if (!ncalls) {
        strbuf_addf(err, "--eager: no kernel call of %s names a graph node (no kernel_information.json, and no "
                    "source-node comments above its launches); rebuild it from the program with provenance: "
                    "python3 core/prepare/aotidbg_prepare.py %s -o DEBUG.pt2", s->package.path ? s->package.path
                    : "the package", o->program);
        goto done;
    }
    if (package_sha256_file(o->program, prog_hex, err) < 0 || package_sha256_file(helper, helper_hex, err) < 0)
        goto done;
    char *abs_root = realpath(o->cache_root && *o->cache_root ? o->cache_root : ".", NULL);
    if (!abs_root) {
        strbuf_addf(err, "--eager: the reference goes beside the session, in %s, which is not there (%s)",
                    o->cache_root, strerror(errno));
        goto done;
    }
    root = dir_file(abs_root, "%s", ".aotidbg-eager");
    free(abs_root);
    if (mkdirs(root, err) < 0 || materialize(s, root, &tmp, raw, sha, err) < 0)
        goto done;
    char *key_inputs = inputs_json(s, NULL, sha);
    strbuf_addf(&key, "aotidbg-eager 1\nprogram %s\nhelper %s\ndevice %s\nfloat64 %d\ninputs %s\n", prog_hex,
                helper_hex, device, o->float64, key_inputs);
    if (map == EAGER_MAP_COMPILER) {   /* the record depends on the eager helper (inputs) and the package too */
        char eh[65];
        if (package_sha256_file(eager_helper, eh, err) < 0)
            goto done;
        strbuf_addf(&key, "map compiler\neager-helper %s\n", eh);
    }
    free(key_inputs);
    if (sha256_hex(key.buf, key.len, key_hex) < 0 || sha256_hex(calls, strlen(calls), calls_hex) < 0) {
        strbuf_addstr(err, "SHA-256 failed (libcrypto)");
        goto done;
    }
    key_hex[20] = calls_hex[16] = 0;
    r->dir = dir_file(root, "%s", key_hex);
    if (mkdirs(r->dir, err) < 0 || place_inputs(s, r->dir, raw, err) < 0)
        goto done;
    r->manifest = dir_file(r->dir, "manifest-%s.json", calls_hex);
    r->log = dir_file(r->dir, "%s", "helper.log");

    s->eager.present = 1;
    s->eager.program = arena_strdup(&s->arena, abs_prog ? abs_prog : o->program);
    r->program = xstrdup(s->eager.program);
    s->eager.sha256 = arena_strdup(&s->arena, prog_hex);
    s->eager.dir = arena_strdup(&s->arena, r->dir);
    s->eager.device = arena_strdup(&s->arena, device);
    s->eager.float64 = o->float64;
    s->eager.atol = o->atol;
    s->eager.rtol = o->rtol;
    s->eager.calls = s->eager.refs = -1;

    if (access(r->manifest, R_OK) == 0) {
        if (read_manifest(r, err) == 0) {
            rc = 0;   /* cached: no Python at all */
            goto done;
        }
        strbuf_reset(err);   /* a damaged one is computed again */
        r->nmsgs = r->capmsgs = r->ncalls = 0;
        strbuf_reset(&r->summary);
    }
    inputs = inputs_json(s, raw, sha);
    char *ip = dir_file(r->dir, "%s", "inputs.json"), *cp = dir_file(r->dir, "calls-%s.json", calls_hex),
         *mn = strrchr(r->manifest, '/') + 1, *wp = dir_file(r->dir, "wrapper-%s.cpp", calls_hex);
    if (map == EAGER_MAP_COMPILER) {   /* the package's wrapper.cpp, for the record to be checked against */
        char *text = xmalloc(o->wrapper_len + 1);
        memcpy(text, o->wrapper, o->wrapper_len);
        text[o->wrapper_len] = 0;
        int w = write_file(wp, text, err);
        free(text);
        if (w < 0)
            goto wrote;
    }
    if (write_file(ip, inputs, err) == 0 && write_file(cp, calls, err) == 0) {
        const char *argv[] = {python(), helper, abs_prog ? abs_prog : o->program, "--inputs", ip, "--calls", cp,
                              "--out", r->dir, "--manifest", mn, "--device", device,
                              o->float64 ? "--float64" : NULL, NULL};
        const char *rargv[] = {python(), helper, abs_prog ? abs_prog : o->program, "--inputs", ip, "--calls", cp,
                               "--out", r->dir, "--manifest", mn, "--device", device, "--wrapper", wp, NULL};
        const char *const *av = map == EAGER_MAP_COMPILER ? rargv : argv;
        for (size_t i = 0; av[i]; i++)
            r->py_argv[i] = arena_strdup(&r->ar, av[i]);
        strbuf why = STRBUF_INIT;
        if (map == EAGER_MAP_COMPILER) {   /* Python lowers the program: the runner cannot */
            if (spawn_python(r, err) == 0)
                rc = 0;
        } else if (start_runner(r, s, abs_prog ? abs_prog : o->program, raw, device, o->float64, calls_hex, &why) == 0)
            rc = 0;
        else if (only_runner())
            strbuf_addf(err, "--eager: the runner cannot compute the reference (AOTIDBG_EAGER_WITH=runner): %s",
                        why.buf);
        else if (strbuf_addstr(&r->why_python, why.buf), spawn_python(r, err) == 0)
            rc = 0;
        strbuf_release(&why);
    }
wrote:
    free(ip);
    free(cp);
    free(wp);
done:
    for (size_t i = 0; i < ni; i++) {
        if (raw[i] && tmp && starts_with(raw[i], tmp))   /* not moved: a failure on the way */
            unlink(raw[i]);
        free(raw[i]);
    }
    if (tmp)
        rmdir(tmp);
    free(tmp);
    free(raw);
    free(sha);
    free(helper);
    free(eager_helper);
    free(abs_prog);
    free(inputs);
    free(calls);
    free(root);
    strbuf_release(&key);
    if (rc < 0) {
        eager_ref_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

const proto_msg *eager_ref_messages(const eager_ref *r, size_t *n)
{
    *n = r->ready ? r->nmsgs : 0;
    return r->ready ? r->msgs : NULL;
}

const char *eager_ref_summary(const eager_ref *r) { return r->summary.buf; }

void eager_ref_computer(const eager_ref *r, strbuf *out)
{
    if (r->by_runner)
        strbuf_addf(out, "the runner with libtorch (%s)", aotidbg_runner_path());
    else
        strbuf_addf(out, "%s%s%s", python(), r->why_python.len ? " because the runner could not: " : "",
                    r->why_python.buf);
}

void eager_ref_to_session(const eager_ref *r, session *s)
{
    if (!r->ready)
        return;
    s->eager.calls = (int64_t)r->ncalls;
    s->eager.refs = (int64_t)(r->nmsgs - r->nchecks);
    s->eager.weights.present = 1;
    s->eager.weights.program = r->nchecks;
    if (r->why_no_checks.len)
        s->eager.weights.not_compared = arena_strdup(&s->arena, r->why_no_checks.buf);
    s->eager.computed_by = r->computed_by;   /* static strings */
    s->eager.map = r->map == EAGER_MAP_COMPILER ? "compiler" : "names";
    s->eager.map_note = r->map_note.len ? arena_strdup(&s->arena, r->map_note.buf) : NULL;
}

void eager_ref_free(eager_ref *r)
{
    if (!r)
        return;
    if (r->pid > 0) {
        kill(r->pid, SIGTERM);
        waitpid(r->pid, NULL, 0);
    }
    if (r->fork_rd >= 0 && r->fork_pid > 0)   /* not ours to wait for: it still held the pipe */
        kill(r->fork_pid, SIGTERM);
    if (r->fork_rd >= 0)
        close(r->fork_rd);
    if (r->fork_wr >= 0)
        close(r->fork_wr);
    strbuf_release(&r->fork_said);
    for (int i = 0; i < 3; i++)
        free(r->fork_env[i]);
    free(r->plan);
    eager_program_free(r->prog);
    arena_release(&r->ar);
    free(r->runner_log);
    strbuf_release(&r->why_python);
    strbuf_release(&r->why_no_checks);
    strbuf_release(&r->map_note);
    free(r->program);
    free(r->dir);
    free(r->manifest);
    free(r->log);
    strbuf_release(&r->summary);
    free(r);
}
