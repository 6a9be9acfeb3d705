/* kernel_times.h — where a recorded run's time went, kernel by kernel: the
 * table behind `aotidbg export --format csv|chrome-trace`, the kernel time
 * table of `replay --dump` and the UI's time view.
 *
 * Bytes: a kernel reads each before-tensor it does not write first (the
 * call's fresh list says which it writes first) and writes each after-tensor
 * whose statistics differ from its before-tensor's, or that was fresh; every
 * tensor counts once, numel x element size. This is an estimate from what the
 * session holds (a kernel that reads part of a tensor, or writes the same
 * values back, is counted whole or as read only), and the table says so.
 * GB/s is (read + written) / device time, only where device_us > 0 and some
 * tensor was recorded (a kernel with none has its bytes unknown, not 0).
 *
 * Ownership: kernel_times_build fills *t with malloc'd rows; release with
 * kernel_times_release. Rows point into the session (names): keep the
 * session alive while the table is used. Errors: none (a session with no
 * kernels gives an empty table). */
#ifndef AOTIDBG_KERNEL_TIMES_H
#define AOTIDBG_KERNEL_TIMES_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "model.h"

typedef struct {
    const kernel_event *k;     /* the kernel event (name, index, type, status, branch, ...) */
    double t_ms;               /* when its before-hook ran, ms since the run started; -1 unknown */
    double wall_us;            /* before to after hook (k->duration_us), -1 unknown */
    double device_us;          /* the kernel's own time (k->device_us), -1 unknown */
    uint64_t bytes_read, bytes_written;
    int bytes_known;           /* 0: some tensor had an unknown dtype (bytes are a lower bound), or the
                                  session holds none of its tensors (bytes and GB/s unknown) */
    double gbps;               /* (read + written) / device time in GB/s (1e9), -1 unknown */
} kernel_time_row;

typedef struct {
    size_t n;
    kernel_time_row *rows;     /* in launch order */
    size_t *by_device;         /* indexes into rows, sorted by device_us descending (unknown last) */
    double total_device_us;    /* sum of the device_us that are known */
    double total_wall_us;      /* sum of the wall_us that are known */
    uint64_t folded;           /* launches the session folded (fold events): not rows here */
    size_t ndevice_known;      /* rows with device_us >= 0 */
    double peak_gbps;          /* the device's peak memory bandwidth, -1 unknown */
    char peak_from[64];        /* where peak_gbps comes from ("datasheet: H200", "runtime: memory clock x
                                  bus width"); "" unknown */
    const char *gpu;           /* the session's GPU (s->gpu), NULL for a CPU run or when not said */
    size_t nall;               /* kernels counted: n, or more when only the longest are kept (kernel_times_add) */
    size_t keep;               /* kernel_times_begin: rows kept (the longest); 0 all (kernel_times_build) */
    kernel_event *own;         /* the kept rows' kernels (index, name copied, type, status, times) */
} kernel_times;

void kernel_times_build(const session *s, kernel_times *t);
/* The table built while the kernels are read, for a dump that frees them as
 * it goes (session_reader_forget): begin; add each event as it is read
 * (kernels make rows, fold events count their launches; s: the session it is
 * read into, for its provenance); end with the session read (its GPU, for
 * the peak). Only the keep rows longest on the device (the order of
 * by_device) are kept, in that order, with their own copies of the kernels'
 * names and numbers; totals count every kernel (nall). kernel_times_print of
 * at most keep rows prints what it prints for kernel_times_build. Rows do not
 * point into the session. */
void kernel_times_begin(kernel_times *t, size_t keep);
void kernel_times_add(kernel_times *t, const session *s, const event *e);
void kernel_times_end(kernel_times *t, const session *s);
void kernel_times_release(kernel_times *t);

/* "peak 4800 GB/s (datasheet: H200)", or why it is unknown: "peak unknown
 * (no GPU: a CPU run)", "peak unknown (NVIDIA X: not in the datasheet
 * table)". Returns buf. */
const char *kernel_times_peak_text(const kernel_times *t, char *buf, size_t len);

/* One row's cells as the table and the UI show them: "-" where unknown,
 * of_peak "" when the peak is unknown; read and written "1.5 KiB", "1.5 KiB+"
 * (at least: a dtype unknown), "-" (no tensor recorded). */
typedef struct { char dev[24], share[16], read[24], written[24], gbps[24], of_peak[16]; } kernel_time_cells;
void kernel_times_cells(const kernel_times *t, const kernel_time_row *r, kernel_time_cells *c);

/* The table as text, kernels sorted by device time: share of the total,
 * bytes, GB/s, a bar scaled to the longest, at most max_rows rows (0: all),
 * lines no wider than width (at least 90). Writes to f. */
void kernel_times_print(const kernel_times *t, FILE *f, size_t max_rows, int width);

#endif
