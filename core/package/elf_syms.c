/* elf_syms.c — .dynsym reading with libelf (see elf_syms.h). */
#define _GNU_SOURCE
#include "elf_syms.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_MAX_SYMS 5000000   /* libtorch_cpu has ~10^5; cap hostile tables */
#define ELF_MAX_PIECES_BYTES (512ULL << 20)   /* section headers + tables read piecewise */

static void push(elf_symlist *l, const char *s)
{
    ALLOC_GROW(l->names, l->n + 1, l->cap);
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

static void push_visit(void *ctx, const char *s) { push(ctx, s); }

/* Walks .dynsym (want_defined: exported; else undefined non-weak) or, for
 * needed != 0, the DT_NEEDED entries of .dynamic, calling visit for each name
 * (valid while e is open). */
static int walk_names(Elf *e, const char *what, int want_defined, int needed, void (*visit)(void *, const char *),
                      void *ctx, strbuf *err)
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
                        visit(ctx, s);
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
                visit(ctx, s);
        }
    }
    if (!found && !needed && !want_defined) {
        strbuf_addf(err, "%s: no dynamic symbol table (.dynsym); not a shared library", what);
        return -1;
    }
    return 0;
}

static int walk(Elf *e, elf_symlist *out, const char *what, int want_defined, int needed, strbuf *err)
{
    return walk_names(e, what, want_defined, needed, push_visit, out, err);
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

/* ---- piecewise: an image that is mostly weights ----
 * A model .so is hundreds of MB of constants and a few hundred KB that the
 * symbol check needs. The image is an untouched anonymous mapping of its full
 * size (no memory until written) where only the ELF header, the section header
 * table and the dynamic tables with their string tables are filled in from rd;
 * libelf then parses it as if it were whole. */
typedef struct {
    char *img;
    uint64_t size, read;
    elf_read_fn rd;
    void *ctx;
    const char *what;
} pieces;

static int fill(pieces *pc, uint64_t off, uint64_t n, strbuf *err)
{
    if (off > pc->size || n > pc->size - off) {
        strbuf_addf(err, "%s: unreadable ELF: a table at bytes %llu..%llu lies past the end (%llu bytes)", pc->what,
                    (unsigned long long)off, (unsigned long long)(off + n), (unsigned long long)pc->size);
        return -1;
    }
    if ((pc->read += n) > ELF_MAX_PIECES_BYTES) {
        strbuf_addf(err, "%s: its section and symbol tables are over %llu MB; refusing", pc->what,
                    ELF_MAX_PIECES_BYTES >> 20);
        return -1;
    }
    return n ? pc->rd(pc->ctx, off, pc->img + off, (size_t)n, err) : 0;
}

static Elf *reopen(pieces *pc, Elf *e, strbuf *err)
{
    if (e)
        elf_end(e);
    e = elf_memory(pc->img, pc->size);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        strbuf_addf(err, "%s: unreadable ELF: %s", pc->what, e ? "not an ELF file" : elf_errmsg(-1));
        if (e)
            elf_end(e);
        return NULL;
    }
    return e;
}

int elf_syms_undefined_read(elf_symlist *out, elf_read_fn rd, void *ctx, uint64_t size, const char *what,
                            strbuf *err)
{
    if (lib_ready(err) < 0)
        return -1;
    if (size < 64) {
        strbuf_addf(err, "%s: not an ELF file (%llu bytes)", what, (unsigned long long)size);
        return -1;
    }
    pieces pc = {NULL, size, 0, rd, ctx, what};
    pc.img = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pc.img == MAP_FAILED) {
        strbuf_addf(err, "%s: cannot map %llu bytes: %s", what, (unsigned long long)size, strerror(errno));
        return -1;
    }
    Elf *e = NULL;
    int rc = -1;
    GElf_Ehdr eh;
    size_t nsec = 0;
    /* 1: the header says where the section headers are; 2: the first of them
     * may hold their count (extended numbering); 3: the whole table */
    if (fill(&pc, 0, 64, err) < 0)
        goto out;
    if (memcmp(pc.img, "\x7f" "ELF", 4)) {
        strbuf_addf(err, "%s: not an ELF file (bad magic)", what);
        goto out;
    }
    if (!(e = reopen(&pc, e, err)))
        goto out;
    if (!gelf_getehdr(e, &eh) || !eh.e_shoff || !eh.e_shentsize) {
        strbuf_addf(err, "%s: no section headers; not a shared library", what);
        goto out;
    }
    if (fill(&pc, eh.e_shoff, eh.e_shentsize, err) < 0 || !(e = reopen(&pc, e, err)))
        goto out;
    if (elf_getshdrnum(e, &nsec) != 0 || nsec == 0 || nsec > size / eh.e_shentsize) {
        strbuf_addf(err, "%s: unreadable ELF: bad section count", what);
        goto out;
    }
    if (fill(&pc, eh.e_shoff + eh.e_shentsize, (uint64_t)(nsec - 1) * eh.e_shentsize, err) < 0 ||
        !(e = reopen(&pc, e, err)))
        goto out;
    /* the dynamic symbol table and its strings; nothing else is read */
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
        GElf_Shdr sh, str;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
            continue;
        Elf_Scn *ss = elf_getscn(e, sh.sh_link);
        if (fill(&pc, sh.sh_offset, sh.sh_size, err) < 0 ||
            (ss && gelf_getshdr(ss, &str) && str.sh_type != SHT_NOBITS &&
             fill(&pc, str.sh_offset, str.sh_size, err) < 0))
            goto out;
    }
    rc = walk(e, out, what, 0, 0, err);
