/* test_package.c — the package reader on archives built here with libzip:
 * classification of entries, metadata, extraction into a private folder that
 * package_close() removes, and refusal (before extracting anything) of
 * "..", absolute paths, symlinks, zip bombs, truncated archives and bad JSON.
 * SHA-256 is checked against the FIPS 180-4 example vectors, and the hash
 * thread against the plain hash. A real ELF (this test's own binary) inside
 * stored and deflated entries: its symbols read piecewise equal those of the
 * whole image, and hostile section tables are refused, not followed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include "check.h"
#include "elf_syms.h"
#include "package.h"

static char tmpdir[256];

typedef struct { const char *name; const char *data; size_t len; int symlink; } zent;

/* Writes a zip at path with the given entries (deflated). */
static void make_zip(const char *path, const zent *e, size_t n)
{
    int zerr;
    unlink(path);
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    CHECK(z != NULL);
    if (!z)
        return;
    for (size_t i = 0; i < n; i++) {
        size_t len = e[i].len ? e[i].len : strlen(e[i].data);
        zip_source_t *s = zip_source_buffer(z, e[i].data, len, 0);
        zip_int64_t idx = zip_file_add(z, e[i].name, s, ZIP_FL_ENC_UTF_8);
        CHECK(idx >= 0);
        if (e[i].symlink)
            zip_file_set_external_attributes(z, (zip_uint64_t)idx, 0, ZIP_OPSYS_UNIX, (0120777u) << 16);
    }
    CHECK(zip_close(z) == 0);
}

