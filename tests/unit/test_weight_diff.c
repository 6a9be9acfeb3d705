/* test_weight_diff.c — --eager's weights (core/model/weight_diff.c): what is
 * counted and kept, the sentence of every verdict and the summary, and the
 * session key eager.weights written, read back and dumped the same. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "session_io.h"
#include "session_mem.h"
#include "weight_diff.h"

static weight_diff bare(const char *fqn, weight_verdict v)
{
    return (weight_diff){.fqn = fqn, .verdict = v, .dtype = "", .pkg_dtype = "", .lead = -1, .lead_differ = -1,
                         .ranges = "", .max_abs = -1, .note = ""};
}

static session *build(void)
{
    session *s = session_new();
    s->eager.present = 1;
    s->eager.program = "/tmp/p.ep.pt2";
    s->end_state = "complete";
    s->eager.calls = s->eager.refs = -1;
    s->eager.atol = s->eager.rtol = -1;
    s->eager.weights.present = 1;
    s->eager.weights.program = 6;
    weight_diff d = bare("blocks.3.fc.weight", WDIFF_DIFFERS);
    d.dtype = d.pkg_dtype = "float32";
    d.ndim = d.pkg_ndim = 2;
    d.shape[0] = d.pkg_shape[0] = 256;
    d.shape[1] = d.pkg_shape[1] = 64;
    d.lead = 256;
    d.lead_differ = 3;
    d.ranges = "3-4, 17";
    d.differing = 130;
    d.numel = 16384;
    d.has_first = 1;
    d.first = (struct weight_first){3 * 64 + 5, 0.5, -0.25};
    d.max_abs = 2.0;
    d.nonfinite = 2;
    weights_cmp_add(s, &d);
    weight_diff e = bare("head.bias", WDIFF_EQUAL);
    weights_cmp_add(s, &e);   /* counted, not kept */
    weight_diff t = bare("tok.weight", WDIFF_DTYPE);
    t.dtype = "bfloat16";
    t.pkg_dtype = "float32";
    weights_cmp_add(s, &t);
    weight_diff sh = bare("ln.weight", WDIFF_SHAPE);
    sh.ndim = 1;
    sh.shape[0] = 64;
    sh.pkg_ndim = 1;
    sh.pkg_shape[0] = 32;
    weights_cmp_add(s, &sh);
    weight_diff np = bare("bn.running_mean", WDIFF_NO_PACKAGE);
    weights_cmp_add(s, &np);
    weight_diff u = bare("w", WDIFF_UNREAD);
    u.note = "the program's archive has no record data/weights/weight_9";
    weights_cmp_add(s, &u);
    weight_diff npg = bare("extra.weight", WDIFF_NO_PROGRAM);
    weights_cmp_add(s, &npg);
    weight_diff f = bare("_FOLDED_CONST_0", WDIFF_FOLDED);
    weights_cmp_add(s, &f);
    return s;
}