out:
    if (e)
        elf_end(e);
    munmap(pc.img, size);
    return rc;
}

typedef struct { int fd; const char *path; } file_ctx;

static int pread_all(void *ctx, uint64_t off, void *buf, size_t n, strbuf *err)
{
    const file_ctx *f = ctx;
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(f->fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            strbuf_addf(err, "%s: read error: %s", f->path, r ? strerror(errno) : "the file got shorter");
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

int elf_syms_undefined_file(elf_symlist *out, const char *path, strbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    file_ctx f = {fd, path};
    int rc = elf_syms_undefined_read(out, pread_all, &f, (uint64_t)st.st_size, path, err);
    close(fd);
    return rc;
}

/* Opens path with libelf (mapped: only the pages read are touched) and walks
 * its exported symbols. */
static int exported_walk(const char *path, void (*visit)(void *, const char *), void *ctx, strbuf *err)
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
    int rc = walk_names(e, path, 1, 0, visit, ctx, err);
    elf_end(e);
    close(fd);
    return rc;
}

static int cmp(const void *a, const void *b);
static void sort_list(elf_symlist *l);

typedef struct { elf_symlist *want; unsigned char *found; } mark_ctx;

static void mark_visit(void *ctx, const char *s)
{
    mark_ctx *m = ctx;
    const char **hit = m->want->n ? bsearch(&s, m->want->names, m->want->n, sizeof *m->want->names, cmp) : NULL;
    if (hit)
        m->found[hit - m->want->names] = 1;
}

int elf_syms_mark_exported(const char *path, elf_symlist *want, unsigned char *found, strbuf *err)
{
    sort_list(want);
    mark_ctx m = {want, found};
    return exported_walk(path, mark_visit, &m, err);
}

static int cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void sort_list(elf_symlist *l)
{
    if (!l->sorted && l->n)
        qsort(l->names, l->n, sizeof *l->names, cmp);
    l->sorted = 1;
}

void elf_symlist_add(elf_symlist *l, const char *name) { push(l, name); }

long elf_symlist_index(elf_symlist *l, const char *name)
{
    sort_list(l);
    const char **hit = l->n ? bsearch(&name, l->names, l->n, sizeof *l->names, cmp) : NULL;
    return hit ? (long)(hit - l->names) : -1;
}

void elf_symlist_free(elf_symlist *l)
{
    free(l->names);
    arena_release(&l->arena);
    memset(l, 0, sizeof *l);
}

int elf_sym_is_torch(const char *s)
{
    if (starts_with(s, "aoti_torch_") || starts_with(s, "AOTI"))
        return 1;
    if (!starts_with(s, "_Z"))
        return 0;
    s += 2;
    if ((s[0] == 'T' && (s[1] == 'V' || s[1] == 'I' || s[1] == 'S' || s[1] == 'H')) || (s[0] == 'G' && s[1] == 'V'))
        s += 2;
    if (*s == 'N') {
        s++;
        while (*s == 'r' || *s == 'V' || *s == 'K' || *s == 'R' || *s == 'O')
            s++;
    }
    return starts_with(s, "3c10") || starts_with(s, "2at") || starts_with(s, "5torch") || starts_with(s, "6caffe2");
}
