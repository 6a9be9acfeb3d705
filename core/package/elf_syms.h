/* elf_syms.h — dynamic symbol tables of ELF shared objects, read with libelf.
 *
 * Owner: core/package/elf_syms.c. Used by the checklist to find symbols a model .so
 * needs from libtorch that the local libtorch does not export (the usual
 * sign of a package built against another torch). Never runs nm or the
 * dynamic loader: the files are only parsed.
 * Ownership: an elf_symlist owns its strings (arena) and array (malloc);
 * release with elf_symlist_free(). Errors: 0 / -1 with a message in err. */
#ifndef AOTIDBG_ELF_SYMS_H
#define AOTIDBG_ELF_SYMS_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "strbuf.h"

typedef struct {
    arena arena;
    size_t n, cap;
    const char **names;
    int sorted;
} elf_symlist;

#define ELF_SYMLIST_INIT {ARENA_INIT, 0, 0, NULL, 0}

/* Appends the undefined, non-weak symbols of .dynsym of the ELF image in
 * memory (data, len); `what` names it in messages. */
int elf_syms_undefined(elf_symlist *out, const void *data, size_t len, const char *what, strbuf *err);
/* Reads n bytes at offset off of an image into buf: 0, or -1 with err. */
typedef int (*elf_read_fn)(void *ctx, uint64_t off, void *buf, size_t n, strbuf *err);
/* elf_syms_undefined for an image of `size` bytes read through rd, which is
 * asked only for the ELF header, the section header table, .dynsym and its
 * string table (a few hundred KB of a model .so that is mostly weights);
 * memory use does not grow with size. */
int elf_syms_undefined_read(elf_symlist *out, elf_read_fn rd, void *ctx, uint64_t size, const char *what,
                            strbuf *err);
/* The same for a file (an extracted .so). */
int elf_syms_undefined_file(elf_symlist *out, const char *path, strbuf *err);
/* Sets found[i] = 1 for each name i of want (sorted first, so the indices are
 * those of want after the call) that the file at path exports. Nothing is
 * copied: a library of 10^5 exports costs one pass over its tables. */
int elf_syms_mark_exported(const char *path, elf_symlist *want, unsigned char *found, strbuf *err);
/* name's index in the sorted list (sorts on first use), -1 when absent. */
long elf_symlist_index(elf_symlist *l, const char *name);
void elf_symlist_add(elf_symlist *l, const char *name);   /* copies name */
void elf_symlist_free(elf_symlist *l);
/* 1 for names a model .so gets from libtorch: aoti_torch_*, AOTI*, and C++
 * symbols in the c10, at, torch and caffe2 namespaces. */
int elf_sym_is_torch(const char *name);

#endif
