/* package_sources.h — the generated sources of a package in any of the forms
 * users point aotidbg at: a .pt2, an extracted package folder, or a
 * *.wrapper.cpp file (as the router's --package and the provenance take them).
 *
 * Owner: core/package/package_sources.c. The caller owns the struct and
 * releases it with package_sources_release(). Errors: 0, or -1 with a message
 * naming the path and what is missing (no wrapper.cpp is an error; no
 * kernel.cpp or kernel_information.json is not: those parts stay empty).
 * Untrusted input: every part is read capped at max bytes; folders are
 * searched to a fixed depth without following links. */
#ifndef AOTIDBG_PACKAGE_SOURCES_H
#define AOTIDBG_PACKAGE_SOURCES_H
#include <stddef.h>
#include "strbuf.h"

typedef struct {
    strbuf wrapper;            /* <key>.wrapper.cpp */
    strbuf kernel;             /* <key>.kernel.cpp (CPU packages); empty when absent */
    strbuf kernel_info;        /* kernel_information.json; empty when absent */
    int has_kernel_info;
    strbuf wrapper_at, kernel_at;  /* where they were read: an archive entry or a path; empty when not read */
} package_sources;

#define PACKAGE_SOURCES_INIT {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0, STRBUF_INIT, STRBUF_INIT}

/* A .pt2: its model named model (NULL: "model" or its only one); a folder
 * or a wrapper.cpp: the kernel.cpp and kernel_information.json beside the
 * wrapper.cpp found (model is not used). */
int package_sources_read(const char *pkg, const char *model, size_t max, package_sources *out, strbuf *err);
void package_sources_release(package_sources *ps);

#endif
