/* sanitizer.h — a run under NVIDIA compute-sanitizer (--memcheck): finding
 * the tool, the command line the runner starts under, and its reports turned
 * into session events (kind memcheck) whose addresses are named by the
 * tensor table the runner sent at each launch (addr_map.h).
 *
 * The tool writes its reports to two files beside the session, never into
 * the runner's output or the protocol: FILE.xml (--xml --save, what is
 * parsed) and FILE.txt (--log-file, the text, for the nearest-allocation
 * words and the summary, and for the user).
 * Errors: 0 / -1 with what to do in err. */
#ifndef AOTIDBG_SANITIZER_H
#define AOTIDBG_SANITIZER_H
#include <stddef.h>
#include "model.h"
#include "strbuf.h"

#define SAN_ARGV_MAX 16
#define SAN_MAX_EVENTS 64   /* memcheck events a run keeps; the rest are counted in a note */

/* $AOTIDBG_COMPUTE_SANITIZER when set (and then only it), else compute-sanitizer
 * on PATH, in $CUDA_HOME/bin, /usr/local/cuda/bin, /usr/local/cuda-* /bin and
 * /usr/local/cuda-* /compute-sanitizer. Its path goes into out (n bytes).
 * -1 with err naming where it looked and what to install. */
int sanitizer_find(char *out, size_t n, strbuf *err);

/* The command the runner starts under, NULL-terminated in v (SAN_ARGV_MAX):
 * cs --tool TOOL --xml --save XML --log-file TXT --print-limit 1000 (the
 * runner's path follows). Strings are borrowed. */
void sanitizer_argv(const char *cs, const char *tool, const char *xml, const char *txt, const char **v);

/* After the runner ended: the reports in xml (and txt) become memcheck events
 * of s, at most SAN_MAX_EVENTS, each folded over the same kernel, program
 * counter and error; a note says how many the tool reported and what a clean
 * run covers. Returns the events added, or -1 with err when neither file
 * could be read (the note says so too). */
int sanitizer_to_session(session *s, const char *tool, const char *xml, const char *txt, strbuf *err);

/* 1 when the text report txt holds the tool's closing summary line ("ERROR SUMMARY:",
 * "RACECHECK SUMMARY:"): the tool has written everything; 0 not yet (or no file). */
int sanitizer_report_done(const char *txt);

#endif
