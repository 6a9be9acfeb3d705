/* router_rules.h — the compiled form of routes.yaml, shared by router_rules.c
 * (which builds it) and router.c (which matches with it). Internal to the router.
 *
 * Everything hangs off the rules' arena except the compiled regexes (regfree'd
 * by router_rules_free) and the prefilter tables (malloc'd, freed there too). */
#ifndef AOTIDBG_ROUTER_RULES_H
#define AOTIDBG_ROUTER_RULES_H
#include <locale.h>
#include <regex.h>
#include <stdint.h>
#include "router.h"

#define RR_MAX_GROUPS 10        /* capture groups a pattern may name (1..9) */
#define RR_STRONG     5.0       /* a primary match this heavy can explain other routes */

typedef struct { int group; const char *name; } rr_field;

#define RR_MAX_CHECKS 4         /* literal checks a pattern keeps besides its prefilter hint */
/* One more requirement of a pattern: a match contains one of these lowercased strings. */
typedef struct { size_t n; const char **s; size_t *len; } rr_check;

typedef struct {
    int route;                  /* index into rules->routes; -1 for a platform or failure pattern */
    int platform;               /* index into rules->platforms; -1 for a route or failure pattern */
    int failure;                /* a `failures:` pattern: the line states that something failed */
    int is_regex, icase, consequence;
    double weight;
    const char *source;         /* regex or literal, as written */
    const char *literal_lc;     /* literal patterns: lowercased (icase) text */
    regex_t re;
    int re_ok;
    size_t nfields;
    rr_field fields[RR_MAX_GROUPS];
    int tag, needs;             /* tag index or -1 */
    int always;                 /* no usable prefilter literal: always run */
    size_t nchecks;             /* further requirements, checked before regexec */
    rr_check *checks;
} rr_pattern;

typedef struct { const char *name; int level; const char *field; } rr_action;

/* What a route says to the user; a route has a default one and may override
 * it per platform (`wording:` in routes.yaml). NULL / 0 members inherit the default. */
typedef struct {
    uint32_t platforms;         /* bit i: rules->platforms[i]; 0 for the default */
    const char *title, *explanation, *because;
    int has_steps, has_actions;
    size_t nsteps;     const char **steps;
    size_t nactions;   rr_action *actions;
} rr_words;

typedef struct {
    const char *id;
    int fallback;               /* wins only when no other route qualifies */
    size_t nexplains;  int *explains;      /* route indexes */
    rr_words words;             /* default wording */
    size_t nvariants;  rr_words *variants; /* per-platform overrides, file order */
} rr_route;

/* A platform the log's text (or the caller) can name: cuda, rocm, xpu, mps, cpu. */
typedef struct {
    const char *id, *name;
    int gpu;                    /* 1: a GPU platform (refines a plain "GPU" fact) */
} rr_platform;

/* Prefilter: each pattern has one or more lowercased literal "hints" that any
 * match must contain; a line's bytes are scanned once through a bigram table
 * and only patterns whose hint occurs are run as regexes. */
typedef struct { const char *s; size_t len; int pattern; int32_t next; } rr_hint;   /* pattern -1: an error-like word */

struct router_rules {
    arena arena;
    size_t nroutes;   rr_route *routes;
    size_t nplatforms; rr_platform *platforms;
    size_t npatterns; rr_pattern *patterns;
    size_t ntags;     const char **tags;
    size_t nhints, hints_cap; rr_hint *hints;
    int32_t *bigram;            /* 65536 heads into hints, -1 = none (malloc'd) */
    uint64_t bigram_bits[1024]; /* 1 bit per bigram that starts some hint: an L1-sized first check */
    int unknown;                /* index of the "unknown" route, or -1 */
    locale_t cloc;              /* "C" locale: regexes match bytes, not characters */
    struct router_nb *nb;       /* the learned fallback (router_nb.h); NULL: none; freed with the rules */
};

/* Index of a platform id, or -1. */
int router_platform_index(const router_rules *r, const char *id);
/* The wording of route ri for platform pi (-1: none known): the first
 * override naming pi, else the default; members an override leaves out
 * come from the default. */
rr_words router_words(const router_rules *r, size_t ri, int pi);

/* Length of s cut to at most max bytes without splitting a UTF-8 sequence. */
size_t router_utf8_clip(const char *s, size_t max);

#endif
