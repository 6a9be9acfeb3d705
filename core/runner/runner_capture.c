/* runner_capture.c — one launch's tensors in full, to a folder (runner_capture.h). */
#define _GNU_SOURCE
#include "runner_capture.h"
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "hooks.h"
#include "model.h"
#include "torch_abi.h"
#include "torch_cxx.h"

static struct {
    char *dir, *kernel, *constants;
    void *dl, *container;
    int64_t index;
    uint32_t occurrence, seen;   /* launches named kernel so far */
    int on;                      /* the current kernel is the one */
    int done;                    /* it came and ended */
    FILE *log;                   /* capture.txt.tmp while it is on */
} C;

static const char *write_tensor(AtenTensorHandle h, const char *name, int before);

static void note(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "aotidbg-runner: capture: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

void capture_request(const char *dir, int64_t index, const char *kernel, uint32_t occurrence, const char *constants)
{
    free(C.dir);
    free(C.kernel);
    free(C.constants);
    void *dl = C.dl, *container = C.container;
    memset(&C, 0, sizeof C);
    C.dl = dl;
    C.container = container;
    C.dir = strdup(dir ? dir : "");
    C.kernel = strdup(kernel ? kernel : "");
    C.constants = strdup(constants ? constants : "");
    C.index = index;
    C.occurrence = occurrence;
}

void capture_set_model(void *dl, void *container)
{
    C.dl = dl;
    C.container = container;
}

static char *path_in(const char *sub, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s%s%s", C.dir, sub, name ? "/" : "", name ? name : "") < 0) return NULL;
    return p;
}

void capture_tensor(AtenTensorHandle h, const char *name, int before)
{
    if (!C.on) return;
    const char *why = write_tensor(h, name ? name : "?", before);
    if (why) {
        fprintf(C.log, "skipped\t%s\t%s\n", name ? name : "?", why);
        note("tensor %s: %s", name ? name : "?", why);
    }
}

typedef struct { const char *name; AtenTensorHandle handle; } constant_entry;   /* AOTInductorConstantMapEntry */
typedef int (*extract_entries_fn)(void *container, const constant_entry **entries, size_t *n, int use_inactive);

/* The container's weights by original FQN: the C entries (torch 2.13), else the map form. */
typedef struct {
    constant_entry *e;
    size_t n, cap;
} constant_list;

static void add_constant(void *ctx, const char *fqn, void *handle)
{
    constant_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        constant_entry *e = realloc(l->e, cap * sizeof *e);
        if (!e) return;
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n].name = strdup(fqn);
    l->e[l->n++].handle = handle;
}

static int list_constants(constant_list *l)
{
    if (!C.dl || !C.container) return -1;
    extract_entries_fn fn = (extract_entries_fn)dlsym(C.dl, "AOTInductorModelContainerExtractConstantsMapEntries");
    const constant_entry *e = NULL;
    size_t n = 0;
    if (fn && fn(C.container, &e, &n, 0) == 0) {
        for (size_t i = 0; i < n; i++)
            if (e[i].name) add_constant(l, e[i].name, e[i].handle);
        return 0;
    }
    void *v1 = dlsym(C.dl, "AOTInductorModelContainerExtractConstantsMap");
    char err[256];
    return v1 && !tcxx_extract_constants(v1, C.container, add_constant, l, err, sizeof err) ? 0 : -1;
}

/* The weights asked for, from the container, as before-tensors named as wrapper.cpp names them. */
static void write_constants(void)
{
    if (!*C.constants) return;
    constant_list l = {0};
    int ok = list_constants(&l) == 0;
    for (char *line = C.constants; *line;) {
        char *nl = strchr(line, '\n'), *tab = strchr(line, '\t');
        if (nl) *nl = 0;
        if (tab && (!nl || tab < nl)) {
            *tab = 0;
            AtenTensorHandle h = NULL;
            for (size_t i = 0; ok && i < l.n && !h; i++)
                if (l.e[i].name && !strcmp(l.e[i].name, tab + 1)) h = l.e[i].handle;
            if (h) capture_tensor(h, line, 1);
            else
                fprintf(C.log, "skipped\t%s\t%s\n", line, ok ? "the model's constants map has no such weight"
                        : "this model .so cannot hand out its weights (no ExtractConstantsMap)");
            *tab = '\t';
        }
        if (!nl) break;
        *nl = '\n';
        line = nl + 1;
    }
    for (size_t i = 0; i < l.n; i++)
        free((char *)l.e[i].name);
    free(l.e);
}

