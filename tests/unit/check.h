/* check.h — the tiny assertion layer of the C unit tests. A test file
 * defines test functions, lists them in main() with RUN(), and ends with
 * CHECK_DONE(), which prints "N passed, N failed" and returns nonzero on failure. */
#ifndef AOTIDBG_CHECK_H
#define AOTIDBG_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_failed_ = 0, check_passed_ = 0, check_cur_failed_ = 0;

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); check_cur_failed_ = 1; } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
    if (!a_ || !b_ || strcmp(a_, b_)) { fprintf(stderr, "%s:%d: CHECK_STR failed: %s = \"%s\", want \"%s\"\n", \
        __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); check_cur_failed_ = 1; } } while (0)
#define CHECK_CONTAINS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); \
    if (!h_ || !strstr(h_, n_)) { fprintf(stderr, "%s:%d: CHECK_CONTAINS failed: \"%s\" not in \"%.400s\"\n", \
        __FILE__, __LINE__, n_, h_ ? h_ : "(null)"); check_cur_failed_ = 1; } } while (0)
#define RUN(fn) do { check_cur_failed_ = 0; fn(); if (check_cur_failed_) { check_failed_++; \
    fprintf(stderr, "FAIL %s\n", #fn); } else check_passed_++; } while (0)
#define CHECK_DONE() (printf("%d passed, %d failed\n", check_passed_, check_failed_), check_failed_ != 0)

#endif
