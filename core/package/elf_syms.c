/* elf_syms.c — .dynsym reading with libelf (see elf_syms.h). */
#include "elf_syms.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ELF_MAX_SYMS 5000000   /* libtorch_cpu has ~10^5; cap hostile tables */

static void push(elf_symlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 256;
        const char **nn = realloc(l->names, nc * sizeof *nn);
        if (!nn)
            abort();
        l->names = nn;
        l->cap = nc;
    }
    l->names[l->n++] = arena_strdup(&l->arena, s);
    l->sorted = 0;
}

static int lib_ready(strbuf *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        strbuf_addf(err, "libelf is too old: %s", elf_errmsg(-1));
        return -1;
    }
    return 0;
}

/* Walks .dynsym (want_defined: exported; else undefined non-weak) or, for
 * needed != 0, the DT_NEEDED entries of .dynamic. */
static int walk(Elf *e, elf_symlist *out, const char *what, int want_defined, int needed, strbuf *err)
{
    if (elf_kind(e) != ELF_K_ELF) {
        strbuf_addf(err, "%s: not an ELF file", what);
        return -1;
    }
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0) {
        strbuf_addf(err, "%s: bad ELF section headers: %s", what, elf_errmsg(-1));
        return -1;
    }
    Elf_Scn *scn = NULL;
    int found = 0;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (needed ? sh.sh_type != SHT_DYNAMIC : sh.sh_type != SHT_DYNSYM)
            continue;
        found = 1;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || sh.sh_entsize == 0)
            continue;
        size_t count = sh.sh_size / sh.sh_entsize;
        if (count > ELF_MAX_SYMS) {
            strbuf_addf(err, "%s: %zu dynamic entries, over the limit", what, count);
            return -1;
        }
        for (size_t i = 0; i < count; i++) {
            if (needed) {
                GElf_Dyn dyn;
                if (!gelf_getdyn(d, (int)i, &dyn))
                    break;
                if (dyn.d_tag == DT_NEEDED) {
                    const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
                    if (s)
                        push(out, s);
                }
                continue;
            }
            GElf_Sym sym;
            if (!gelf_getsym(d, (int)i, &sym) || sym.st_name == 0)
                continue;
            int bind = GELF_ST_BIND(sym.st_info);
            int defined = sym.st_shndx != SHN_UNDEF;
            if (want_defined ? !defined || bind == STB_LOCAL : defined || bind == STB_WEAK)
                continue;
            const char *s = elf_strptr(e, sh.sh_link, sym.st_name);
            if (s && *s)
                push(out, s);
        }
    }
    if (!found && !needed && !want_defined) {
        strbuf_addf(err, "%s: no dynamic symbol table (.dynsym); not a shared library", what);
        return -1;
    }
    return 0;
}

static int from_memory(elf_symlist *out, const void *data, size_t len, const char *what, int defined, int needed,
                       strbuf *err)
{
    if (lib_ready(err) < 0)
        return -1;
    if (len < 4 || memcmp(data, "\x7f" "ELF", 4)) {
        strbuf_addf(err, "%s: not an ELF file (bad magic)", what);
        return -1;
    }
    Elf *e = elf_memory((char *)data, len);
    if (!e) {
        strbuf_addf(err, "%s: unreadable ELF: %s", what, elf_errmsg(-1));
        return -1;
    }
    int rc = walk(e, out, what, defined, needed, err);
    elf_end(e);
    return rc;
}

int elf_syms_undefined(elf_symlist *out, const void *data, size_t len, const char *what, strbuf *err)
{
    return from_memory(out, data, len, what, 0, 0, err);
}

int elf_syms_needed(elf_symlist *out, const void *data, size_t len, const char *what, strbuf *err)
{
    return from_memory(out, data, len, what, 0, 1, err);
}

int elf_syms_exported_file(elf_symlist *out, const char *path, strbuf *err)
{
    if (lib_ready(err) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!e) {
        strbuf_addf(err, "%s: unreadable ELF: %s", path, elf_errmsg(-1));
        close(fd);
        return -1;
    }
    int rc = walk(e, out, path, 1, 0, err);
    elf_end(e);
    close(fd);
    return rc;
}

static int cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int elf_symlist_has(elf_symlist *l, const char *name)
{
    if (!l->sorted) {
        if (l->n)
            qsort(l->names, l->n, sizeof *l->names, cmp);
        l->sorted = 1;
    }
    return l->n && bsearch(&name, l->names, l->n, sizeof *l->names, cmp) != NULL;
}

void elf_symlist_free(elf_symlist *l)
{
    free(l->names);
    arena_release(&l->arena);
    memset(l, 0, sizeof *l);
}

int elf_sym_is_torch(const char *s)
{
    if (!strncmp(s, "aoti_torch_", 11) || !strncmp(s, "AOTI", 4))
        return 1;
    if (strncmp(s, "_Z", 2))
        return 0;
    s += 2;
    if ((s[0] == 'T' && (s[1] == 'V' || s[1] == 'I' || s[1] == 'S' || s[1] == 'H')) || (s[0] == 'G' && s[1] == 'V'))
        s += 2;
    if (*s == 'N') {
        s++;
        while (*s == 'r' || *s == 'V' || *s == 'K' || *s == 'R' || *s == 'O')
            s++;
    }
    return !strncmp(s, "3c10", 4) || !strncmp(s, "2at", 3) || !strncmp(s, "5torch", 6) || !strncmp(s, "6caffe2", 7);
}
