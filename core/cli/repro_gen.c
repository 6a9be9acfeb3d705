/* repro_gen.c — a repro folder from a capture and the package's code (repro_gen.h). */
#define _GNU_SOURCE
#include "repro_gen.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compat.h"
#include "repro_support.h"
#include "wrapper_scan.h"

#define MAX_DEFS 64   /* scalar definitions one call may pull in */

/* ---- capture.txt -------------------------------------------------------------- */

static char *field(char **p)
{
    char *s = *p, *t = s ? strchr(s, '\t') : NULL;
    if (t) {
        *t = 0;
        *p = t + 1;
    } else {
        *p = NULL;
    }
    return xstrdup(s ? s : "");
}

int repro_capture_read(const char *dir, repro_capture *c, strbuf *err)
{
    memset(c, 0, sizeof *c);
    c->index = -1;
    c->kernels = -1;
    strbuf_init(&c->skipped, 0);
    strbuf text = STRBUF_INIT;
    char *path = NULL;
    if (asprintf(&path, "%s/capture.txt", dir) < 0 || strbuf_read_file(&text, path, 64u << 20, err)) {
        free(path);
        strbuf_release(&text);
        return -1;
    }
    size_t cap = 0;
    for (char *line = text.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *p = line, *kind = field(&p);
        if (!strcmp(kind, "kernel")) {
            char *ix = field(&p);
            c->index = strtoll(ix, NULL, 10);
            free(ix);
            c->name = field(&p);
            c->branch = field(&p);
            c->source = field(&p);
        } else if (!strcmp(kind, "tensor")) {
            if (c->nt == cap) {
                cap = cap ? cap * 2 : 16;
                c->t = xrealloc_array(c->t, cap, sizeof *c->t);
            }
            repro_tensor *t = &c->t[c->nt++];
            t->phase = field(&p);
            t->name = field(&p);
            t->file = field(&p);
            t->dtype = field(&p);
            t->shape = field(&p);
            t->strides = field(&p);
            t->layout = field(&p);
            char *ptr = field(&p), *nb = field(&p);
            t->ptr = strtoull(ptr, NULL, 16);
            t->nbytes = strtoull(nb, NULL, 10);
            free(ptr);
            free(nb);
        } else if (!strcmp(kind, "status")) {
            c->status = field(&p);
        } else if (!strcmp(kind, "launch")) {
            c->has_launch = 1;
        } else if (!strcmp(kind, "missing")) {
            char *n = field(&p);
            c->kernels = strtoll(n, NULL, 10);
            free(n);
        } else if (!strcmp(kind, "skipped")) {
            char *n = field(&p), *why = field(&p);
            strbuf_addf(&c->skipped, "%s: %s\n", n, why);
            free(n);
            free(why);
        }
        free(kind);
        line = nl ? nl + 1 : NULL;
    }
    free(path);
    strbuf_release(&text);
    if (!c->status) c->status = xstrdup("");
    return 0;
}

void repro_capture_release(repro_capture *c)
{
    for (size_t i = 0; i < c->nt; i++) {
        repro_tensor *t = &c->t[i];
        free(t->phase); free(t->name); free(t->file); free(t->dtype); free(t->shape); free(t->strides); free(t->layout);
    }
    free(c->t);
    free(c->name);
    free(c->branch);
    free(c->source);
    free(c->status);
    strbuf_release(&c->skipped);
    memset(c, 0, sizeof *c);
}

/* ---- reading the generated C++ ---------------------------------------------------- */