static void test_counts_and_sentences(void)
{
    session *s = build();
    const weights_cmp *w = &s->eager.weights;
    CHECK(w->compared == 4 && w->equal == 1 && w->folded == 1 && w->ndiffs == 7);
    CHECK(!weights_cmp_find(w, "head.bias") && weights_cmp_find(w, "tok.weight"));
    strbuf sb = STRBUF_INIT;
    weight_diff_describe(weights_cmp_find(w, "blocks.3.fc.weight"), &sb);
    CHECK_STR(sb.buf, "blocks.3.fc.weight differs from the package's: 3 rows of 256 (rows 3-4, 17), 130 of 16384 "
                      "elements, max |diff| 2, 2 where one side is NaN or Inf; first at [3, 5]: 0.5 in the program, "
                      "-0.25 in the package");
    strbuf_reset(&sb);
    weight_diff_describe(weights_cmp_find(w, "tok.weight"), &sb);
    CHECK_STR(sb.buf, "tok.weight: dtype bfloat16 in the program, float32 in the package (values not compared)");
    strbuf_reset(&sb);
    weight_diff_describe(weights_cmp_find(w, "ln.weight"), &sb);
    CHECK_STR(sb.buf, "ln.weight: shape [64] in the program, [32] in the package (values not compared)");
    strbuf_reset(&sb);
    weight_diff_describe(weights_cmp_find(w, "w"), &sb);
    CHECK_STR(sb.buf, "w was not compared: the program's archive has no record data/weights/weight_9");
    strbuf_reset(&sb);
    weights_cmp_summary(w, &sb);
    CHECK_STR(sb.buf, "3 of the 4 weights compared differ from the package's (blocks.3.fc.weight; in dtype: "
                      "tok.weight; in shape: ln.weight); 1 equal it byte for byte; 1 the package holds no constant "
                      "for (its kernels inline them, or do not use them), not compared: bn.running_mean; 1 could not "
                      "be read, not compared: w; 1 constant of the package the program has no weight for, not "
                      "compared: extra.weight; 1 constant-folded constant of the package (no program weight), not "
                      "compared");
    /* a 1-D weight in elements, a scalar in values */
    weight_diff one = bare("bn.weight", WDIFF_DIFFERS);
    one.ndim = 1;
    one.shape[0] = 16;
    one.lead = 16;
    one.lead_differ = 1;
    one.ranges = "3";
    one.differing = 1;
    one.numel = 16;
    one.max_abs = 0.5;
    strbuf_reset(&sb);
    weight_diff_describe(&one, &sb);
    CHECK_STR(sb.buf, "bn.weight differs from the package's: 1 of 16 elements (element 3), max |diff| 0.5");
    weight_diff sc = bare("scale", WDIFF_DIFFERS);
    sc.has_first = 1;
    sc.first = (struct weight_first){0, 2, 1};
    strbuf_reset(&sb);
    weight_diff_describe(&sc, &sb);
    CHECK_STR(sb.buf, "scale differs from the package's: 2 in the program, 1 in the package");
    /* all equal, and none listed */
    session *e = session_new();
    weight_diff q = bare("a", WDIFF_EQUAL);
    weights_cmp_add(e, &q);
    weights_cmp_add(e, &q);
    strbuf_reset(&sb);
    weights_cmp_summary(&e->eager.weights, &sb);
    CHECK_STR(sb.buf, "the program's weights equal the package's (2 compared byte for byte)");
    weight_diff m = bare("m.fc.weight", WDIFF_EQUAL);   /* a program exported from a wrapper module */
    m.note = WEIGHT_DIFF_RENAMED "fc.weight";
    weights_cmp_add(e, &m);
    strbuf_reset(&sb);
    weights_cmp_summary(&e->eager.weights, &sb);
    CHECK_STR(sb.buf, "the program's weights equal the package's (3 compared byte for byte); 1 matched by name under "
                      "other modules (m.fc.weight: fc.weight)");
    strbuf_reset(&sb);
    weight_diff_describe(&e->eager.weights.diffs[0], &sb);
    CHECK_STR(sb.buf, "m.fc.weight equals the package's (matched to the package's fc.weight)");
    e->eager.weights.not_compared = "x.ep.pt2: no models/*.json";
    strbuf_reset(&sb);
    weights_cmp_summary(&e->eager.weights, &sb);
    CHECK_STR(sb.buf, "the program's weights were not compared with the package's: x.ep.pt2: no models/*.json");
    /* a restart forgets what the last runner said */
    weights_cmp_restart(&s->eager.weights);
    CHECK(s->eager.weights.compared == 0 && s->eager.weights.ndiffs == 0 && s->eager.weights.program == 6);
    strbuf_release(&sb);
    session_free(e);
    session_free(s);
}

static void test_session_round_trip(void)
{
    session *s = build();
    size_t len;
    char *yaml = write_mem(s, &len);
    session *r = NULL;
    strbuf err = STRBUF_INIT;
    int rc = session_load_mem("w.yaml", yaml, len, &r, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n%s\n", err.buf, yaml);
    } else {
        char *d1 = dump_mem(s), *d2 = dump_mem(r);
        CHECK_STR(d2, d1);
        CHECK_CONTAINS(d2, "eager weights: 3 of the 4 weights compared differ from the package's");
        CHECK_CONTAINS(d2, "\n  blocks.3.fc.weight differs from the package's: 3 rows of 256 (rows 3-4, 17)");
        CHECK_CONTAINS(yaml, "verdict: no-package");
        CHECK_CONTAINS(yaml, "first: {index: 197, value: 0.5, package_value: -0.25}");
        const weight_diff *d = weights_cmp_find(&r->eager.weights, "blocks.3.fc.weight");
        CHECK(d && d->lead == 256 && d->lead_differ == 3 && d->has_first && d->first.index == 197 &&
              d->max_abs == 2.0 && d->ndim == 2 && d->shape[1] == 64);
        d = weights_cmp_find(&r->eager.weights, "bn.running_mean");
        CHECK(d && d->lead == -1 && d->max_abs == -1 && !d->has_first && d->ndim == 0);
        CHECK(r->eager.weights.compared == 4 && r->eager.weights.equal == 1 && r->eager.weights.folded == 1);
        size_t len2;
        char *yaml2 = write_mem(r, &len2);
        CHECK(len2 == len && !memcmp(yaml, yaml2, len));
        free(yaml2);
        free(d1);
        free(d2);
        session_free(r);
    }
    free(yaml);
    strbuf_release(&err);
    session_free(s);
}

int main(void)
{
    RUN(test_counts_and_sentences);
    RUN(test_session_round_trip);
    return CHECK_DONE();
}
