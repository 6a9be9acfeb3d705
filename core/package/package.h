/* package.h — reading a .pt2 package (a zip) or a bare AOTI model .so.
 *
 * Owner: the package reader (core/package/package.c). A package_t owns its arena, its
 * extraction folder (a private mkdtemp folder, removed by package_close()),
 * and every string it hands out. Errors: functions return 0 / -1 and append
 * a message naming the file and the entry to `err`.
 *
 * Cost: opening reads the zip's directory and the small metadata entries only;
 * nothing reads the whole file except extraction and the SHA-256, which runs on
 * its own thread (package_sha256_start) while the caller goes on. Threads: a
 * package_t is used from one thread; the hash thread touches only its own fields.
 *
 * Untrusted input: entry names with "..", absolute paths, symlinks, duplicate
 * names, sizes over the caps and truncated archives are refused before
 * anything is extracted, and nothing is ever written outside the folder. */
#ifndef AOTIDBG_PACKAGE_H
#define AOTIDBG_PACKAGE_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "model.h"
#include "strbuf.h"

#define PACKAGE_MAX_ENTRY_BYTES  (8ULL << 30)   /* one entry, uncompressed */
#define PACKAGE_MAX_TOTAL_BYTES  (32ULL << 30)  /* all entries */
#define PACKAGE_MAX_ENTRIES      100000
#define PACKAGE_MAX_RATIO        1000           /* uncompressed / compressed, per entry */

typedef struct {
    const char *name;              /* model folder name under data/aotinductor/, "model" by default */
    const char *so_entry;          /* archive entry of <key>.wrapper.so; NULL if missing */
    const char *wrapper_cpp_entry, *kernel_cpp_entry, *metadata_entry, *proxy_json_entry; /* may be NULL */
    const char *kernel_info_entry;  /* kernel_information.json (provenance tracking on); may be NULL */
    const char *cmake_entry;       /* CMakeLists.txt: a package_cpp_only package (sources, no .so); may be NULL */
    size_t ncubins;  const char **cubin_entries;
    size_t nweights; const char **weight_entries;
    /* from <key>.wrapper_metadata.json; NULL when absent */
    const char *device_key, *compute_capability, *cpu_isa, *platform, *machine;
    /* the torch that built it, when recorded (AOTI_TORCH_VERSION: torch itself writes none;
     * aotidbg_prepare.py adds it); NULL otherwise */
    const char *torch_version;
    /* filled by package_extract(): absolute paths in the extraction folder */
    const char *so_path, *wrapper_cpp_path, *model_dir;  /* model_dir is the cubin_dir for the runner */
} package_model;

typedef struct package_t {
    arena arena;
    const char *path;              /* as the user gave it */
    int is_bare_so;                /* 1 for a deprecated torch._export.aot_compile .so */
    const char *root;              /* archive root folder ("mlp/") */
    size_t nentries;
    size_t nmodels;
    package_model *models;
    char *extract_dir;             /* NULL until extracted */
} package_t;

/* Opens and validates the archive (or bare .so); reads metadata. Extracts nothing. */
int package_open(package_t **out, const char *path, strbuf *err);

/* A package read through someone else's hands (--remote: byte ranges of a
 * file on another box). read() fills buf with up to len bytes at off and
 * returns how many (0 at the end), or -1 with err. */
typedef struct {
    void *ctx;
    uint64_t size;               /* the file's size */
    const char *sha256;          /* hex, computed where the file is */
    long (*read)(void *ctx, uint64_t off, void *buf, size_t len, strbuf *err);
    void (*release)(void *ctx);  /* called by package_close (or a failed open); may be NULL */
} package_source;
/* package_open for a package behind src (path names it in messages). Its
 * entries read as usual (package_read_entry); package_extract refuses (the
 * owner of src extracts where the file is, and fills so_path, model_dir and
 * wrapper_cpp_path itself). The package keeps a copy of *src and owns ctx. */