static int ident_char(int ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* The end of the balanced (...) starting at s[at] == '(' (the index after ')'), or 0. */
static size_t match_paren(const char *s, size_t len, size_t at, char open, char close)
{
    int depth = 0;
    for (size_t i = at; i < len; i++) {
        if (s[i] == '"') {   /* skip string literals: kernel messages hold parentheses */
            for (i++; i < len && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            continue;
        }
        if (s[i] == open) depth++;
        else if (s[i] == close && --depth == 0) return i + 1;
    }
    return 0;
}

static size_t line_start(const char *s, size_t at)
{
    while (at > 0 && s[at - 1] != '\n') at--;
    return at;
}

/* The call-th call expression `name(...)` in s (not a declaration, a string or
 * a comment): its start in *b and end in *e. 0 found, -1 not. */
static int find_call(const char *s, const char *name, int64_t call, size_t *b, size_t *e)
{
    size_t len = strlen(s), nl = strlen(name);
    int64_t seen = 0;
    for (const char *p = s; (p = strstr(p, name)); p += nl) {
        size_t at = (size_t)(p - s);
        if ((at && (ident_char(s[at - 1]) || s[at - 1] == '"' || s[at - 1] == '.')) || p[nl] != '(') continue;
        size_t ls = line_start(s, at);
        const char *l = s + ls;
        while (*l == ' ' || *l == '\t') l++;
        if (starts_with(l, "//") || starts_with(l, "extern") || memmem(s + ls, at - ls, "void", 4)) continue;
        if (seen++ < call) continue;
        size_t end = match_paren(s, len, at + nl, '(', ')');
        if (!end) return -1;
        *b = at;
        *e = end;
        return 0;
    }
    return -1;
}

/* The declaration or definition `... name(...)` that starts a line with
 * `extern "C"`: *b its line start, *e after ')' of its parameters. */
static int find_extern_c(const char *s, const char *name, int definition, size_t *b, size_t *e)
{
    size_t len = strlen(s), nl = strlen(name);
    for (const char *p = s; (p = strstr(p, name)); p += nl) {
        size_t at = (size_t)(p - s);
        if ((at && ident_char(s[at - 1])) || p[nl] != '(') continue;
        size_t ls = line_start(s, at);
        if (!memmem(s + ls, at - ls, "extern \"C\"", 10)) continue;
        size_t end = match_paren(s, len, at + nl, '(', ')');
        if (!end) return -1;
        size_t k = end;
        while (k < len && isspace((unsigned char)s[k])) k++;
        if ((definition && s[k] != '{') || (!definition && s[k] != ';')) continue;
        *b = ls;
        *e = definition ? match_paren(s, len, k, '{', '}') : k + 1;
        return *e ? 0 : -1;
    }
    return -1;
}

/* Words of C++ a call passes that are not arguments to define. */
static int cxx_word(const char *w, size_t n)
{
    static const char *const words[] = {
        "const", "float", "double", "int", "long", "bool", "char", "unsigned", "signed", "void", "auto", "int8_t",
        "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "half", "bfloat16",
        "static_cast", "reinterpret_cast", "nullptr", "true", "false", "data_ptr", "wrap_with_raii_handle_if_needed",
        "reinterpret_tensor_wrapper", "sizes", "strides", "static", "constexpr", "size_t",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && !memcmp(words[i], w, n)) return 1;
    return 0;
}

static const repro_tensor *tensor_named(const repro_capture *c, const char *w, size_t n, const char *phase)
{
    for (size_t i = 0; i < c->nt; i++)
        if (strlen(c->t[i].name) == n && !memcmp(c->t[i].name, w, n) && (!phase || !strcmp(c->t[i].phase, phase)))
            return &c->t[i];
    return NULL;
}

/* The last line before `before` in s that defines w (`TYPE w = ...;` or
 * `TYPE w[] = ...;`), trimmed, into out. 0 found, -1 not. */
static int find_def(const char *s, size_t before, const char *w, size_t n, strbuf *out)
{
    size_t found = (size_t)-1;
    for (const char *p = s; (p = memmem(p, before - (size_t)(p - s), w, n)); p += n) {
        size_t at = (size_t)(p - s);
        if ((at && ident_char(s[at - 1])) || ident_char(p[n]) || at == line_start(s, at)) continue;
        const char *q = p + n;
        if (starts_with(q, "[]")) q += 2;
        while (*q == ' ') q++;
        if (*q != '=' || q[1] == '=' || (s[at - 1] != ' ' && s[at - 1] != '&')) continue;
        found = line_start(s, at);
    }
    if (found == (size_t)-1) return -1;
    const char *l = s + found;
    while (*l == ' ' || *l == '\t') l++;
    strbuf_add(out, l, strcspn(l, "\n"));
    return 0;
}

typedef struct {
    const repro_capture *c;
    const char *wrapper;
    size_t at;                  /* the call's position: definitions come before it */
    const wrapper_scan *ws;
    strbuf defs;                /* lines to paste before the call, in order */
    char *names[MAX_DEFS];      /* defined so far */
    size_t ndefs;
    strbuf *err;
} arg_scan;

static int is_constant(const wrapper_scan *ws, const char *w, size_t n, const char **fqn)
{
    for (size_t i = 0; i < ws->nconstants; i++)
        if (ws->constants[i].name && strlen(ws->constants[i].name) == n && !memcmp(ws->constants[i].name, w, n)) {
            *fqn = ws->constants[i].fqn ? ws->constants[i].fqn : ws->constants[i].name;
            return 1;
        }
    return 0;
}

/* Every word of text[0..len) that is no tensor of the capture, no C++ and
 * not defined yet gets its wrapper.cpp definition (recursively). -1 + err
 * when one cannot be had. */
static int define_words(arg_scan *a, const char *text, size_t len, int depth)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\') i++;
            continue;
        }
        if (!(isalpha((unsigned char)text[i]) || text[i] == '_') || (i && (ident_char(text[i - 1]) || text[i - 1] == '.')))
            continue;
        size_t n = 0;
        while (i + n < len && ident_char(text[i + n]))
            n++;
        const char *w = text + i;
        int scoped = (i >= 2 && text[i - 1] == ':' && text[i - 2] == ':') || (i + n + 1 < len && text[i + n] == ':');
        int member = i >= 2 && text[i - 1] == '>' && text[i - 2] == '-';
        i += n - 1;
        if (scoped || member || cxx_word(w, n) || tensor_named(a->c, w, n, NULL) ||
            (n > 2 && !memcmp(w, "aoti_torch_", n < 11 ? n : 11)))
            continue;
        int dup = 0;
        for (size_t k = 0; k < a->ndefs && !dup; k++)
            dup = strlen(a->names[k]) == n && !memcmp(a->names[k], w, n);
        if (dup) continue;
        const char *fqn = NULL;
        if (is_constant(a->ws, w, n, &fqn)) {
            strbuf_addf(a->err, "argument %.*s is the weight %s, which the model did not hand over (%s)", (int)n, w,
                        fqn, a->c->skipped.len ? a->c->skipped.buf : "not captured");
            return -1;
        }
        strbuf def = STRBUF_INIT;
        if (depth > 8 || a->ndefs == MAX_DEFS || find_def(a->wrapper, a->at, w, n, &def)) {
            strbuf_addf(a->err, "argument %.*s: its value is not known here (no tensor the printer handed over, "
                        "no definition in wrapper.cpp before the call)", (int)n, w);
            strbuf_release(&def);
            return -1;
        }
        if (strstr(def.buf, "Handle") || strstr(def.buf, "constants_") || strstr(def.buf, "this->")) {
            strbuf_addf(a->err, "argument %.*s is a tensor the printer did not hand over (`%s` in wrapper.cpp)", (int)n,
                        w, def.buf);
            strbuf_release(&def);
            return -1;
        }
        a->names[a->ndefs++] = strndup(w, n);
        const char *eq = strchr(def.buf, '=');
        if (eq && define_words(a, eq + 1, strlen(eq + 1), depth + 1) < 0) {
            strbuf_release(&def);
            return -1;
        }
        strbuf_addf(&a->defs, "    %s\n", def.buf);
        strbuf_release(&def);
    }
    return 0;
}

