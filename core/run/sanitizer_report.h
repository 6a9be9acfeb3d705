/* sanitizer_report.h — NVIDIA compute-sanitizer's reports, read back.
 *
 * A `--memcheck` run has compute-sanitizer write its records twice, from the
 * same run: `--xml --save FILE.xml` (the structured form: access, size,
 * address, thread, block, function, source line; parsed with expat) and
 * `--log-file FILE.txt` (the text form; it alone says "N bytes after the
 * nearest allocation at 0x.. of size M" and the ERROR/RACECHECK SUMMARY
 * totals). san_parse_xml reads the first, san_parse_text the second (it also
 * stands in for the XML when that is missing or empty while the text has
 * records), san_merge puts the text's facts on the XML's records.
 *
 * Untrusted input: at most SAN_MAX_RECORDS records are kept (the rest only
 * counted), every string is capped at SAN_MAX_TEXT bytes, input over
 * SAN_MAX_INPUT bytes is refused; malformed XML is an error with its line.
 * Ownership: strings and arrays live in the caller's arena. */
#ifndef AOTIDBG_SANITIZER_REPORT_H
#define AOTIDBG_SANITIZER_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "strbuf.h"

#define SAN_MAX_RECORDS 1000
#define SAN_MAX_TEXT    4096
#define SAN_MAX_INPUT   (64u << 20)

typedef struct {
    const char *level;        /* "Error", "Warning"; NULL unknown */
    const char *text;         /* the headline: "Invalid __global__ read of size 4 bytes is out of bounds" */
    const char *space;        /* "__global__", "__shared__"; NULL unknown */
    const char *direction;    /* "read", "write"; NULL unknown */
    const char *error;        /* "out of bounds", "misaligned"; NULL unknown */
    int64_t size;             /* bytes of the access; -1 unknown */
    int has_address;
    uint64_t address;
    int has_thread, has_block;
    int64_t thread[3], block[3];
    const char *func;         /* the kernel (device function) */
    const char *path;         /* its source file (a Triton kernel's .py); NULL unknown */
    int64_t line;             /* 0 unknown */
    uint64_t pc;              /* offset in the function */
    const char *nearest;      /* the text form's "17 bytes after the nearest allocation at 0x.. of size 128
                                 bytes"; NULL when it did not say */
} san_record;

typedef struct {
    size_t n;                 /* records kept */
    san_record *r;
    int64_t total;            /* records seen (XML) or the summary's error count (text); -1 unknown */
    int64_t hazards, warnings;   /* racecheck's summary: hazards displayed, warnings; -1 unknown */
    const char *summary;      /* the text form's summary line(s), "ERROR SUMMARY: 27 errors"; NULL none */
} san_report;

/* 0, or -1 with err ("line L: <what>"). An empty <ComputeSanitizerOutput/> is 0 records. */
int san_parse_xml(const char *buf, size_t len, arena *a, san_report *out, strbuf *err);
/* Never fails: lines it does not know are skipped. prefix: the lines' prefix ("=========" by default). */
void san_parse_text(const char *buf, size_t len, arena *a, san_report *out);
/* Copies the text form's nearest-allocation facts and summary onto x (the XML's), record by
 * record while their addresses agree. */
void san_merge(san_report *x, const san_report *text);

#endif
