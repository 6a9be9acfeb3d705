/* router_nb.h — the router's learned fallback: a naive Bayes classifier over
 * a log's word tokens and bigrams, trained offline from the labelled corpora
 * (core/router/train_router_nb.py writes core/router/router_nb.txt) and used
 * only when no rule of routes.yaml names a cause (router.c: the route would
 * be `unknown`). Its answer is shown as such: "learned fallback, confidence
 * 0.73, nearest known logs: ...".
 *
 * Features (the trainer computes the same): the text read is the first
 * NB_HEAD bytes and the last NB_TAIL bytes of the input (all of it when it is
 * no longer than NB_HEAD + NB_TAIL; else the two joined by a newline);
 * lowercased, every maximal run of [a-z_] of 2..NB_TOKEN_MAX bytes is a
 * token (digits and every other byte separate tokens), and each pair of
 * consecutive tokens "a b" a bigram; a feature counts once per log. A class's
 * score is its log prior plus, for each feature of the log that the file
 * knows, log P(feature | class) (the class's unseen value where the file
 * lists none); divided by the file's temperature, softmaxed: the confidence.
 *
 * The weights file is untrusted text (format below, in router_nb.c's header):
 * bounded (NB_MAX_BYTES, NB_MAX_CLASSES, NB_MAX_FEATURES, NB_MAX_DOCS), its
 * classes must be route ids of ROUTE_IDS, every number finite; any other
 * content is an error "file:line: what" and nothing is loaded.
 *
 * Ownership: a router_nb is malloc'd, freed by router_nb_free(); a
 * router_nb_answer points into the router_nb (names) and owns nothing.
 * Threads: a loaded router_nb is read-only; router_nb_classify may run on
 * several threads at once. */
#ifndef AOTIDBG_ROUTER_NB_H
#define AOTIDBG_ROUTER_NB_H
#include <stddef.h>
#include "strbuf.h"

#define NB_HEAD         16384
#define NB_TAIL         49152
#define NB_TOKEN_MAX    30
#define NB_MAX_BYTES    (8u << 20)
#define NB_MAX_CLASSES  64
#define NB_MAX_FEATURES 100000
#define NB_MAX_DOCS     5000
#define NB_DOC_FEATURES 32      /* features kept per known log (for "nearest") */
#define NB_NEAREST      3
#define NB_FORMAT       "aotidbg-router-nb 1"

typedef struct router_nb router_nb;

typedef struct {
    const char *route;               /* the best class (a route id) */
    double confidence;               /* its softmax probability, 0..1 */
    const char *second;              /* the runner-up class; NULL when one class */
    double second_confidence;
    size_t features;                 /* features of the log the file knows */
    size_t nnearest;
    const char *nearest[NB_NEAREST];        /* known logs most like this one ("dev2/312_x.log") */
    const char *nearest_route[NB_NEAREST];  /* their labels */
} router_nb_answer;

/* Parses a weights file from memory; `name` is used in messages. */
int router_nb_parse(router_nb **out, const char *text, size_t len, const char *name, strbuf *err);
int router_nb_load(router_nb **out, const char *path, strbuf *err);
void router_nb_free(router_nb *nb);
/* The file's `trained:` line (what it was trained on, its held-out accuracy); "" when none. */
const char *router_nb_about(const router_nb *nb);
/* Classifies text (the head/tail cut above is the caller's: text is what is read).
 * 0 with *out filled; -1 when no feature of text is known (nothing to say). */
int router_nb_classify(const router_nb *nb, const char *text, size_t len, router_nb_answer *out);

#endif