static char *tpath(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cuda\", \"AOTI_PLATFORM\": \"linux\", \"AOTI_MACHINE\": \"x86_64\", "
                           "\"AOTI_CPU_ISA\": \"AVX2\", \"AOTI_COMPUTE_CAPABILITY\": \"90\"}";

static void good_entries(zent *e)
{
    zent g[] = {
        {"pkg/archive_format", "pt2"},
        {"pkg/data/aotinductor/model/ckey.wrapper.so", "\x7f" "ELF not really"},
        {"pkg/data/aotinductor/model/ckey.wrapper.cpp", "// wrapper\n"},
        {"pkg/data/aotinductor/model/kkey.kernel.cpp", "// kernels\n"},
        {"pkg/data/aotinductor/model/ckey.wrapper_metadata.json", meta},
        {"pkg/data/aotinductor/model/kkey.kernel_metadata.json", "{\"AOTI_DEVICE_KEY\": \"cpu\"}"},
        {"pkg/data/aotinductor/model/c1.cubin", "cubin-one"},
        {"pkg/data/aotinductor/model/c2.cubin", "cubin-two"},
        {"pkg/data/aotinductor/model/weights_config.json", "{\"w\": [\"weight_0\", [2], [1], 0]}"},
        {"pkg/data/weights/weight_0", "WEIGHTS"},
        {"pkg/data/aotinductor/other/okey.wrapper.so", "\x7f" "ELF"},
    };
    memcpy(e, g, sizeof g);
}
#define NGOOD 11

static void test_open_classify(void)
{
    zent e[NGOOD];
    good_entries(e);
    make_zip(tpath("good.pt2"), e, NGOOD);
    package_t *p;
    strbuf err = STRBUF_INIT;
    CHECK(package_open(&p, tpath("good.pt2"), &err) == 0);
    if (!p) {
        fprintf(stderr, "%s\n", err.buf);
        return;
    }
    CHECK_STR(p->root, "pkg/");
    CHECK(p->nentries == NGOOD && p->nmodels == 2 && !p->is_bare_so);
    package_model *m = package_find_model(p, NULL, &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(m->name, "model");
        CHECK_STR(m->so_entry, "pkg/data/aotinductor/model/ckey.wrapper.so");
        CHECK_STR(m->wrapper_cpp_entry, "pkg/data/aotinductor/model/ckey.wrapper.cpp");
        CHECK_STR(m->metadata_entry, "pkg/data/aotinductor/model/ckey.wrapper_metadata.json");
        CHECK_STR(m->device_key, "cuda");
        CHECK_STR(m->compute_capability, "90");
        CHECK_STR(m->cpu_isa, "AVX2");
        CHECK(m->ncubins == 2);
        CHECK(m->nweights == 2);   /* weights_config.json + data/weights/weight_0 */
    }
    package_model *o = package_find_model(p, "other", &err);
    CHECK(o && o->so_entry && !o->metadata_entry && !o->device_key);
    strbuf_reset(&err);
    CHECK(package_find_model(p, "nope", &err) == NULL);
    CHECK_CONTAINS(err.buf, "no model 'nope'");
    CHECK_CONTAINS(err.buf, "other");

    strbuf sb = STRBUF_INIT;
    CHECK(package_read_entry(p, "pkg/data/weights/weight_0", 100, &sb, &err) == 0);
    CHECK_STR(sb.buf, "WEIGHTS");
    strbuf_reset(&err);
    CHECK(package_read_entry(p, "pkg/data/weights/weight_0", 3, &sb, &err) < 0);
    CHECK_CONTAINS(err.buf, "limit");

    /* extraction: the model folder and shared weights, nothing else */
    CHECK(package_extract(p, m, &err) == 0);
    CHECK(p->extract_dir != NULL);
    char *dir = strdup(p->extract_dir ? p->extract_dir : "");
    CHECK(!strncmp(dir, tmpdir, strlen(tmpdir)));   /* under $TMPDIR */
    strbuf_reset(&sb);
    CHECK(strbuf_read_file(&sb, m->so_path, 100, &err) == 0);
    CHECK(sb.len == strlen("\x7f" "ELF not really") && !memcmp(sb.buf, "\x7f" "ELF", 4));
    char c1[1024];
    snprintf(c1, sizeof c1, "%s/c1.cubin", m->model_dir);
    CHECK(access(c1, R_OK) == 0);
    snprintf(c1, sizeof c1, "%s/data/weights/weight_0", dir);
    CHECK(access(c1, R_OK) == 0);
    snprintf(c1, sizeof c1, "%s/data/aotinductor/other", dir);
    CHECK(access(c1, F_OK) != 0);   /* other model not extracted */
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    package_close(p);
    CHECK(access(dir, F_OK) != 0);   /* removed */
    free(dir);
    strbuf_release(&sb);
    strbuf_release(&err);
}

/* Each bad archive is refused at open with a message naming the entry, and
 * nothing appears in $TMPDIR. */
static void refused(const char *file, const zent *e, size_t n, const char *want1, const char *want2)
{
    make_zip(tpath(file), e, n);
    package_t *p = (package_t *)1;
    strbuf err = STRBUF_INIT;
    CHECK(package_open(&p, tpath(file), &err) < 0);
    CHECK(p == NULL);
    CHECK_CONTAINS(err.buf, want1);
    if (want2)
        CHECK_CONTAINS(err.buf, want2);
    strbuf_release(&err);
}

static int count_extract_dirs(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += !strncmp(de->d_name, "aotidbg-pkg-", 12);
    if (d)
        closedir(d);
    return n;
}

static void test_refusals(void)
{
    zent e[NGOOD + 1];
    good_entries(e);
    e[NGOOD] = (zent){"pkg/../../escape", "x"};
    refused("dotdot.pt2", e, NGOOD + 1, "'pkg/../../escape' refused", "'..'");
    e[NGOOD] = (zent){"/etc/evil", "x"};
    refused("abs.pt2", e, NGOOD + 1, "'/etc/evil' refused", "absolute");
    e[NGOOD] = (zent){"pkg/data/aotinductor/model/link.cubin", "/etc/passwd", 0, 1};
    refused("link.pt2", e, NGOOD + 1, "link.cubin' refused", "symbolic link");
    e[NGOOD] = (zent){"pkg/a\\b", "x"};
    refused("bslash.pt2", e, NGOOD + 1, "refused", "backslash");
    e[NGOOD] = (zent){"other/x", "x"};
    refused("root.pt2", e, NGOOD + 1, "'other/x' is outside the root folder", NULL);

    /* zip bomb: 64 MiB of zeros deflate ~1000:1 */
    size_t big = 64u << 20;
    char *zeros = calloc(1, big);
    e[NGOOD] = (zent){"pkg/data/aotinductor/model/bomb.blob", zeros, big};
    refused("bomb.pt2", e, NGOOD + 1, "bomb.blob' refused", "compression ratio");
    free(zeros);

    zent none[] = {{"pkg/readme", "x"}};
    refused("nomodel.pt2", none, 1, "no model under pkg/data/aotinductor/", NULL);

    good_entries(e);
    e[4].data = "{\"AOTI_DEVICE_KEY\": ";
    refused("badjson.pt2", e, NGOOD, "ckey.wrapper_metadata.json: not a JSON object", NULL);
    CHECK(count_extract_dirs() == 0);
}

static void test_truncated_and_not_zip(void)
{
    zent e[NGOOD];
    good_entries(e);
    make_zip(tpath("full.pt2"), e, NGOOD);
    struct stat st;
    CHECK(stat(tpath("full.pt2"), &st) == 0);
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    CHECK(strbuf_read_file(&sb, tpath("full.pt2"), 1 << 20, &err) == 0);
    for (size_t cut = 1; cut < 4; cut++) {
        FILE *f = fopen(tpath("cut.pt2"), "wb");
        fwrite(sb.buf, 1, sb.len * cut / 4, f);
        fclose(f);
        package_t *p;
        strbuf_reset(&err);
        CHECK(package_open(&p, tpath("cut.pt2"), &err) < 0);
        CHECK_CONTAINS(err.buf, "truncated");
    }
    FILE *f = fopen(tpath("text.pt2"), "wb");
    fputs("hello, not a zip\n", f);
    fclose(f);
    package_t *p;
    strbuf_reset(&err);
    CHECK(package_open(&p, tpath("text.pt2"), &err) < 0);
    CHECK_CONTAINS(err.buf, "not a readable .pt2 package");
    strbuf_reset(&err);
    CHECK(package_open(&p, tpath("missing.pt2"), &err) < 0);
    CHECK_CONTAINS(err.buf, "No such file");
    strbuf_reset(&err);
    CHECK(package_open(&p, tmpdir, &err) < 0);
    CHECK_CONTAINS(err.buf, "not a regular file");
    strbuf_release(&sb);
    strbuf_release(&err);
}

static void test_bare_so(void)
{
    FILE *f = fopen(tpath("model.so"), "wb");
    fputs("\x7f" "ELF bare", f);
    fclose(f);
    f = fopen(tpath("model.cpp"), "wb");   /* aot_compile's older naming: <stem>.cpp */
    fputs("// wrapper\n", f);
    fclose(f);
    package_t *p;
    strbuf err = STRBUF_INIT;
    CHECK(package_open(&p, tpath("model.so"), &err) == 0);
    if (!p)
        return;
    CHECK(p->is_bare_so && p->nmodels == 1);
    package_model *m = package_find_model(p, NULL, &err);
    CHECK(m && m->so_path && m->device_key == NULL);
    CHECK_CONTAINS(m->so_path, "/model.so");
    CHECK_STR(m->model_dir, tmpdir);
    CHECK_CONTAINS(m->wrapper_cpp_entry, "/model.cpp");
    CHECK(package_extract(p, m, &err) == 0 && p->extract_dir == NULL);
    package_close(p);
    CHECK(access(tpath("model.so"), R_OK) == 0);   /* never removes the user's file */
    strbuf_release(&err);
}

static void test_sha256(void)
{
    char hex[65];
    strbuf err = STRBUF_INIT;
    FILE *f = fopen(tpath("abc"), "wb");
    fputs("abc", f);
    fclose(f);
    CHECK(package_sha256_file(tpath("abc"), hex, &err) == 0);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    f = fopen(tpath("empty"), "wb");
    fclose(f);
    CHECK(package_sha256_file(tpath("empty"), hex, &err) == 0);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    f = fopen(tpath("two"), "wb");
    fputs("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", f);   /* 448 bits: padding edge */
    fclose(f);
    CHECK(package_sha256_file(tpath("two"), hex, &err) == 0);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    strbuf_release(&err);
}

/* The same names in the same order. */
static int same_list(const elf_symlist *a, const elf_symlist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->names[i], b->names[i]))
            return 0;
    return 1;
}

