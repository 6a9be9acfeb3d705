/* inputs.h — the inputs spec (YAML) and materialising inputs for the runner.
 *
 * Spec format (see man/aotidbg.1, INPUTS):
 *   inputs:
 *     - {shape: [4, 8], dtype: float32, device: cpu, fill: randn, seed: 0}
 *     - {shape: [3], dtype: int64, fill: arange}
 *     - {shape: [2, 2], dtype: float32, fill: file, file: x.npy}
 *     - {shape: [2, 2], dtype: float32, fill: file, file: w.safetensors, key: w}
 * Errors name file:line:col (1-based) and what was expected.
 * Ownership: specs are allocated in the session's arena (s->inputs). */
#ifndef AOTIDBG_INPUTS_H
#define AOTIDBG_INPUTS_H
#include "dtype.h"   /* dtype_canonical, dtype_size: the spec dtypes */
#include "model.h"
#include "strbuf.h"

/* Parses the spec file into s->inputs / s->ninputs and checks every
 * `fill: file` input's file (inputs_check_files). 0 ok, -1 with err. */
int inputs_load(session *s, const char *path, strbuf *err);
/* Parses from memory; `name` is used in messages. */
int inputs_parse(session *s, const char *name, const char *text, size_t len, strbuf *err);
/* For FILL_FILE: reads the .npy / .safetensors tensor, checks dtype and shape
 * against the spec, and writes its raw little-endian row-major bytes to a new
 * file in dir. *raw_path is malloc'd (caller frees). */
/* A spec whose inputs are named (`name: x`) is put in model order: names[i]
 * and aoti_names[i] (either may be NULL or hold NULLs) are model input i's
 * user name and AOTI name. A spec naming none is left as it is; naming only
 * some, an unknown or repeated name, or leaving an input out is an error
 * naming the spec and the input. A package that names its inputs only by
 * position (names all NULL or "args[N]": exported with positional
 * arguments) has no name to match the user's by: when no spec name is an
 * AOTI name either, the names label the inputs in the spec's order (the run
 * shows them as the inputs' user names) and *labels is set to 1 (may be NULL). */
int inputs_order_by_name(session *s, const char *spec_path, const char *const *names,
                         const char *const *aoti_names, size_t n, int *labels, strbuf *err);
int inputs_materialize_file(const input_spec *in, int index, const char *dir, char **raw_path, strbuf *err);

#endif
