/* test_addr_map.c — naming an address by a launch's tensor table
 * (core/analysis/addr_map.h). The addresses are the ones compute-sanitizer
 * reported on the H200 (tests/data/memcheck/): a gather whose index ran past
 * its [8, 4] table (row 9, and row 2^40 where the nearest allocation is not
 * the table), and an embedding looked up at id 100000000. */
#include <stdint.h>
#include "addr_map.h"
#include "check.h"

static int64_t sh84[2] = {8, 4}, st84[2] = {4, 1}, sh3[1] = {3}, st1[1] = {1}, sh34[2] = {3, 4};
static double nines[3] = {9, 9, 9}, far[3] = {1099511627776.0, 1099511627776.0, 1099511627776.0};

static tensor_rec mk(const char *name, const char *dtype, int nd, int64_t *sh, int64_t *st, uint64_t data,
                     uint64_t bytes)
{
    tensor_rec t = {.name = name, .dtype = dtype, .device = "cuda:0", .phase = PHASE_BEFORE, .ndim = nd,
                    .shape = sh, .strides = st, .has_alloc = 1, .alloc = {data, data, bytes}};
    return t;
}

static void text_of(const addr_hit *h, char *buf, size_t n)
{
    strbuf sb = STRBUF_INIT;
    addr_hit_text(h, &sb);
    snprintf(buf, n, "%s", sb.buf);
    strbuf_release(&sb);
}

static void test_row_past_the_table(void)
{
    /* "Access to 0x7f00bc800090 is out of bounds and is 17 bytes after the nearest allocation at
     * 0x7f00bc800000 of size 128 bytes" */
    tensor_rec t[3] = {mk("arg0_1", "float32", 2, sh84, st84, 0x7f00bc800000ULL, 128),
                       mk("arg1_1", "int64", 1, sh3, st1, 0x7f00bc800200ULL, 24),
                       mk("buf0", "float32", 2, sh34, st84, 0x7f00bc800400ULL, 48)};
    t[0].user_name = "table";
    t[1].user_name = "idx";
    t[1].values = nines; t[1].nvalues = 3; t[1].values_complete = 1;
    addr_table tab = {2, t, 3};
    addr_hit h;
    CHECK(addr_map(&tab, 1, 0x7f00bc800090ULL, 4, &h) == ADDR_PAST_END);
    CHECK(h.t == &t[0] && h.distance == 16 && h.index[0] == 9 && h.index[1] == 0 && h.byte_in_elem == 0);
    CHECK(h.index_t == &t[1] && h.index_flat == 0 && h.by_index && h.launch == 2);
    char buf[256];
    text_of(&h, buf, sizeof buf);
    CHECK_STR(buf, "16 bytes past the end of arg0_1 (table) [8, 4] float32, element [9, 0]; index arg1_1 (idx)[0] = 9");
    /* thread 1: the next column */
    CHECK(addr_map(&tab, 1, 0x7f00bc800094ULL, 4, &h) == ADDR_PAST_END);
    CHECK(h.t == &t[0] && h.index[0] == 9 && h.index[1] == 1 && h.distance == 20);
    /* inside: element [2, 3] of the table */
    CHECK(addr_map(&tab, 1, 0x7f00bc800000ULL + (2 * 4 + 3) * 4, 4, &h) == ADDR_INSIDE);
    CHECK(h.t == &t[0] && h.index[0] == 2 && h.index[1] == 3 && !h.by_index);
    /* before the first allocation, no index value matches: the nearest */
    CHECK(addr_map(&tab, 1, 0x7f00bc7fff00ULL, 4, &h) == ADDR_BEFORE);
    CHECK(h.t == &t[0] && h.distance == 0x100 && h.index[0] == -16 && !h.by_index);
}

