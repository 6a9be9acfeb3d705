/* loop_iter.c — while_loop iterations from the order of launches (loop_iter.h). */
#include "loop_iter.h"

#include <stdio.h>
#include <string.h>

void loop_iter_reset(loop_iter *li)
{
    memset(li, 0, sizeof *li);
}

static const char COND[] = "while_loop_cond_graph_", BODY[] = "while_loop_body_graph_";

/* The innermost while_loop component of branch: its key in key, and 0 cond / 1 body;
 * -1 when none (or too long). *end: where that component ends in branch. */
static int innermost(const char *branch, char *key, size_t *end)
{
    int part = -1;
    for (const char *c = branch; c && *c;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        int p = !strncmp(c, COND, sizeof COND - 1) ? 0 : !strncmp(c, BODY, sizeof BODY - 1) ? 1 : -1;
        if (p >= 0) {
            const char *num = c + (p ? sizeof BODY : sizeof COND) - 1;
            int len = snprintf(key, LOOP_ITER_KEY, "%.*swhile_loop_%.*s", (int)(c - branch), branch,
                               (int)(n - (size_t)(num - c)), num);
            if (len < 0 || len >= LOOP_ITER_KEY)
                return -1;
            part = p;
            *end = (size_t)(c - branch) + n;
        }
        c = slash ? slash + 1 : NULL;
    }
    return part;
}

int64_t loop_iter_next(loop_iter *li, const char *branch, const char *name)
{
    char key[LOOP_ITER_KEY], prev_key[LOOP_ITER_KEY];
    size_t end = 0;
    int part = innermost(branch, key, &end);
    int64_t it = -1;
    if (part >= 0) {
        /* was the launch before inside this loop (its cond or body graph, at any depth)? */
        int inside = 0;
        size_t pend = 0;
        char trimmed[LOOP_ITER_KEY * 2];
        snprintf(trimmed, sizeof trimmed, "%s", li->prev);
        for (char *c = trimmed; !inside && *c;) {   /* each while_loop component of prev, outer first */
            char *slash = strchr(c, '/');
            if (slash)
                *slash = 0;
            if (innermost(trimmed, prev_key, &pend) >= 0 && !strcmp(prev_key, key))
                inside = 1;
            if (!slash)
                break;
            *slash = '/';
            c = slash + 1;
        }
        loop_iter_loop *l = NULL;
        for (int i = 0; i < li->nloops && !l; i++)
            if (!strcmp(li->loops[i].key, key))
                l = &li->loops[i];
        if (!l && li->nloops < LOOP_ITER_MAX) {
            l = &li->loops[li->nloops++];
            snprintf(l->key, sizeof l->key, "%s", key);
            inside = 0;
        }
        if (l) {
            int direct = branch[end] == 0;   /* launched in the graph itself, not a nested subgraph */
            if (!inside) {
                l->iteration = 0;
                l->first[0][0] = l->first[1][0] = 0;
            } else if (part == 0 && l->last_part == 1) {
                l->iteration++;
            } else if (direct && part == l->last_part && !l->first[!part][0] && !strcmp(l->first[part], name)) {
                l->iteration++;   /* the other graph launches nothing: the first kernel came round again */
            }
            if (direct && !l->first[part][0])
                snprintf(l->first[part], sizeof l->first[part], "%s", name);
            l->last_part = part;
            it = l->iteration;
        }
    }
    snprintf(li->prev, sizeof li->prev, "%s", branch ? branch : "");
    return it;
}

int loop_iter_key(const char *branch, char key[LOOP_ITER_KEY])
{
    size_t end;
    return innermost(branch, key, &end) < 0 ? -1 : 0;
}
