/* fuzz_package.c — libFuzzer target for the package reader, the wrapper.cpp
 * scanner and the checklist: every byte of a package is untrusted.
 * Build (clang only):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Icore/util -Icore/model -Icore/proto -Icore/package -Icore/inputs -Icore/check -Icore/router -Icore/session \
 *     tests/fuzz/fuzz_package.c core/package/package.c core/package/wrapper_scan.c core/check/checklist.c \
 *     core/package/elf_syms.c core/model/model.c core/util/strbuf.c core/util/arena.c \
 *     $(pkg-config --cflags --libs libzip libcjson libelf libcrypto) -lm -lpthread -o fuzz_package
 *   ./fuzz_package tests/fuzz/corpus/package -max_total_time=60
 * Inputs starting with "PK" are written to a file and opened as a package
 * (then every model is checked, its .so's symbols read piecewise from the
 * archive and from the extracted file, which must agree, its entries read and
 * extracted into a private folder that must be gone after package_close); anything else is scanned as
 * wrapper.cpp text and checked against a fixed inputs spec. Besides "no
 * crash": a refusal always says why, and extraction never leaves files. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_target.h"
#include "checklist.h"
#include "elf_syms.h"
#include "package.h"
#include "wrapper_scan.h"

static char path[64];

/* The .so's undefined symbols read in pieces from the archive: -1, or the count. */
static long entry_syms(package_t *p, const package_model *m, strbuf *err)
{
    package_entry *pe;
    uint64_t size;
    if (!m->so_entry || package_entry_open(p, m->so_entry, &pe, &size, err) < 0)
        return -1;
    elf_symlist l = ELF_SYMLIST_INIT;
    long n = elf_syms_undefined_read(&l, package_entry_read_at, pe, size, "so", err) < 0 ? -1 : (long)l.n;
    if (n < 0 && !err->len)
        abort();   /* a refusal says why */
    elf_symlist_free(&l);
    package_entry_close(pe);
    return n;
}

static void fuzz_zip(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        char dir[] = "/tmp/fuzz_package.XXXXXX";
        if (!mkdtemp(dir))
            abort();
        setenv("TMPDIR", dir, 1);
        snprintf(path, sizeof path, "%s/in.pt2", dir);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    package_t *p = NULL;
    strbuf err = STRBUF_INIT;
    if (package_open(&p, path, &err) < 0) {
        if (!err.len || p)
            abort();
        strbuf_release(&err);
        return;
    }
    for (size_t i = 0; i < p->nmodels; i++) {
        package_model *m = &p->models[i];
        checklist cl;
        checklist_init(&cl);
        checklist_opts o = {.model = m->name, .torch_lib = "none"};
        if (checklist_run(&cl, p, &o, &err) < 0 && !err.len)
            abort();
        checklist_free(&cl);
        strbuf_reset(&err);
        long in_zip = entry_syms(p, m, &err);
        strbuf_reset(&err);
        if (package_extract(p, m, &err) < 0 && !err.len)
            abort();
        if (m->so_path && in_zip >= 0) {   /* the same bytes on disk: the same symbols */
            elf_symlist l = ELF_SYMLIST_INIT;
            if (elf_syms_undefined_file(&l, m->so_path, &err) < 0 || (long)l.n != in_zip)
                abort();
            elf_symlist_free(&l);
        }
        strbuf_reset(&err);
    }
    char *dir = p->extract_dir ? strdup(p->extract_dir) : NULL;
    package_close(p);
    if (dir && access(dir, F_OK) == 0)
        abort();   /* the extraction folder must be removed */
    free(dir);
    strbuf_release(&err);
}

static void fuzz_text(const uint8_t *data, size_t size)
{
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    if (wrapper_scan_text(&ws, (const char *)data, size, &err) == 0) {
        for (size_t i = 0; i < ws.ninputs; i++)
            if (ws.inputs[i].ndim > TENSOR_MAX_DIMS)
                abort();
        input_spec in[2];
        memset(in, 0, sizeof in);
        for (int i = 0; i < 2; i++) {
            in[i].ndim = 2;
            in[i].shape[0] = 4;
            in[i].shape[1] = 8;
            in[i].dtype = "float32";
            in[i].device = i ? "cuda:1" : "cpu";
        }
        checklist cl;
        checklist_init(&cl);
        checklist_inputs(&cl, &ws, "fuzz.cpp", in, 2, "cpu");
        strbuf out = STRBUF_INIT;
        checklist_format_yaml(&cl, &out);
        checklist_format_text(&cl, &out);
        strbuf_release(&out);
        checklist_free(&cl);
    }
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 2 && data[0] == 'P' && data[1] == 'K')
        fuzz_zip(data, size);
    else
        fuzz_text(data, size);
    return 0;
}
