/* test_sanitizer_report.c — compute-sanitizer's reports as recorded on the
 * H200 (tests/data/memcheck/, README there): the XML and text forms of an
 * out-of-bounds gather read, clean runs of every tool, and malformed input. */
#include <stdlib.h>
#include "check.h"
#include "sanitizer_report.h"

static int load(const char *name, strbuf *sb)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/memcheck/%s", AOTIDBG_SOURCE_DIR, name);
    strbuf err = STRBUF_INIT;
    strbuf_reset(sb);
    int rc = strbuf_read_file(sb, path, SAN_MAX_INPUT, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, err.buf);
    strbuf_release(&err);
    return rc;
}

static void test_xml_out_of_bounds_gather(void)
{
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    san_report x;
    CHECK(load("gather_row9_memcheck.xml", &sb) == 0);
    CHECK(san_parse_xml(sb.buf, sb.len, &a, &x, &err) == 0);
    CHECK(x.n == 3 && x.total == 3);
    const san_record *r = &x.r[0];
    CHECK_STR(r->text, "Invalid __global__ read of size 4 bytes is out of bounds");
    CHECK_STR(r->direction, "read");
    CHECK_STR(r->space, "__global__");
    CHECK_STR(r->error, "out of bounds");
    CHECK_STR(r->level, "Error");
    CHECK(r->size == 4 && r->has_address && r->address == 0x7f595e800090ULL);
    CHECK_STR(r->func, "triton_poi_fused_add_index_mul_0");
    CHECK(r->line == 30 && r->pc == 0x260);
    CHECK_CONTAINS(r->path, "clmltgzdfwes3i7i7ce6d4cxe2yd3wmzkkts253jsskvzotly6fh.py");
    CHECK(r->has_thread && r->thread[0] == 0 && r->has_block && r->block[0] == 0);
    CHECK(x.r[1].thread[0] == 1 && x.r[1].address == 0x7f595e800094ULL);
    CHECK(r->nearest == NULL);   /* the XML does not say it */
    arena_release(&a);
    strbuf_release(&sb);
    strbuf_release(&err);
}

static void test_text_form_and_merge(void)
{
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    san_report t, x;
    CHECK(load("gather_far_memcheck.txt", &sb) == 0);
    san_parse_text(sb.buf, sb.len, &a, &t);
    CHECK(t.n == 3 && t.total == 27);
    CHECK_STR(t.r[0].text, "Invalid __global__ read of size 4 bytes");
    CHECK(t.r[0].size == 4 && t.r[0].address == 0x8f4f9c800000ULL && t.r[0].line == 30);
    CHECK_STR(t.r[0].func, "triton_poi_fused_add_index_mul_0");
    CHECK_STR(t.r[0].direction, "read");
    CHECK_STR(t.r[0].error, "out of bounds");
    CHECK_STR(t.r[0].nearest, "17,591,946,968,577 bytes after the nearest allocation at 0x7f4faac00000 of size 512 bytes");
    CHECK(t.r[2].thread[0] == 2);
    CHECK_CONTAINS(t.summary, "ERROR SUMMARY: 27 errors");
    /* the XML of the same run merges the text's facts only while addresses agree: these are two runs */
    CHECK(load("gather_far_memcheck.xml", &sb) == 0);
    CHECK(san_parse_xml(sb.buf, sb.len, &a, &x, &err) == 0);
    san_merge(&x, &t);
    CHECK(x.r[0].nearest == NULL && x.total == 27);
    t.r[0].address = x.r[0].address;
    san_merge(&x, &t);
    CHECK(x.r[0].nearest != NULL && x.r[1].nearest == NULL);
    arena_release(&a);
    strbuf_release(&sb);
    strbuf_release(&err);
}

static void test_clean_runs_of_every_tool(void)
{
    static const char *const names[] = {"mlp_memcheck", "mlp_racecheck", "mlp_synccheck", "uninit_initcheck",
                                        "embed_id12_memcheck"};
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT, fn = STRBUF_INIT;
    arena a = ARENA_INIT;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        san_report x, t;
        strbuf_reset(&fn);
        strbuf_addf(&fn, "%s.xml", names[i]);
        CHECK(load(fn.buf, &sb) == 0);
        CHECK(san_parse_xml(sb.buf, sb.len, &a, &x, &err) == 0);
        CHECK(x.n == 0 && x.total == 0);
        strbuf_reset(&fn);
        strbuf_addf(&fn, "%s.txt", names[i]);
        CHECK(load(fn.buf, &sb) == 0);
        san_parse_text(sb.buf, sb.len, &a, &t);
        CHECK(t.n == 0 && t.total == 0);
        CHECK(t.summary != NULL);
        if (i == 1)
            CHECK(t.hazards == 0 && t.warnings == 0);
    }
    arena_release(&a);
    strbuf_release(&sb);
    strbuf_release(&err);
    strbuf_release(&fn);
}

static void test_malformed(void)
{
    strbuf err = STRBUF_INIT;
    arena a = ARENA_INIT;
    san_report x;
    const char *bad = "<?xml version=\"1.0\"?>\n<ComputeSanitizerOutput>\n  <record><what><size>4</what>";
    CHECK(san_parse_xml(bad, strlen(bad), &a, &x, &err) == -1);
    CHECK_CONTAINS(err.buf, "line 3");
    /* records past the cap are counted, not kept */
    strbuf big = STRBUF_INIT;
    strbuf_addstr(&big, "<ComputeSanitizerOutput>");
    for (int i = 0; i < SAN_MAX_RECORDS + 5; i++)
        strbuf_addstr(&big, "<record><what><size>4</size><address>0x10</address></what></record>");
    strbuf_addstr(&big, "</ComputeSanitizerOutput>");
    strbuf_reset(&err);
    CHECK(san_parse_xml(big.buf, big.len, &a, &x, &err) == 0);
    CHECK(x.n == SAN_MAX_RECORDS && x.total == SAN_MAX_RECORDS + 5 && x.r[7].address == 0x10);
    /* text: a bare prefix, junk, a headline with nothing after it */
    const char *txt = "=========\n========= \nhello\n========= Invalid __shared__ write of size 8 bytes\n"
                      "=========     by thread (1,2)\n=========     at \n";
    san_report t;
    san_parse_text(txt, strlen(txt), &a, &t);
    CHECK(t.n == 1 && t.r[0].size == 8 && !t.r[0].has_thread && t.total == -1);
    CHECK_STR(t.r[0].space, "__shared__");
    CHECK_STR(t.r[0].direction, "write");
    strbuf_release(&big);
    arena_release(&a);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_xml_out_of_bounds_gather);
    RUN(test_text_form_and_merge);
    RUN(test_clean_runs_of_every_tool);
    RUN(test_malformed);
    return CHECK_DONE();
}