static void test_piecewise_elf(void)
{
    strbuf img = STRBUF_INIT, err = STRBUF_INIT;
    CHECK(strbuf_read_file(&img, "/proc/self/exe", 64u << 20, &err) == 0);
    elf_symlist whole = ELF_SYMLIST_INIT, file = ELF_SYMLIST_INIT;
    CHECK(elf_syms_undefined(&whole, img.buf, img.len, "self", &err) == 0 && whole.n > 5);
    CHECK(elf_syms_undefined_file(&file, "/proc/self/exe", &err) == 0);
    CHECK(same_list(&whole, &file));
    for (int stored = 0; stored < 2; stored++) {
        const char *so = "pkg/data/aotinductor/model/k.wrapper.so";
        int zerr;
        unlink(tpath("elf.pt2"));
        zip_t *z = zip_open(tpath("elf.pt2"), ZIP_CREATE | ZIP_TRUNCATE, &zerr);
        zip_int64_t idx = zip_file_add(z, so, zip_source_buffer(z, img.buf, img.len, 0), 0);
        zip_set_file_compression(z, (zip_uint64_t)idx, stored ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0);
        CHECK(zip_close(z) == 0);
        package_t *p;
        CHECK(package_open(&p, tpath("elf.pt2"), &err) == 0);
        if (!p)
            break;
        package_sha256_start(p);
        package_entry *pe;
        uint64_t size = 0;
        CHECK(package_entry_open(p, so, &pe, &size, &err) == 0 && size == img.len);
        char b[8];   /* backwards and forwards: stored entries seek, deflated ones start over */
        CHECK(package_entry_read_at(pe, img.len - 8, b, 8, &err) == 0 && !memcmp(b, img.buf + img.len - 8, 8));
        CHECK(package_entry_read_at(pe, 1, b, 3, &err) == 0 && !memcmp(b, "ELF", 3));
        CHECK(package_entry_read_at(pe, img.len - 2, b, 3, &err) < 0);
        CHECK_CONTAINS(err.buf, "past its end");
        elf_symlist piece = ELF_SYMLIST_INIT;
        CHECK(elf_syms_undefined_read(&piece, package_entry_read_at, pe, size, "k.wrapper.so", &err) == 0);
        CHECK(same_list(&whole, &piece));
        elf_symlist_free(&piece);
        package_entry_close(pe);
        char hex[65];
        const char *sha = package_sha256(p, &err);
        CHECK(package_sha256_file(tpath("elf.pt2"), hex, &err) == 0);
        CHECK(sha && !strcmp(sha, hex));
        package_close(p);
    }
    /* section headers pointing past the end: an error naming the file */
    strbuf bad = STRBUF_INIT;
    strbuf_add(&bad, img.buf, img.len);
    uint64_t far = (uint64_t)img.len * 4;
    memcpy(bad.buf + 0x28, &far, 8);   /* e_shoff of a 64-bit header */
    FILE *f = fopen(tpath("bad.so"), "wb");
    fwrite(bad.buf, 1, bad.len, f);
    fclose(f);
    elf_symlist none = ELF_SYMLIST_INIT;
    strbuf_reset(&err);
    CHECK(elf_syms_undefined_file(&none, tpath("bad.so"), &err) < 0);
    CHECK_CONTAINS(err.buf, "bad.so");
    /* a package closed while its hash runs stops it */
    package_t *p;
    if (package_open(&p, tpath("elf.pt2"), &err) == 0) {
        package_sha256_start(p);
        package_close(p);
    }
    elf_symlist_free(&none);
    elf_symlist_free(&whole);
    elf_symlist_free(&file);
    strbuf_release(&bad);
    strbuf_release(&img);
    strbuf_release(&err);
}

