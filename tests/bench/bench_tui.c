/* bench_tui.c — how fast the UI is with a big session: a 1,000,000-kernel
 * session in memory, the first frame, then keypress -> finished frame
 * (headless render into the virtual screen, the same code the terminal gets)
 * for movement, paging, jumps to the end, a search over every kernel name and
 * pane switches. Prints figures; the targets are <= 16 ms a key and
 * <= 100 ms to the first frame.
 *
 *   bench_tui [--kernels N] [--size WxH] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../unit/test_tui_fixture.h"
#include "actions.h"
#include "app.h"
#include "panes.h"
#include "render.h"
#include "bench_util.h"

int main(int argc, char **argv)
{
    size_t nk = 1000000;
    int w = 120, h = 40;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--kernels") && i + 1 < argc) nk = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) sscanf(argv[++i], "%dx%d", &w, &h);
        else { fprintf(stderr, "usage: bench_tui [--kernels N] [--size WxH]\n"); return 2; }
    }
    double t0 = bench_now_ms();
    session *s = fx_session(nk > 3 ? nk - 3 : 0);
    double t_build = bench_now_ms() - t0;
    actions_bind_defaults();
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    grid g;
    grid_init(&g, w, h, 0);
    t0 = bench_now_ms();
    app_render(&a, &g);
    double t_first = bench_now_ms() - t0;

    static const char *keys[] = {"3", "j", "j", "PgDn", "PgDn", "G", "k", "g", "End", "Home", "Tab", "S-Tab",
                                 "search:cpp_fused_mul_sum_2", "n", "N", "z", "z", "4", "j", "3", "next-anomaly", "b"};
    enum { ROUNDS = 20 };
    size_t nkeys = sizeof keys / sizeof keys[0];
    double *lat = malloc(sizeof(double) * nkeys * ROUNDS), worst = 0;
    const char *worst_key = "";
    size_t n = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < nkeys; i++) {
            double k0 = bench_now_ms();
            actions_token(&a, keys[i]);
            app_render(&a, &g);
            double d = bench_now_ms() - k0;
            lat[n++] = d;
            if (d > worst) { worst = d; worst_key = keys[i]; }
        }
    qsort(lat, n, sizeof *lat, bench_cmp_double);
    /* a search from the top to the last row: the worst case for the scan */
    actions_token(&a, "g");
    snprintf(a.search, sizeof a.search, "no-such-kernel");
    a.search_pane = PANE_KERNELS;
    double s0 = bench_now_ms();
    actions_token(&a, "n");
    app_render(&a, &g);
    double t_miss = bench_now_ms() - s0;
    printf("bench_tui: %zu kernels, %dx%d screen\n", s->nkernels, w, h);
    printf("  build session in memory   %8.1f ms\n", t_build);
    printf("  first frame               %8.3f ms   (target <= 100 ms)\n", t_first);
    printf("  keypress -> frame median  %8.3f ms   (%zu keys)\n", lat[n / 2], n);
    printf("  keypress -> frame p99     %8.3f ms   (target <= 16 ms)\n", lat[n * 99 / 100]);
    printf("  keypress -> frame worst   %8.3f ms   (%s)\n", worst, worst_key);
    printf("  search miss over all rows %8.3f ms\n", t_miss);
    free(lat);
    grid_free(&g);
    app_release(&a);
    return 0;
}
