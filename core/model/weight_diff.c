/* weight_diff.c — the program's weights against the package's (weight_diff.h). */
#include "weight_diff.h"
#include <inttypes.h>
#include <string.h>

static const char *const verdict_names[] = {"equal",      "differs",    "dtype",  "shape", "unread",
                                            "no-package", "no-program", "folded"};
enum { NVERDICTS = sizeof verdict_names / sizeof *verdict_names };

const char *weight_verdict_name(weight_verdict v)
{
    return (int)v >= 0 && (int)v < NVERDICTS ? verdict_names[v] : "?";
}

int weight_verdict_from_name(const char *s)
{
    for (int i = 0; s && i < NVERDICTS; i++)
        if (!strcmp(verdict_names[i], s))
            return i;
    return -1;
}

static const char *keep(arena *a, const char *s) { return s ? arena_strdup(a, s) : NULL; }

void weights_cmp_add(session *s, const weight_diff *d)
{
    weights_cmp *w = &s->eager.weights;
    w->present = 1;
    switch (d->verdict) {
    case WDIFF_EQUAL: w->compared++; w->equal++; break;
    case WDIFF_DIFFERS: case WDIFF_DTYPE: case WDIFF_SHAPE: w->compared++; break;
    case WDIFF_FOLDED: w->folded++; break;
    default: break;
    }
    if (d->verdict == WDIFF_EQUAL && (!d->note || !*d->note))
        return;
    size_t cap = 0;   /* implied by the length: 4, 8, 16, ... */
    while (w->ndiffs && cap < w->ndiffs)
        cap = cap ? cap * 2 : 4;
    w->diffs = arena_grow(&s->arena, w->diffs, w->ndiffs, &cap, sizeof *w->diffs, 4);
    weight_diff *k = &w->diffs[w->ndiffs++];
    *k = *d;
    k->fqn = keep(&s->arena, d->fqn ? d->fqn : "?");
    k->dtype = keep(&s->arena, d->dtype && *d->dtype ? d->dtype : NULL);
    k->pkg_dtype = keep(&s->arena, d->pkg_dtype && *d->pkg_dtype ? d->pkg_dtype : NULL);
    k->ranges = keep(&s->arena, d->ranges && *d->ranges ? d->ranges : NULL);
    k->note = keep(&s->arena, d->note && *d->note ? d->note : NULL);
}

void weights_cmp_restart(weights_cmp *w)
{
    w->compared = w->equal = w->folded = 0;
    w->ndiffs = 0;   /* the records stay in the arena */
    w->diffs = NULL;
}

const weight_diff *weights_cmp_find(const weights_cmp *w, const char *fqn)
{
    for (size_t i = 0; fqn && i < w->ndiffs; i++)
        if (w->diffs[i].fqn && !strcmp(w->diffs[i].fqn, fqn))
            return &w->diffs[i];
    return NULL;
}

int weight_diff_is_difference(const weight_diff *d)
{
    return d->verdict == WDIFF_DIFFERS || d->verdict == WDIFF_DTYPE || d->verdict == WDIFF_SHAPE;
}

static void put_dims(strbuf *out, int n, const int64_t *d)
{
    strbuf_addch(out, '[');
    for (int i = 0; i < n; i++)
        strbuf_addf(out, "%s%" PRId64, i ? ", " : "", d[i]);
    strbuf_addch(out, ']');
}

/* The flat row-major index at as [i, j, ...] of shape. */
static void put_index(strbuf *out, int n, const int64_t *shape, int64_t at)
{
    int64_t idx[TENSOR_MAX_DIMS];
    for (int i = n; i-- > 0;) {
        int64_t s = shape[i] > 0 ? shape[i] : 1;
        idx[i] = at % s;
        at /= s;
    }
    put_dims(out, n, idx);
}

static int plural(const char *ranges) { return ranges && (strchr(ranges, ',') || strchr(ranges, '-')); }