static void arg_scan_release(arg_scan *a)
{
    for (size_t k = 0; k < a->ndefs; k++)
        free(a->names[k]);
    strbuf_release(&a->defs);
}

void repro_call_constants(const char *wrapper, const char *kernel, int64_t call, strbuf *out)
{
    size_t b, e;
    char launcher[600];   /* a Triton kernel is called through wrapper.cpp's call_<kernel>(...) */
    snprintf(launcher, sizeof launcher, "call_%s", kernel);
    if (find_call(wrapper, kernel, call, &b, &e) && find_call(wrapper, launcher, 0, &b, &e)) return;
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    if (!wrapper_scan_text(&ws, wrapper, strlen(wrapper), &err)) {
        for (size_t i = 0; i < ws.nconstants; i++) {
            const char *n = ws.constants[i].name;
            size_t nl = n ? strlen(n) : 0;
            for (const char *p = wrapper + b; nl && (p = memmem(p, e - (size_t)(p - wrapper), n, nl)); p += nl)
                if (!ident_char(p[-1]) && !ident_char(p[nl])) {
                    strbuf_addf(out, "%s\t%s\n", n, ws.constants[i].fqn ? ws.constants[i].fqn : n);
                    break;
                }
        }
    }
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

void repro_launch_constants(const char *wrapper, int64_t index, strbuf *out)
{
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    if (!wrapper_scan_text(&ws, wrapper, strlen(wrapper), &err) && index >= 0 && (size_t)index < ws.nkernels) {
        const char *name = ws.kernels[index].name;
        int64_t occ = 0;
        for (int64_t i = 0; i < index; i++)
            occ += ws.kernels[i].name && name && !strcmp(ws.kernels[i].name, name);
        if (name) repro_call_constants(wrapper, name, occ, out);
    }
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

int64_t repro_call_count(const char *wrapper, const char *kernel)
{
    size_t b, e;
    int64_t n = 0;
    while (n < 1000000 && !find_call(wrapper, kernel, n, &b, &e))
        n++;
    return n;
}

/* ---- writing ------------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const void *data, size_t n, strbuf *err)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return -1;
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(data, 1, n, f) != n;
    if (f) bad |= fclose(f) != 0;
    if (bad) strbuf_addf(err, "%s: %s", path, strerror(errno));
    free(path);
    return bad ? -1 : 0;
}

static int write_text(const char *dir, const char *name, const strbuf *sb, strbuf *err)
{
    return write_file(dir, name, sb->buf, sb->len, err);
}

/* The tensors the launcher loads: every name the capture has, once. */
static void load_tensors(const repro_capture *c, strbuf *out, strbuf *list, const char *prefix)
{
    for (size_t i = 0; i < c->nt; i++) {
        if (tensor_named(c, c->t[i].name, strlen(c->t[i].name), NULL) != &c->t[i]) continue;   /* seen */
        strbuf_addf(out, "    auto %s%s = repro::load(\"%s\");\n", prefix, c->t[i].name, c->t[i].name);
        strbuf_addf(list, "%s&%s%s", list->len ? ", " : "", prefix, c->t[i].name);
    }
}

/* The compile flags of kernel.cpp's `// Compile cmd` that change its code
 * (defines, ISA, optimisation, language), as a CMake list. */
static void kernel_flags(const char *kernel_cpp, strbuf *out, int *openmp)
{
    const char *cmd = strstr(kernel_cpp, "// Compile cmd\n// ");
    if (!cmd) return;
    cmd += strlen("// Compile cmd\n// ");
    size_t n = strcspn(cmd, "\n");
    char *line = strndup(cmd, n), *save = NULL;
    int define_next = 0;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (define_next) {
            strbuf_addf(out, "%s-D%s", out->len ? ";" : "", tok);
            define_next = 0;
        } else if (!strcmp(tok, "-D")) {
            define_next = 1;
        } else if (!strcmp(tok, "-include") || !strcmp(tok, "-o")) {
            strtok_r(NULL, " \t", &save);   /* its argument: a file of the build machine */
        } else if ((starts_with(tok, "-D") || starts_with(tok, "-m") || starts_with(tok, "-O") ||
                    starts_with(tok, "-std=") || starts_with(tok, "-f")) && !strchr(tok, ';') && !strchr(tok, '"')) {
            strbuf_addf(out, "%s%s", out->len ? ";" : "", tok);
            if (!strcmp(tok, "-fopenmp")) *openmp = 1;
        }
    }
    free(line);
}

/* The run's error, its first line, as a C string literal's contents. */
static void error_literal(const repro_job *j, strbuf *out)
{
    const char *t = j->error_text ? j->error_text : "the kernel failed";
    for (size_t i = 0; t[i] && t[i] != '\n' && i < 400; i++) {
        if (t[i] == '"' || t[i] == '\\') strbuf_addch(out, '\\');
        if ((unsigned char)t[i] >= 0x20) strbuf_addch(out, t[i]);
    }
}

/* What the launcher does after the kernel returned: check the outputs, or,
 * when the kernel failed in the run, say that it did not fail here. */
static void main_end(strbuf *m, const repro_job *j, const repro_capture *c, const char *list, const char *ns)
{
    if (!strcmp(c->status, "error")) {
        strbuf_addstr(m, "    std::fprintf(stderr, \"repro: the kernel returned, but in the run it failed: ");
        error_literal(j, m);
        strbuf_addstr(m, "\\n\");\n    return 1;\n}\n");
        return;
    }
    strbuf_addf(m, "    return %sfinish({%s});\n}\n", ns, list);
}

static void readme_head(strbuf *r, const repro_job *j, const repro_capture *c, const char *kind)
{
    strbuf_addf(r, "Repro of one kernel launch, made by `aotidbg repro`\n\n"
                "package: %s\nkernel:  %s (%s), launch %" PRId64 " of the run%s%s%s, asked for as `--kernel %s`\n"
                "captured: the package was run by aotidbg's runner to that launch; every tensor the\n"
                "  kernel was handed was written in full before it ran (in/NAME.npy) and after it\n"
                "  (expected/NAME.npy): %zu files. capture.txt lists them with dtype, shape, strides\n"
                "  and layout (`span`: a strided tensor, written as the elements from its first to its\n"
                "  last; bfloat16 as uint16 bits, float8 as uint8 bits).\n",
                j->package, c->name, kind, c->index, *c->branch ? " (in " : "", c->branch,
                *c->branch ? ")" : "", j->kernel_spec, c->nt);
    if (!strcmp(c->status, "error")) {
        strbuf_addstr(r, "the kernel FAILED in the run:\n  ");
        error_literal(j, r);
        strbuf_addstr(r, "\n  The repro fails the same way (exit 1, the message on stderr); there are no\n"
                      "  expected/ outputs, since the run never got past the kernel.\n");
    }
    else if (!strcmp(c->status, "nan"))
        strbuf_addstr(r, "the kernel's outputs held NaN/Inf in the run; the repro reproduces them bit for bit.\n");
    strbuf_addstr(r, "\nRun it:\n  cmake -S . -B build && cmake --build build && build/repro\n"
                  "It runs the kernel once on in/, writes out/NAME.npy, and exits 0 when every output\n"
                  "equals expected/ bit for bit, 1 when not (the first differing element is printed)\n"
                  "or when the kernel fails, 2 when a file is missing.\n\n");
}

/* kernel.cpp's includes (before its first function) and the kernel's definition. */
static int cpp_kernel_source(const repro_job *j, const char *name, strbuf *out, strbuf *err)
{
    size_t b, e;
    if (!j->kernel_cpp || find_extern_c(j->kernel_cpp, name, 1, &b, &e)) {
        strbuf_addf(err, "the package's kernel.cpp has no definition of %s", name);
        return -1;
    }
    strbuf_addf(out, "// %s, as the package's <key>.kernel.cpp holds it (aotidbg repro)\n", name);
    for (const char *l = j->kernel_cpp; *l && !starts_with(l, "extern \"C\"");) {
        size_t n = strcspn(l, "\n");
        if (starts_with(l, "#include") || starts_with(l, "#define") || starts_with(l, "#pragma")) {
            strbuf_add(out, l, n);
            strbuf_addch(out, '\n');
        }
        l += n + (l[n] ? 1 : 0);
    }
    strbuf_add(out, j->kernel_cpp + b, e - b);
    strbuf_addch(out, '\n');
    return 0;
}

static void cmake_head(strbuf *m, const char *langs)
{
    strbuf_addf(m, "# The launcher of this repro (written by aotidbg repro).\ncmake_minimum_required(VERSION 3.16)\n"
                "project(repro %s)\nset(CMAKE_CXX_STANDARD 17)\n", langs);
}

/* The launcher over sources, with the torch of j (its headers; its lib/ to link from and at run time). */
static void cmake_torch(strbuf *m, const repro_job *j, const char *sources)
{
    strbuf_addf(m, "set(TORCH_ROOT \"%s\" CACHE PATH \"torch's install folder (include/, lib/)\")\n"
                "add_executable(repro %s)\n"
                "target_include_directories(repro PRIVATE ${TORCH_ROOT}/include)\n"
                "target_link_directories(repro PRIVATE ${TORCH_ROOT}/lib)\n"
                "set_target_properties(repro PROPERTIES BUILD_RPATH ${TORCH_ROOT}/lib)\n",
                j->torch_root ? j->torch_root : "TORCH_NOT_FOUND", sources);
}

static void cmake_tail(strbuf *m)
{
    strbuf_addstr(m, "target_compile_definitions(repro PRIVATE REPRO_DIR=\"${CMAKE_CURRENT_SOURCE_DIR}\")\n");
}

static const char main_head[] =
    "// The launcher: the kernel once on in/, outputs to out/, checked against expected/ (aotidbg repro).\n"
    "#include <unistd.h>\n#include \"repro.h\"\n";
static const char main_chdir[] =
    "    if (chdir(REPRO_DIR)) repro::die(std::string(\"cannot enter \") + REPRO_DIR);\n";

static int write_cpp(const repro_job *j, const repro_capture *c, arg_scan *a, const char *call, strbuf *err)
{
    size_t b, e;
    if (find_extern_c(j->wrapper, c->name, 0, &b, &e)) {
        strbuf_addf(err, "wrapper.cpp has no declaration of %s", c->name);
        return -1;
    }
    strbuf src = STRBUF_INIT, m = STRBUF_INIT, cm = STRBUF_INIT, flags = STRBUF_INIT, list = STRBUF_INIT,
           r = STRBUF_INIT;
    int rc = cpp_kernel_source(j, c->name, &src, err);
    int openmp = 0;
    kernel_flags(j->kernel_cpp, &flags, &openmp);
    strbuf_addstr(&m, main_head);
    int needs_torch = memmem(j->wrapper + b, e - b, "::", 2) || memmem(j->wrapper + b, e - b, "half", 4) ||
                      memmem(j->wrapper + b, e - b, "bfloat16", 8);
    if (needs_torch) strbuf_addstr(&m, "#include <torch/csrc/inductor/cpp_prefix.h>\n");
    strbuf_addstr(&m, "\n// A failed check in the kernel (AOTI_TORCH_CHECK: an index out of bounds) ends here,\n"
                  "// as libtorch's aoti_torch_check would throw: the message, exit 1.\n"
                  "extern \"C\" void aoti_torch_check(bool cond, const char *func, const char *file, uint32_t line,\n"
                  "                                 const char *msg)\n{\n    if (cond) return;\n"
                  "    std::fprintf(stderr, \"repro: the kernel failed: %s (%s, %s:%u)\\n\", msg ? msg : \"check failed\", "
                  "func, file, line);\n    std::exit(1);\n}\n\n");
    strbuf_add(&m, j->wrapper + b, e - b);
    strbuf_addstr(&m, "\n\nint main()\n{\n");
    strbuf_addstr(&m, main_chdir);
    load_tensors(c, &m, &list, "");
    strbuf_add(&m, a->defs.buf, a->defs.len);
    strbuf_addf(&m, "    %s;\n", call);
    main_end(&m, j, c, list.buf, "repro::");
    cmake_head(&cm, "CXX");
    strbuf_addstr(&cm, "# The headers the kernel includes come from the torch that compiled it here:\n");
    cmake_torch(&cm, j, "main.cpp kernel.cpp");
    strbuf_addf(&cm, "# kernel.cpp's own flags, from the compile command the package records:\n"
                "set_source_files_properties(kernel.cpp PROPERTIES COMPILE_OPTIONS \"%s\")\n"
                "# Vectorised math (Sleef_*: log, exp, ...) is in libtorch_cpu, which carries SLEEF;\n"
                "# --as-needed links it only when the kernel calls one of those.\n"
                "target_link_libraries(repro PRIVATE -Wl,--as-needed torch_cpu)\n", flags.buf);
    if (openmp) strbuf_addstr(&cm, "target_link_options(repro PRIVATE -fopenmp)\n");
    cmake_tail(&cm);
    readme_head(&r, j, c, "a CPU C++ kernel");
    strbuf_addf(&r, "Files: kernel.cpp (the kernel's function from the package's kernel.cpp, with its\n"
                "includes), main.cpp (wrapper.cpp's declaration and call of it), repro.h (.npy in/out).\n"
                "It needs a C++ compiler and torch's headers (%s/include, TORCH_ROOT in\n"
                "CMakeLists.txt); it links no Python. It links libtorch_cpu only when the kernel calls its\n"
                "vectorised math (SLEEF: Sleef_logf16_u10, ...), which libtorch_cpu carries.\n\n"
                "The call, as wrapper.cpp makes it:\n  %s;\n",
                j->torch_root ? j->torch_root : "TORCH_NOT_FOUND", call);
    if (!rc)
        rc = write_text(j->dir, "kernel.cpp", &src, err) || write_text(j->dir, "main.cpp", &m, err) ||
             write_text(j->dir, "CMakeLists.txt", &cm, err) || write_text(j->dir, "README", &r, err) ? -1 : 0;
    strbuf_release(&src); strbuf_release(&m); strbuf_release(&cm); strbuf_release(&flags);
    strbuf_release(&list); strbuf_release(&r);
    return rc;
}

/* "2,3" -> "{2, 3}" */
static void brace_list(strbuf *out, const char *csv)
{
    strbuf_addch(out, '{');
    if (strcmp(csv, "-"))
        for (const char *p = csv; *p; p++)
            strbuf_addstr(out, *p == ',' ? ", " : (char[]){*p, 0});
    strbuf_addch(out, '}');
}

static int write_extern(const repro_job *j, const repro_capture *c, arg_scan *a, const char *call, strbuf *err)
{
    strbuf m = STRBUF_INIT, cm = STRBUF_INIT, list = STRBUF_INIT, r = STRBUF_INIT;
    strbuf_addstr(&m, main_head);
    strbuf_addstr(&m, "#include <torch/csrc/inductor/aoti_include/cpu.h>\n\nusing namespace torch::aot_inductor;\n\n"
                  "// A tensor over the captured bytes, with the run's shape and strides.\n"
                  "static RAIIAtenTensorHandle handle_of(repro::Tensor &t, int32_t dtype, std::vector<int64_t> shape,\n"
                  "                                      std::vector<int64_t> strides)\n{\n"
                  "    AtenTensorHandle h = nullptr;\n"
                  "    if (aoti_torch_create_tensor_from_blob(t.data_ptr(), (int64_t)shape.size(), shape.data(), strides.data(), 0,\n"
                  "                                           dtype, aoti_torch_device_type_cpu(), 0, &h))\n"
                  "        repro::die(\"cannot make a tensor of \" + t.name);\n    return RAIIAtenTensorHandle(h);\n}\n\n"
                  "int main()\n{\n");
    strbuf_addstr(&m, main_chdir);
    load_tensors(c, &m, &list, "t_");
    for (size_t i = 0; i < c->nt; i++) {
        const repro_tensor *t = &c->t[i];
        if (tensor_named(c, t->name, strlen(t->name), NULL) != t) continue;
        strbuf_addf(&m, "    RAIIAtenTensorHandle %s = handle_of(t_%s, aoti_torch_dtype_%s(), ", t->name, t->name, t->dtype);
        brace_list(&m, t->shape);
        strbuf_addstr(&m, ", ");
        brace_list(&m, t->strides);
        strbuf_addstr(&m, ");\n");
    }
    strbuf_add(&m, a->defs.buf, a->defs.len);
    strbuf_addf(&m, "    AOTITorchError failed = %s;\n"
                "    if (failed) {\n        std::fprintf(stderr, \"repro: the call failed (libtorch's message is above)\\n\");\n"
                "        return 1;\n    }\n", call);
    main_end(&m, j, c, list.buf, "repro::");
    cmake_head(&cm, "CXX");
    strbuf_addstr(&cm, "# An extern call runs in libtorch: this launcher (and only this kind) links it.\n");
    cmake_torch(&cm, j, "main.cpp");
    strbuf_addstr(&cm, "target_link_libraries(repro PRIVATE -Wl,--no-as-needed torch_cpu c10 -Wl,--as-needed)\n");
    cmake_tail(&cm);
    readme_head(&r, j, c, "an extern call through the C shim");
    strbuf_addf(&r, "Files: main.cpp (the shim call as wrapper.cpp makes it, on tensors over the captured\n"
                "bytes), repro.h (.npy in/out). An extern call is libtorch's own code, so this launcher\n"
                "links libtorch (libtorch_cpu, libc10 from %s/lib); it links no Python.\n\n"
                "The call, as wrapper.cpp makes it:\n  %s;\n", j->torch_root ? j->torch_root : "TORCH_NOT_FOUND", call);
    int rc = write_text(j->dir, "main.cpp", &m, err) || write_text(j->dir, "CMakeLists.txt", &cm, err) ||
             write_text(j->dir, "README", &r, err) ? -1 : 0;
    strbuf_release(&m); strbuf_release(&cm); strbuf_release(&list); strbuf_release(&r);
    return rc;
}

/* ---- Triton ---------------------------------------------------------------------- */

typedef struct {
    char func[512];
    unsigned grid[3], block[3], shmem;
    size_t np;
    struct { size_t off, size; unsigned char bytes[64]; } p[512];
    char unknown[256];
} launch_info;

static int read_launch(const char *dir, launch_info *l, strbuf *err)
{
    memset(l, 0, sizeof *l);
    char *path = NULL;
    strbuf t = STRBUF_INIT;
    if (asprintf(&path, "%s/launch.txt", dir) < 0 || strbuf_read_file(&t, path, 1u << 20, err)) {
        free(path);
        strbuf_release(&t);
        return -1;
    }
    free(path);
    for (char *line = t.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (sscanf(line, "grid\t%u\t%u\t%u", &l->grid[0], &l->grid[1], &l->grid[2]) == 3 ||
            sscanf(line, "block\t%u\t%u\t%u", &l->block[0], &l->block[1], &l->block[2]) == 3 ||
            sscanf(line, "shmem\t%u", &l->shmem) == 1) {
        } else if (starts_with(line, "function\t")) {
            snprintf(l->func, sizeof l->func, "%s", line + 9);
        } else if (starts_with(line, "params\tunknown\t")) {
            snprintf(l->unknown, sizeof l->unknown, "%s", line + 15);
        } else if (starts_with(line, "param\t") && l->np < sizeof l->p / sizeof l->p[0]) {
            size_t i, off, size;
            char hex[200] = "";
            if (sscanf(line, "param\t%zu\t%zu\t%zu\t%199s", &i, &off, &size, hex) >= 3 && size <= 64) {
                l->p[l->np].off = off;
                l->p[l->np].size = size;
                for (size_t k = 0; k < size && hex[2 * k]; k++)
                    sscanf(hex + 2 * k, "%2hhx", &l->p[l->np].bytes[k]);
                l->np++;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    strbuf_release(&t);
    return 0;
}

/* The Triton source wrapper.cpp embeds for kernel name (async_compile.triton('NAME', '''...''')), or none. */
static void triton_source(const char *wrapper, const char *name, strbuf *out)
{
    char key[600];
    snprintf(key, sizeof key, "async_compile.triton('%s', '''", name);
    const char *p = strstr(wrapper, key);
    if (!p) return;
    p += strlen(key);
    const char *e = strstr(p, "'''");
    if (e) strbuf_add(out, p, (size_t)(e - p));
}

static int write_triton(const repro_job *j, const repro_capture *c, strbuf *err)
{
    launch_info *l = xcalloc(1, sizeof *l);
    int rc = -1;
    strbuf m = STRBUF_INIT, cm = STRBUF_INIT, list = STRBUF_INIT, r = STRBUF_INIT, py = STRBUF_INIT,
           params = STRBUF_INIT;
    if (!c->has_launch || read_launch(j->dir, l, err)) {
        if (!err->len) strbuf_addf(err, "the launch of %s was not captured (its grid and arguments)", c->name);
        goto out;
    }
    if (l->unknown[0] || !l->np) {
        strbuf_addf(err, "the arguments of %s cannot be captured: %s", c->name,
                    l->unknown[0] ? l->unknown : "the driver listed none");
        goto out;
    }
    if (!j->cubin || !j->ncubin) {
        strbuf_addf(err, "the package carries no cubin for %s", c->name);
        goto out;
    }
    strbuf_addstr(&m, main_head);
    strbuf_addstr(&m, "#include \"repro_cuda.h\"\n\nusing namespace repro;\n\nint main()\n{\n");
    strbuf_addstr(&m, main_chdir);
    strbuf_addstr(&m, "    Driver &d = driver();\n    check(d.Init(0), \"cuInit\");\n    CUdevice dev;\n"
                  "    check(d.DeviceGet(&dev, 0), \"cuDeviceGet\");\n    CUcontext ctx;\n"
                  "    check(d.DevicePrimaryCtxRetain(&ctx, dev), \"cuDevicePrimaryCtxRetain\");\n"
                  "    check(d.CtxSetCurrent(ctx), \"cuCtxSetCurrent\");\n"
                  "    FILE *cf = std::fopen(\"kernel.cubin\", \"rb\");\n    if (!cf) die(\"no kernel.cubin\");\n"
                  "    std::vector<unsigned char> cubin;\n    for (int ch; (ch = std::fgetc(cf)) != EOF;) cubin.push_back((unsigned char)ch);\n"
                  "    std::fclose(cf);\n    CUmodule mod;\n    check(d.ModuleLoadData(&mod, cubin.data()), \"cuModuleLoadData\");\n");
    strbuf_addf(&m, "    CUfunction f;\n    check(d.ModuleGetFunction(&f, mod, \"%s\"), \"cuModuleGetFunction\");\n", l->func);
    if (l->shmem > 49152)
        strbuf_addf(&m, "    check(d.FuncSetAttribute(f, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, %u), \"cuFuncSetAttribute\");\n",
                    l->shmem);
    load_tensors(c, &m, &list, "");
    /* a device copy of each tensor */
    for (size_t i = 0; i < c->nt; i++) {
        const repro_tensor *t = &c->t[i];
        if (tensor_named(c, t->name, strlen(t->name), NULL) != t) continue;
        strbuf_addf(&m, "    CUdeviceptr d_%s;\n    check(d.MemAlloc(&d_%s, %s.bytes.size() ? %s.bytes.size() : 1), \"cuMemAlloc\");\n"
                    "    check(d.MemcpyHtoD(d_%s, %s.bytes.data(), %s.bytes.size()), \"cuMemcpyHtoD\");\n",
                    t->name, t->name, t->name, t->name, t->name, t->name, t->name);
    }
    /* the arguments: bytes as launched; device pointers into a tensor moved onto its copy */
    for (size_t i = 0; i < l->np; i++) {
        uint64_t v = 0;
        if (l->p[i].size == 8) memcpy(&v, l->p[i].bytes, 8);
        const repro_tensor *hit = NULL;
        for (size_t k = 0; k < c->nt && v && !hit; k++)
            if (v >= c->t[k].ptr && v < c->t[k].ptr + (c->t[k].nbytes ? c->t[k].nbytes : 1)) hit = &c->t[k];
        if (hit) {
            strbuf_addf(&m, "    CUdeviceptr a%zu = d_%s + %" PRIu64 ";   // the run's 0x%" PRIx64 "\n", i, hit->name,
                        v - hit->ptr, v);
        } else {
            if (l->p[i].size == 8 && v > (1ULL << 40) && !(v & 15)) {
                strbuf_addf(err, "argument %zu of %s (0x%" PRIx64 ") looks like a device pointer into memory the "
                            "printer did not hand over; it cannot be captured", i, c->name, v);
                goto out;
            }
            strbuf_addf(&m, "    unsigned char a%zu[%zu] = {", i, l->p[i].size ? l->p[i].size : 1);
            for (size_t k = 0; k < l->p[i].size; k++)
                strbuf_addf(&m, "%s0x%02x", k ? ", " : "", l->p[i].bytes[k]);
            strbuf_addstr(&m, "};\n");
        }
        strbuf_addf(&params, "%s(void *)&a%zu", i ? ", " : "", i);
    }
    strbuf_addf(&m, "    void *params[] = {%s};\n", params.buf);
    strbuf_addf(&m, "    check(d.LaunchKernel(f, %u, %u, %u, %u, %u, %u, %u, nullptr, params, nullptr), \"cuLaunchKernel\");\n"
                "    check(d.CtxSynchronize(), \"the kernel %s\");\n", l->grid[0], l->grid[1], l->grid[2], l->block[0],
                l->block[1], l->block[2], l->shmem, c->name);
    for (size_t i = 0; i < c->nt; i++) {
        const repro_tensor *t = &c->t[i];
        if (tensor_named(c, t->name, strlen(t->name), NULL) != t) continue;
        strbuf_addf(&m, "    check(d.MemcpyDtoH(%s.bytes.data(), d_%s, %s.bytes.size()), \"cuMemcpyDtoH\");\n", t->name,
                    t->name, t->name);
    }
    main_end(&m, j, c, list.buf, "");
    cmake_head(&cm, "CXX");
    strbuf_addstr(&cm, "# Only the CUDA driver is needed: libcuda.so.1 is loaded at run time.\n"
                  "add_executable(repro main.cpp)\ntarget_link_libraries(repro PRIVATE ${CMAKE_DL_LIBS})\n");
    cmake_tail(&cm);
    triton_source(j->wrapper, c->name, &py);
    readme_head(&r, j, c, "a Triton kernel");
    strbuf_addf(&r, "Files: kernel.cubin (the cubin the package carries), main.cpp (cuModuleLoadData +\n"
                "cuLaunchKernel with the run's launch), launch.txt (as captured: grid, block, shared\n"
                "memory, every argument's bytes), repro.h, repro_cuda.h%s. It needs only the CUDA driver.\n\n"
                "The launch: %s grid (%u, %u, %u) block (%u, %u, %u) shared memory %u bytes, %zu arguments;\n"
                "device pointers into a captured tensor are moved onto the launcher's copy of it at the\n"
                "same offset, every other argument is passed as the bytes the run passed.\n",
                py.len ? ", kernel.py (its Triton source, from wrapper.cpp)" : "", l->func, l->grid[0], l->grid[1],
                l->grid[2], l->block[0], l->block[1], l->block[2], l->shmem, l->np);
    rc = write_text(j->dir, "main.cpp", &m, err) || write_text(j->dir, "CMakeLists.txt", &cm, err) ||
         write_text(j->dir, "README", &r, err) || write_file(j->dir, "kernel.cubin", j->cubin, j->ncubin, err) ||
         write_file(j->dir, "repro_cuda.h", repro_support_cuda, strlen(repro_support_cuda), err) ||
         (py.len && write_text(j->dir, "kernel.py", &py, err)) ? -1 : 0;
out:
    free(l);
    strbuf_release(&m); strbuf_release(&cm); strbuf_release(&list); strbuf_release(&r); strbuf_release(&py);
    strbuf_release(&params);
    return rc;
}

int repro_write(const repro_job *j, const repro_capture *c, strbuf *err)
{
    if (write_file(j->dir, "repro.h", repro_support_npy, strlen(repro_support_npy), err)) return -1;
    if (!strcmp(j->type, "triton")) return write_triton(j, c, err);
    size_t b, e;
    if (find_call(j->wrapper, c->name, j->call, &b, &e)) {
        strbuf_addf(err, "wrapper.cpp has no call of %s to copy", c->name);
        return -1;
    }
    wrapper_scan ws;
    if (wrapper_scan_text(&ws, j->wrapper, strlen(j->wrapper), err)) {
        wrapper_scan_free(&ws);
        return -1;
    }
    arg_scan a = {.c = c, .wrapper = j->wrapper, .at = b, .ws = &ws, .err = err};
    strbuf_init(&a.defs, 0);
    char *call = strndup(j->wrapper + b, e - b);
    int rc = define_words(&a, call + strlen(c->name), strlen(call) - strlen(c->name), 0);
    if (!rc) rc = !strcmp(j->type, "extern") ? write_extern(j, c, &a, call, err) : write_cpp(j, c, &a, call, err);
    free(call);
    arg_scan_release(&a);
    wrapper_scan_free(&ws);
    return rc;
}