static void test_far_row_names_the_table_not_the_nearest(void)
{
    /* "Access to 0x8f4f9c800000 ... 17,591,946,968,577 bytes after the nearest allocation at
     * 0x7f4faac00000 of size 512 bytes": the table sits 2^40 rows of 16 bytes below the address */
    tensor_rec t[3] = {mk("arg0_1", "float32", 2, sh84, st84, 0x7f4f9c800000ULL, 128),
                       mk("arg1_1", "int64", 1, sh3, st1, 0x7f4faac00000ULL, 24),
                       mk("buf0", "float32", 2, sh34, st84, 0x7f4faa800000ULL, 48)};
    t[1].values = far; t[1].nvalues = 3;
    addr_table tab = {0, t, 3};
    addr_hit h;
    CHECK(addr_map(&tab, 1, 0x8f4f9c800000ULL, 4, &h) == ADDR_PAST_END);
    CHECK(h.t == &t[0] && h.index[0] == 1099511627776LL && h.index[1] == 0 && h.by_index);
    CHECK(h.distance == 0x100000000000ULL - 128);
    /* without the index values it is the nearest allocation, as compute-sanitizer says */
    t[1].nvalues = 0;
    CHECK(addr_map(&tab, 1, 0x8f4f9c800000ULL, 4, &h) == ADDR_PAST_END);
    CHECK(h.t == &t[1] && !h.by_index);
}

static void test_embedding_in_an_earlier_launch_and_views(void)
{
    /* embedding [10, 8] float32 at 0x7f918e800000, id 100000000: "Access to 0x7f924d3c2000" */
    int64_t sh108[2] = {10, 8}, st81[2] = {8, 1}, sh14[2] = {1, 4}, st41[2] = {4, 1};
    double ids[4] = {100000000, 100000000, 100000000, 100000000};
    tensor_rec w = mk("_frozen_param0", "float32", 2, sh108, st81, 0x7f918e800000ULL, 320);
    tensor_rec k1[2] = {mk("arg1_1", "int64", 2, sh14, st41, 0x7f9196c00000ULL, 32), w};
    k1[0].values = ids; k1[0].nvalues = 4;
    addr_table tab = {0, k1, 2};
    addr_hit h;
    CHECK(addr_map(&tab, 1, 0x7f924d3c2000ULL, 4, &h) == ADDR_PAST_END);
    CHECK(h.t == &k1[1] && h.index[0] == 100000000 && h.index[1] == 0 && h.index_t == &k1[0]);
    /* an address inside a tensor only an earlier launch had */
    tensor_rec none[1] = {mk("buf3", "bfloat16", 1, sh3, st1, 0x1000, 6)};
    addr_table two[2] = {{5, none, 1}, {1, k1, 2}};
    CHECK(addr_map(two, 2, 0x7f918e800000ULL + 12, 4, &h) == ADDR_INSIDE);
    CHECK(h.t == &k1[1] && h.launch == 1 && h.index[0] == 0 && h.index[1] == 3 && !h.index_t);
    /* a view at storage offset 8 of a 320-byte storage: element [-1, 7] is inside the storage only */
    int64_t sh9[2] = {9, 8};
    tensor_rec v = mk("buf1", "float32", 2, sh9, st81, 0x5000 + 32, 320);
    v.alloc.base = 0x5000;
    addr_table vt = {0, &v, 1};
    CHECK(addr_map(&vt, 1, 0x5000 + 28, 4, &h) == ADDR_IN_ALLOC);
    CHECK(h.index[0] == -1 && h.index[1] == 7);
    CHECK(addr_map(&vt, 1, 0x5000 + 34, 2, &h) == ADDR_INSIDE && h.byte_in_elem == 2);
    /* no allocation known at all */
    tensor_rec bare = {.name = "x", .dtype = "float32", .phase = PHASE_BEFORE};
    addr_table bt = {0, &bare, 1};
    CHECK(addr_map(&bt, 1, 0x1234, 4, &h) == ADDR_NONE && !h.t);
    char buf[128];
    text_of(&h, buf, sizeof buf);
    CHECK_STR(buf, "no tensor of the run is known there");
}

int main(void)
{
    RUN(test_row_past_the_table);
    RUN(test_far_row_names_the_table_not_the_nearest);
    RUN(test_embedding_in_an_earlier_launch_and_views);
    return CHECK_DONE();
}