void weight_diff_describe(const weight_diff *d, strbuf *out)
{
    const char *f = d->fqn ? d->fqn : "?";
    switch (d->verdict) {
    case WDIFF_EQUAL:
        strbuf_addf(out, "%s equals the package's", f);
        if (d->note)
            strbuf_addf(out, " (%s)", d->note);
        return;
    case WDIFF_DIFFERS:
        strbuf_addf(out, "%s differs from the package's: ", f);
        if (d->ndim == 0 || d->lead < 0) {
            strbuf_addf(out, "%.9g in the program, %.9g in the package", d->first.value, d->first.pkg_value);
            return;
        }
        if (d->ndim == 1)
            strbuf_addf(out, "%" PRIu64 " of %" PRIu64 " elements (element%s %s)", d->differing, d->numel,
                        plural(d->ranges) ? "s" : "", d->ranges ? d->ranges : "?");
        else if (d->ndim == 2)
            strbuf_addf(out, "%" PRId64 " row%s of %" PRId64 " (row%s %s), %" PRIu64 " of %" PRIu64 " elements",
                        d->lead_differ, d->lead_differ == 1 ? "" : "s", d->lead, plural(d->ranges) ? "s" : "",
                        d->ranges ? d->ranges : "?", d->differing, d->numel);
        else
            strbuf_addf(out, "%" PRId64 " of %" PRId64 " along dim 0 (index %s), %" PRIu64 " of %" PRIu64
                        " elements", d->lead_differ, d->lead, d->ranges ? d->ranges : "?", d->differing, d->numel);
        if (d->max_abs >= 0)
            strbuf_addf(out, ", max |diff| %.3g", d->max_abs);
        if (d->nonfinite)
            strbuf_addf(out, ", %" PRIu64 " where one side is NaN or Inf", d->nonfinite);
        if (d->has_first) {
            strbuf_addstr(out, "; first at ");
            put_index(out, d->ndim, d->shape, d->first.index);
            strbuf_addf(out, ": %.9g in the program, %.9g in the package", d->first.value, d->first.pkg_value);
        }
        return;
    case WDIFF_DTYPE:
        strbuf_addf(out, "%s: dtype %s in the program, %s in the package (values not compared)", f,
                    d->dtype ? d->dtype : "?", d->pkg_dtype ? d->pkg_dtype : "?");
        return;
    case WDIFF_SHAPE:
        strbuf_addf(out, "%s: shape ", f);
        put_dims(out, d->ndim, d->shape);
        strbuf_addstr(out, " in the program, ");
        put_dims(out, d->pkg_ndim, d->pkg_shape);
        strbuf_addstr(out, " in the package (values not compared)");
        return;
    case WDIFF_UNREAD:
        strbuf_addf(out, "%s was not compared: %s", f, d->note ? d->note : "it could not be read");
        return;
    case WDIFF_NO_PACKAGE:
        strbuf_addf(out, "%s: the package holds no constant of that name (its kernels inline it, or do not use "
                    "it): not compared", f);
        return;
    case WDIFF_NO_PROGRAM:
        strbuf_addf(out, "%s: a constant of the package that the program has no weight for: not compared", f);
        return;
    case WDIFF_FOLDED:
        strbuf_addf(out, "%s: made by the package's constant folding (no program weight): not compared", f);
        return;
    }
    strbuf_addf(out, "%s: ?", f);
}

/* ", a, b, c and N more" of the kept records with verdict v (or every difference when v < 0). */
static size_t list_names(const weights_cmp *w, int v, strbuf *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < w->ndiffs; i++) {
        const weight_diff *d = &w->diffs[i];
        if (v >= 0 ? (int)d->verdict != v : !weight_diff_is_difference(d))
            continue;
        if (n < max)
            strbuf_addf(out, "%s%s", n ? ", " : "", d->fqn);
        n++;
    }
    if (n > max)
        strbuf_addf(out, " and %zu more", n - max);
    return n;
}

static int starts_with_renamed(const char *note)
{
    return !strncmp(note, WEIGHT_DIFF_RENAMED, strlen(WEIGHT_DIFF_RENAMED));
}

static size_t count(const weights_cmp *w, int v)
{
    size_t n = 0;
    for (size_t i = 0; i < w->ndiffs; i++)
        n += (int)w->diffs[i].verdict == v;
    return n;
}

void weights_cmp_summary(const weights_cmp *w, strbuf *out)
{
    if (w->not_compared) {
        strbuf_addf(out, "the program's weights were not compared with the package's: %s", w->not_compared);
        return;
    }
    uint64_t differ = w->compared - w->equal;
    if (!w->compared)
        strbuf_addf(out, "none of the program's %" PRIu64 " weights was compared with the package's", w->program);
    else if (!differ)
        strbuf_addf(out, "the program's weights equal the package's (%" PRIu64 " compared byte for byte)",
                    w->compared);
    else {
        strbuf_addf(out, "%" PRIu64 " of the %" PRIu64 " weights compared differ from the package's (", differ,
                    w->compared);
        static const struct { weight_verdict v; const char *how; } kinds[] = {
            {WDIFF_DIFFERS, ""}, {WDIFF_DTYPE, "in dtype: "}, {WDIFF_SHAPE, "in shape: "}};
        for (size_t k = 0, any = 0; k < sizeof kinds / sizeof *kinds; k++) {
            if (!count(w, kinds[k].v))
                continue;
            strbuf_addf(out, "%s%s", any++ ? "; " : "", kinds[k].how);
            list_names(w, kinds[k].v, out, 4);
        }
        strbuf_addf(out, "); %" PRIu64 " equal it byte for byte", w->equal);
    }
    size_t nopkg = count(w, WDIFF_NO_PACKAGE), unread = count(w, WDIFF_UNREAD), noprog = count(w, WDIFF_NO_PROGRAM);
    if (nopkg) {
        strbuf_addf(out, "; %zu the package holds no constant for (its kernels inline them, or do not use them), "
                    "not compared: ", nopkg);
        list_names(w, WDIFF_NO_PACKAGE, out, 4);
    }
    if (unread) {
        strbuf_addf(out, "; %zu could not be read, not compared: ", unread);
        list_names(w, WDIFF_UNREAD, out, 2);
    }
    if (noprog) {
        strbuf_addf(out, "; %zu constant%s of the package the program has no weight for, not compared: ", noprog,
                    noprog == 1 ? "" : "s");
        list_names(w, WDIFF_NO_PROGRAM, out, 4);
    }
    size_t renamed = 0;
    const weight_diff *first = NULL;
    for (size_t i = 0; i < w->ndiffs; i++)
        if (w->diffs[i].note && starts_with_renamed(w->diffs[i].note) && renamed++ == 0)
            first = &w->diffs[i];
    if (renamed)
        strbuf_addf(out, "; %zu matched by name under other modules (%s: %s)", renamed, first->fqn,
                    first->note + strlen(WEIGHT_DIFF_RENAMED));
    if (w->folded)
        strbuf_addf(out, "; %" PRIu64 " constant-folded constant%s of the package (no program weight), not compared",
                    w->folded, w->folded == 1 ? "" : "s");
}