/* Extraction on its own thread: the package stays usable meanwhile (entries
 * read on this thread), the fd turns readable at the end, the paths are those
 * of package_extract; closed early, it stops and leaves nothing. */
static void test_extract_thread(void)
{
    zent e[NGOOD];
    good_entries(e);
    make_zip(tpath("thr.pt2"), e, NGOOD);
    strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
    package_t *p;
    CHECK(package_open(&p, tpath("thr.pt2"), &err) == 0);
    if (!p)
        return;
    package_model *m = package_find_model(p, NULL, &err);
    CHECK(package_extract_start(p, m, &err) == 0);
    CHECK(package_extract_fd(p) >= 0);
    CHECK(package_extract_start(p, m, &err) < 0);   /* one at a time */
    CHECK(package_read_entry(p, "pkg/data/weights/weight_0", 100, &sb, &err) == 0);
    CHECK_STR(sb.buf, "WEIGHTS");
    struct pollfd pfd = {package_extract_fd(p), POLLIN, 0};
    CHECK(poll(&pfd, 1, 10000) == 1);
    uint64_t done = 0, total = 0;
    CHECK(package_extract_progress(p, &done, &total) == 0 && done == total && total > 0);
    CHECK(m->so_path == NULL);   /* until finished */
    CHECK(package_extract_finish(p, &err) == 0);
    CHECK(m->so_path && access(m->so_path, R_OK) == 0);
    CHECK(package_extract_fd(p) < 0);
    package_close(p);
    /* closed while extracting: the folder goes */
    CHECK(package_open(&p, tpath("thr.pt2"), &err) == 0);
    if (p) {
        m = package_find_model(p, NULL, &err);
        CHECK(package_extract_start(p, m, &err) == 0);
        char *dir = strdup(p->extract_dir);
        package_close(p);
        CHECK(access(dir, F_OK) != 0);
        free(dir);
    }
    strbuf_release(&sb);
    strbuf_release(&err);
}

static int rm_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_package.XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    setenv("TMPDIR", tmpdir, 1);
    RUN(test_open_classify);
    RUN(test_refusals);
    RUN(test_truncated_and_not_zip);
    RUN(test_bare_so);
    RUN(test_sha256);
    RUN(test_piecewise_elf);
    RUN(test_extract_thread);
    rm_tree(tmpdir);
    return CHECK_DONE();
}
