/* host_facts.c — probing a box and carrying what was found (host_facts.h). */
#define _GNU_SOURCE
#include "host_facts.h"
#include "compat.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const host_env_names[HOST_NENV + 1] = {"AOTI_RUNTIME_CHECK_INPUTS", "CUDA_LAUNCH_BLOCKING",
                                                   "PYTORCH_NO_CUDA_MEMORY_CACHING", NULL};

typedef int (*cu_i_fn)(unsigned);
typedef int (*cu_pi_fn)(int *);
typedef int (*cu_attr_fn)(int *, int, int);

void cuda_probe_run(cuda_probe *cp)
{
    memset(cp, 0, sizeof *cp);
    const char *lib = getenv("AOTIDBG_LIBCUDA");   /* lets tests point at another driver */
    void *h = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(cp->error, sizeof cp->error, "no CUDA driver: dlopen(libcuda.so.1) failed");
        return;
    }
    cu_i_fn cu_init = (cu_i_fn)dlsym(h, "cuInit");
    cu_pi_fn cu_count = (cu_pi_fn)dlsym(h, "cuDeviceGetCount");
    cu_pi_fn cu_ver = (cu_pi_fn)dlsym(h, "cuDriverGetVersion");
    cu_attr_fn cu_attr = (cu_attr_fn)dlsym(h, "cuDeviceGetAttribute");
    if (!cu_init || !cu_count || !cu_attr) {
        snprintf(cp->error, sizeof cp->error, "libcuda.so.1 lacks cuInit/cuDeviceGetCount/cuDeviceGetAttribute");
        return;   /* keep the handle: unloading a driver mid-process is not worth the risk */
    }
    cp->driver_found = 1;
    if (cu_ver)
        cu_ver(&cp->driver_version);
    int rc = cu_init(0);
    if (rc != 0) {
        snprintf(cp->error, sizeof cp->error, "cuInit(0) failed with CUresult %d%s", rc,
                 rc == 100 ? " (no CUDA-capable device)" : rc == 35 ? " (driver older than the runtime)" : "");
        return;
    }
    cp->init_ok = 1;
    if (cu_count(&cp->device_count) != 0)
        cp->device_count = 0;
    for (int i = 0; i < cp->device_count && i < 16; i++) {
        /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76; device handle == ordinal */
        if (cu_attr(&cp->cc_major[i], 75, i) != 0 || cu_attr(&cp->cc_minor[i], 76, i) != 0)
            cp->cc_major[i] = cp->cc_minor[i] = -1;
    }
}

char *host_cpu_flags_read(void)
{
    strbuf sb = STRBUF_INIT, e = STRBUF_INIT;
    char *r = NULL;
    if (strbuf_read_file(&sb, "/proc/cpuinfo", 16u << 20, &e) == 0) {
        char *fl = strstr(sb.buf, "\nflags");
        char *colon = fl ? strchr(fl, ':') : NULL;
        if (colon) {
            size_t n = strcspn(colon + 1, "\n");
            r = xstrndup(colon + 1, n);
        }
    }
    strbuf_release(&sb);
    strbuf_release(&e);
    return r;
}

/* Copies src into dst[n], cut to fit. */
static void copy(char *dst, size_t n, const char *src)
{
    size_t k = src ? strnlen(src, n - 1) : 0;
    memcpy(dst, src ? src : "", k);
    dst[k] = 0;
}

void host_facts_probe(host_facts *hf)
{
    memset(hf, 0, sizeof *hf);
    cuda_probe_run(&hf->cuda);
    hf->cpu_flags = host_cpu_flags_read();
    for (int i = 0; i < HOST_NENV; i++)
        copy(hf->env[i], sizeof hf->env[i], getenv(host_env_names[i]));
    if (gethostname(hf->hostname, sizeof hf->hostname) != 0)
        hf->hostname[0] = 0;
    hf->hostname[sizeof hf->hostname - 1] = 0;
}

/* One "key\tvalue\n" line; tabs and newlines in the value become spaces. */
static void put(strbuf *o, const char *k, const char *v)
{
    strbuf_addstr(o, k);
    strbuf_addch(o, '\t');
    for (const char *p = v ? v : ""; *p; p++)
        strbuf_addch(o, *p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p);
    strbuf_addch(o, '\n');
}

