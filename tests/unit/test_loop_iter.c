/* test_loop_iter.c — while_loop iterations from launch order (core/run/loop_iter.h). */
#include <stdio.h>
#include "check.h"
#include "loop_iter.h"

#define C0 "while_loop_cond_graph_0"
#define B0 "while_loop_body_graph_0"

/* cond and body each launch: cond rounds 0..n, body 0..n-1; a second call starts again */
static void test_cond_and_body(void)
{
    loop_iter li;
    loop_iter_reset(&li);
    CHECK(loop_iter_next(&li, NULL, "k_pre") == -1);
    for (int64_t i = 0; i < 5; i++) {
        CHECK(loop_iter_next(&li, C0, "gt") == i);
        CHECK(loop_iter_next(&li, B0, "sin") == i);
        CHECK(loop_iter_next(&li, B0, "add") == i);
    }
    CHECK(loop_iter_next(&li, C0, "gt") == 5);
    CHECK(loop_iter_next(&li, NULL, "k_post") == -1);
    CHECK(loop_iter_next(&li, C0, "gt") == 0);   /* entered afresh */
}

/* a cond graph that launches nothing: the body's first kernel coming round starts a round */
static void test_body_only(void)
{
    loop_iter li;
    loop_iter_reset(&li);
    for (int64_t i = 0; i < 4; i++) {
        CHECK(loop_iter_next(&li, B0, "a") == i);
        CHECK(loop_iter_next(&li, B0 "/true_graph_0", "a_nested") == i);
        CHECK(loop_iter_next(&li, B0, "b") == i);
    }
}

/* an inner loop in the outer body starts at 0 each outer round; outer kernels keep the outer count */
static void test_nested(void)
{
    loop_iter li;
    loop_iter_reset(&li);
    for (int64_t o = 0; o < 3; o++) {
        CHECK(loop_iter_next(&li, C0, "ogt") == o);
        CHECK(loop_iter_next(&li, B0, "opre") == o);
        for (int64_t i = 0; i < 2; i++) {
            CHECK(loop_iter_next(&li, B0 "/while_loop_cond_graph_1", "igt") == i);
            CHECK(loop_iter_next(&li, B0 "/while_loop_body_graph_1", "ibody") == i);
        }
        CHECK(loop_iter_next(&li, B0 "/while_loop_cond_graph_1", "igt") == 2);
        CHECK(loop_iter_next(&li, B0, "opost") == o);
    }
    CHECK(loop_iter_next(&li, C0, "ogt") == 3);
}

int main(void)
{
    RUN(test_cond_and_body);
    RUN(test_body_only);
    RUN(test_nested);
    return CHECK_DONE();
}
