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

typedef struct {
    int route;                  /* index into rules->routes */
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
} rr_pattern;

typedef struct { const char *name; int level; const char *field; } rr_action;

typedef struct {
    const char *id, *title, *explanation, *because;
    int fallback;               /* wins only when no other route qualifies */
    size_t nexplains;  int *explains;      /* route indexes */
    size_t nsteps;     const char **steps;
    size_t nactions;   rr_action *actions;
} rr_route;

/* Prefilter: each pattern has one or more lowercased literal "hints" that any
 * match must contain; a line's bytes are scanned once through a bigram table
 * and only patterns whose hint occurs are run as regexes. */
typedef struct { const char *s; size_t len; int pattern; int32_t next; } rr_hint;

struct router_rules {
    arena arena;
    size_t nroutes;   rr_route *routes;
    size_t npatterns; rr_pattern *patterns;
    size_t ntags;     const char **tags;
    size_t nhints, hints_cap; rr_hint *hints;
    int32_t *bigram;            /* 65536 heads into hints, -1 = none (malloc'd) */
    uint64_t bigram_bits[1024]; /* 1 bit per bigram that starts some hint: an L1-sized first check */
    int unknown;                /* index of the "unknown" route, or -1 */
    locale_t cloc;              /* "C" locale: regexes match bytes, not characters */
};

/* Length of s cut to at most max bytes without splitting a UTF-8 sequence. */
size_t router_utf8_clip(const char *s, size_t max);

#endif