int package_open_source(package_t **out, const char *path, const package_source *src, strbuf *err);
/* Model by name (NULL: the only or the "model" one). NULL with a message if absent. */
package_model *package_find_model(package_t *p, const char *name, strbuf *err);
/* For a model with no .so that carries its sources and a CMakeLists.txt
 * (aot_inductor.package_cpp_only=True): what the package holds and the exact
 * commands that build the .so here and run it with aotidbg, appended to out. */
void package_cpp_only_help(const package_t *p, const package_model *m, strbuf *out);
/* Extracts one model's folder to a private temp folder; fills *_path fields. */
int package_extract(package_t *p, package_model *m, strbuf *err);
/* The same on a thread of its own (its own open of the file, so the package
 * stays usable meanwhile: entries, the checklist), for a front end that shows
 * its first screen or starts the runner while the weights are written.
 * package_extract_fd() is readable once the thread is done (for poll());
 * package_extract_progress() gives the bytes written and to write, and
 * returns 1 while it runs, 0 once done (or when none was started);
 * package_extract_finish() waits for it and then fills m's *_path fields as
 * package_extract does (0), or says why it failed (-1). package_close() stops
 * one nobody waited for. One at a time per package. */
int package_extract_start(package_t *p, package_model *m, strbuf *err);
int package_extract_fd(const package_t *p);   /* -1 when none is running */
int package_extract_progress(const package_t *p, uint64_t *done, uint64_t *total);
int package_extract_finish(package_t *p, strbuf *err);
/* What the router's Triton trace reads the generated code from (triton_trace.h):
 * the extracted wrapper.cpp, else the package itself; NULL for a bare .so. */
const char *package_trace_source(const package_t *p, const package_model *m);
/* Copies one entry into the package's private folder here (made as for
 * package_extract) and returns its path there (package arena), for code that
 * reads files, when the package itself is elsewhere (package_open_source). */
const char *package_mirror_entry(package_t *p, const char *entry, size_t max, strbuf *err);
/* Reads an archive entry fully (capped at max bytes) into sb. */
int package_read_entry(package_t *p, const char *entry, size_t max, strbuf *sb, strbuf *err);
/* Reads a .pt2 entry to its end and drops it: -1 (err) when it cannot be read
 * or its CRC-32 does not match (a damaged copy). 0 for a bare .so. */
int package_entry_intact(package_t *p, const char *entry, strbuf *err);
/* Random access to one entry's bytes (for a bare .so: the file), for readers
 * that want a few parts of a large entry (the symbol tables of a .so that is
 * mostly weights): stored entries seek, compressed ones read forward and start
 * over when asked to go back. The entry name is borrowed. */
typedef struct package_entry package_entry;
int package_entry_open(package_t *p, const char *entry, package_entry **out, uint64_t *size, strbuf *err);
/* Reads exactly n bytes at off; 0, or -1 with err. `entry` is a package_entry*
 * (the signature is elf_syms.h's elf_read_fn). */
int package_entry_read_at(void *entry, uint64_t off, void *buf, size_t n, strbuf *err);
void package_entry_close(package_entry *e);
/* Starts hashing the whole file (SHA-256, libcrypto) on a thread of its own;
 * a second call does nothing. */
void package_sha256_start(package_t *p);
/* The file's hex SHA-256 (p owns it): waits for the thread, or hashes here when
 * none was started. NULL with a message when the file cannot be read. */
const char *package_sha256(package_t *p, strbuf *err);
/* The hash when it is known now (the thread has ended, or it was computed),
 * else NULL: never waits. */
const char *package_sha256_ready(package_t *p);
/* The session's package mapping (path, model, device key, compute capability,
 * CPU ISA) from p and m, copied into s's arena; sha256 is set apart: */
void package_to_session(const package_t *p, const package_model *m, session *s);
/* s->package.sha256 from package_sha256() (waits for it); when the file could
 * not be hashed, the key stays out and a note says why. */
void package_sha256_to_session(package_t *p, session *s);
/* Removes the extraction folder, stops a hash nobody waited for; NULL is fine. */
void package_close(package_t *p);
/* Hex SHA-256 of a file into hex (65 bytes). */
int package_sha256_file(const char *path, char hex[65], strbuf *err);

#endif