static void put_int(strbuf *o, const char *k, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    put(o, k, b);
}

void host_facts_format(const host_facts *hf, strbuf *out)
{
    const cuda_probe *c = &hf->cuda;
    put_int(out, "cuda.driver_found", c->driver_found);
    put_int(out, "cuda.init_ok", c->init_ok);
    put_int(out, "cuda.driver_version", c->driver_version);
    put_int(out, "cuda.device_count", c->device_count);
    for (int i = 0; i < c->device_count && i < 16; i++) {
        char k[32], v[32];
        snprintf(k, sizeof k, "cuda.cc.%d", i);
        snprintf(v, sizeof v, "%d.%d", c->cc_major[i], c->cc_minor[i]);
        put(out, k, v);
    }
    put(out, "cuda.error", c->error);
    if (hf->cpu_flags)
        put(out, "cpu.flags", hf->cpu_flags);
    for (int i = 0; i < HOST_NENV; i++) {
        char k[80];
        snprintf(k, sizeof k, "env.%s", host_env_names[i]);
        put(out, k, hf->env[i]);
    }
    put(out, "hostname", hf->hostname);
    put(out, "runner", hf->runner);
    if (hf->so_checked)
        put(out, "so.error", hf->so_error);
}

static int to_int(const char *v, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < -1000000000L || x > 1000000000L)
        return -1;
    *out = (int)x;
    return 0;
}

int host_facts_parse(host_facts *hf, const char *text, strbuf *err)
{
    memset(hf, 0, sizeof *hf);
    int lineno = 0;
    for (const char *p = text; *p;) {
        lineno++;
        size_t n = strcspn(p, "\n");
        const char *tab = memchr(p, '\t', n);
        if (!tab) {
            strbuf_addf(err, "host facts line %d: no tab between key and value", lineno);
            return -1;
        }
        char key[80], val[4096];
        size_t kn = (size_t)(tab - p), vn = n - kn - 1;
        if (kn >= sizeof key)
            kn = sizeof key - 1;
        if (vn >= sizeof val)
            vn = sizeof val - 1;
        memcpy(key, p, kn);
        key[kn] = 0;
        memcpy(val, tab + 1, vn);
        val[vn] = 0;
        cuda_probe *c = &hf->cuda;
        int bad = 0, idx;
        const char *env;
        if (!strcmp(key, "cuda.driver_found"))
            bad = to_int(val, &c->driver_found);
        else if (!strcmp(key, "cuda.init_ok"))
            bad = to_int(val, &c->init_ok);
        else if (!strcmp(key, "cuda.driver_version"))
            bad = to_int(val, &c->driver_version);
        else if (!strcmp(key, "cuda.device_count"))
            bad = to_int(val, &c->device_count) || c->device_count < 0;
        else if (sscanf(key, "cuda.cc.%d", &idx) == 1) {
            if (idx >= 0 && idx < 16 && sscanf(val, "%d.%d", &c->cc_major[idx], &c->cc_minor[idx]) != 2)
                bad = 1;
        } else if (!strcmp(key, "cuda.error"))
            copy(c->error, sizeof c->error, val);
        else if (!strcmp(key, "cpu.flags")) {
            free(hf->cpu_flags);
            hf->cpu_flags = xstrdup(val);
        } else if (!strcmp(key, "hostname"))
            copy(hf->hostname, sizeof hf->hostname, val);
        else if (!strcmp(key, "runner"))
            copy(hf->runner, sizeof hf->runner, val);
        else if (!strcmp(key, "so.error")) {
            hf->so_checked = 1;
            copy(hf->so_error, sizeof hf->so_error, val);
        } else if (skip_prefix(key, "env.", &env)) {
            for (int i = 0; i < HOST_NENV; i++)
                if (!strcmp(env, host_env_names[i]))
                    copy(hf->env[i], sizeof hf->env[i], val);
        }
        if (bad) {
            strbuf_addf(err, "host facts line %d: %s: '%s' is not a number", lineno, key, val);
            return -1;
        }
        p += n;
        if (*p == '\n')
            p++;
    }
    return 0;
}

void host_facts_release(host_facts *hf)
{
    free(hf->cpu_flags);
    hf->cpu_flags = NULL;
}