void capture_kernel_start(int64_t index, const char *name, const char *branch, const char *source)
{
    C.on = 0;
    if (!C.dir || !*C.dir || C.done || C.log) return;
    int hit = C.index >= 0 ? index == C.index : !strcmp(name, C.kernel) && C.seen++ == C.occurrence;
    if (!hit) return;
    char *in = path_in("in", NULL), *ex = path_in("expected", NULL), *log = path_in("capture.txt.tmp", NULL);
    if (in && ex && log) {
        mkdir(C.dir, 0777);
        mkdir(in, 0777);
        mkdir(ex, 0777);
        C.log = fopen(log, "w");
    }
    if (!C.log) note("cannot write in %s: %s", C.dir, strerror(errno));
    else {
        fprintf(C.log, "kernel\t%" PRId64 "\t%s\t%s\t%s\n", index, name, branch, source);
        C.on = 1;
        write_constants();
    }
    free(in);
    free(ex);
    free(log);
}

/* numpy's descr for the bytes of dtype d (bfloat16 and float8 as their bits). */
static const char *npy_descr(const dtype_entry *d)
{
    static const struct { const char *dtype, *descr; } rows[] = {
        {"float32", "<f4"}, {"float64", "<f8"}, {"float16", "<f2"}, {"bfloat16", "<u2"},
        {"int64", "<i8"}, {"int32", "<i4"}, {"int16", "<i2"}, {"int8", "|i1"}, {"uint8", "|u1"},
        {"bool", "|b1"}, {"complex64", "<c8"}, {"complex128", "<c16"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(d->name, rows[i].dtype)) return rows[i].descr;
    return d->itemsize == 1 ? "|u1" : NULL;   /* float8 kinds: their bits */
}

static void put_dims(FILE *f, const int64_t *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? "," : "", v[i]);
    if (!n) fputc('-', f);   /* a 0-d tensor: no dims */
}

