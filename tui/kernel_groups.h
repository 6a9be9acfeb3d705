/* kernel_groups.h — the kernel list read as the model's layers: consecutive
 * kernels grouped by the layer their weights belong to (kernel_call_layer:
 * "blocks.0") or by the user's source line (kernel_call_where), each group
 * foldable. A kernel that passes no weight (a relu between two linears)
 * stays in the group before it.
 *
 * The list's cursor stays a kernel index; a folded group shows one line, its
 * header, which stands for its first kernel. Display lines are a header per
 * group plus the kernels of open groups; only what a frame draws is looked
 * up, and the groups grow with the session (a live run), so a million-kernel
 * session costs one pass when it is first shown and then only what is new.
 *
 * Owner: tui/kernel_groups.c; the app owns one (app.kgroups). Keys live in
 * the groups' own arena. No curses. Threads: none. */
#ifndef AOTIDBG_KERNEL_GROUPS_H
#define AOTIDBG_KERNEL_GROUPS_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"

typedef enum { KG_NONE = 0, KG_LAYER, KG_LINE, KG__COUNT } kg_mode;

typedef struct {
    int64_t first, n;          /* kernel positions first .. first+n-1 */
    const char *key;           /* "blocks.0", "model.py:22"; "" when none */
    int folded;
} kgroup;

typedef struct kgroups kgroups;

kgroups *kgroups_new(void);
void kgroups_free(kgroups *g);             /* NULL is fine */
const char *kg_mode_name(kg_mode m);       /* "none", "layer", "line" */
int kg_mode_from_name(const char *s);      /* -1 when unknown */

/* Brings the groups up to date with s's kernels in mode m (from scratch when
 * the mode changed or a restart replaced the kernels). */
void kgroups_sync(kgroups *g, const session *s, kg_mode m);
size_t kgroups_count(const kgroups *g);
const kgroup *kgroups_at(const kgroups *g, size_t i);
size_t kgroups_of(const kgroups *g, int64_t kernel);   /* group of a synced kernel */
void kgroups_fold(kgroups *g, size_t i, int folded);
void kgroups_fold_all(kgroups *g, int folded);

/* Display lines: how many; the line of a kernel (its header when folded);
 * what line l shows (*kernel -1 for a header of group *group). */
int64_t kgroups_lines(kgroups *g);
int64_t kgroups_line_of(kgroups *g, int64_t kernel);
void kgroups_item(kgroups *g, int64_t l, size_t *group, int64_t *kernel);
/* The kernel the cursor reaches moving n lines from kernel (dir +1/-1 per
 * line): a folded group is one stop, at its first kernel. */
int64_t kgroups_step(kgroups *g, int64_t kernel, int64_t n);

#endif