/* The .npy header (format 1.0, padded to 64 bytes) for shape[0..n). */
static void npy_header(FILE *f, const char *descr, const int64_t *shape, int64_t n)
{
    char dims[512] = "";
    size_t at = 0;
    for (int64_t i = 0; i < n && at < sizeof dims - 32; i++)
        at += (size_t)snprintf(dims + at, sizeof dims - at, "%" PRId64 "%s", shape[i], n == 1 ? "," : (i + 1 < n ? ", " : ""));
    char h[700];
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    int total = 10 + len + 1;
    int pad = (64 - total % 64) % 64;
    uint16_t hl = (uint16_t)(len + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hl & 0xff, f);
    fputc(hl >> 8, f);
    fwrite(h, 1, (size_t)len, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
}

/* Copies nbytes at data (host or device) into a new host buffer. */
static void *bytes_of(const void *data, size_t nbytes, int on_cuda, const char **why)
{
    void *buf = malloc(nbytes ? nbytes : 1);
    if (!buf) {
        *why = "out of memory for its copy";
        return NULL;
    }
    if (!on_cuda) {
        memcpy(buf, data, nbytes);
        return buf;
    }
    const cuda_rt *rt = tabi_cuda();
    if (!rt->memcpy || (rt->device_synchronize && rt->device_synchronize()) || rt->memcpy(buf, data, nbytes, 2)) {
        *why = "the device-to-host copy failed";
        free(buf);
        return NULL;
    }
    return buf;
}

/* Writes one tensor's memory as the kernel sees it; returns why not, or NULL. */
static const char *write_tensor(AtenTensorHandle h, const char *name, int before)
{
    int64_t dim = 0, *sizes = NULL, *strides = NULL;
    int32_t dcode = 0, dev = 0;
    void *data = NULL;
    if (aoti_torch_get_dim(h, &dim) || aoti_torch_get_sizes(h, &sizes) || aoti_torch_get_strides(h, &strides) ||
        aoti_torch_get_dtype(h, &dcode) || aoti_torch_get_device_type(h, &dev) || aoti_torch_get_data_ptr(h, &data))
        return "torch could not describe it";
    const dtype_entry *d = tabi_dtype_by_code(dcode);
    const char *descr = d ? npy_descr(d) : NULL;
    if (!descr) return "its dtype has no .npy form here";
    /* contiguous, and the span of elements from the first to the last */
    int contiguous = 1, empty = 0;
    int64_t acc = 1, extent = 1;
    for (int64_t i = dim - 1; i >= 0; i--) {
        if (sizes[i] == 0) empty = 1;
        if (sizes[i] != 1 && strides[i] != acc) contiguous = 0;
        if (strides[i] < 0) return "it has a negative stride";
        extent += (sizes[i] - 1) * strides[i];
        acc *= sizes[i];
    }
    if (empty) extent = 0;
    size_t nbytes = (size_t)extent * d->itemsize;
    const char *why = NULL;
    void *buf = nbytes ? bytes_of(data, nbytes, dev == tabi_device_cuda(), &why) : calloc(1, 1);
    if (!buf) return why ? why : "out of memory";
    /* the file name: the tensor's, with anything odd made '_' */
    char fname[300];
    size_t n = 0;
    for (const char *p = name; *p && n < sizeof fname - 5; p++)
        fname[n++] = *p == '_' || *p == '-' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z') ? *p : '_';
    memcpy(fname + n, ".npy", 5);
    char *path = path_in(before ? "in" : "expected", fname);
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f) {
        free(buf);
        free(path);
        return "its file could not be created";
    }
    npy_header(f, descr, contiguous ? sizes : &extent, contiguous ? dim : 1);
    int bad = fwrite(buf, 1, nbytes, f) != nbytes;
    bad |= fclose(f) != 0;
    free(buf);
    free(path);
    if (bad) return "writing its file failed";
    fprintf(C.log, "tensor\t%s\t%s\t%s/%s\t%s\t", before ? "before" : "after", name, before ? "in" : "expected", fname,
            d->name);
    put_dims(C.log, sizes, dim);
    fputc('\t', C.log);
    put_dims(C.log, strides, dim);
    fprintf(C.log, "\t%s\t%" PRIxPTR "\t%zu\n", contiguous ? "contiguous" : "span", (uintptr_t)data, nbytes);
    return NULL;
}


void capture_launch(void)
{
    if (!C.on) return;
    char *p = path_in("launch.txt", NULL);
    FILE *f = p ? fopen(p, "w") : NULL;
    if (!f || interpose_write_launch(f) < 0 || fclose(f)) {
        fprintf(C.log, "skipped\tlaunch\tthe launch's parameters could not be written\n");
        if (f) fclose(f);
    } else {
        fprintf(C.log, "launch\tlaunch.txt\n");
    }
    free(p);
}

static void close_log(void)
{
    fflush(C.log);
    fclose(C.log);
    C.log = NULL;
    char *tmp = path_in("capture.txt.tmp", NULL), *fin = path_in("capture.txt", NULL);
    if (tmp && fin && rename(tmp, fin)) note("cannot rename %s: %s", tmp, strerror(errno));
    free(tmp);
    free(fin);
}

void capture_kernel_end(int status)
{
    if (!C.on) return;
    C.on = 0;
    C.done = 1;
    fprintf(C.log, "status\t%s\n", status == KSTAT_ERROR ? "error" : status == KSTAT_NAN ? "nan" : "ok");
    close_log();
}

void capture_run_end(int64_t kernels)
{
    if (!C.dir || !*C.dir || C.done) return;
    if (C.log) {   /* the run ended inside the kernel */
        capture_kernel_end(KSTAT_ERROR);
        return;
    }
    mkdir(C.dir, 0777);
    char *fin = path_in("capture.txt", NULL);
    FILE *f = fin ? fopen(fin, "w") : NULL;
    if (f) {
        fprintf(f, "missing\t%" PRId64 "\n", kernels);
        fclose(f);
    }
    free(fin);
    C.done = 1;
}
