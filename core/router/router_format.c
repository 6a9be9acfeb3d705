/* router_format.c — prints a route_result as human text or as YAML (router.h:
 * top-level `route:`, then `fields:`, `steps:`, `also:`; added since:
 * `platform:`, `platform_from:`, `failed_line:`, `looked_at:`, an evidence item's `origin:`,
 * `part:` (the part of the log's structure the route was taken from) and
 * `learned:` (the learned fallback's answer, router_nb.h)).
 * Strings in a result are already valid UTF-8; YAML strings are always
 * double-quoted. */
#include <string.h>
#include "router_rules.h"

/* "learned fallback, confidence 0.73, nearest known logs: a (route), b (route)" */
static void add_learned(strbuf *out, const route_result *r)
{
    strbuf_addf(out, "learned fallback, confidence %.2f", r->learned_confidence);
    if (!r->learned_used)
        strbuf_addf(out, " for %s (under %.2f: not routed)", r->learned_route, ROUTER_NB_MIN_CONFIDENCE);
    for (size_t i = 0; i < r->nlearned_nearest; i++)
        strbuf_addf(out, "%s%s (%s)", i ? ", " : ", nearest known logs: ", r->learned_nearest[i],
                    r->learned_nearest_route[i]);
}

static void add_action(strbuf *out, const route_action *a)
{
    strbuf_addstr(out, a->name);
    if (a->level)
        strbuf_addf(out, " level=%d", a->level);
    if (a->field)
        strbuf_addf(out, " %s=%s", a->field, a->value ? a->value : "(unknown)");
}

/* Wraps text at ~width columns with the given indent. */
static void add_wrapped(strbuf *out, const char *text, const char *indent, size_t width)
{
    size_t col = 0;
    const char *p = text;
    strbuf_addstr(out, indent);
    while (*p) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (!w)
            break;
        if (col && col + 1 + w > width) {
            strbuf_addch(out, '\n');
            strbuf_addstr(out, indent);
            col = 0;
        } else if (col) {
            strbuf_addch(out, ' ');
            col++;
        }
        strbuf_add(out, p, w);
        col += w;
        p += w;
    }
    strbuf_addch(out, '\n');
}

void route_result_format_text(const route_result *r, strbuf *out)
{
    strbuf_addf(out, "route: %s - %s\n", r->route, r->title);
    if (r->learned_used) {
        strbuf_addstr(out, "  no rule names a cause: ");
        add_learned(out, r);
        strbuf_addch(out, '\n');
    }
    size_t shown = 0, last = 0;
    for (size_t i = 0; i < r->nevidence && shown < 3; i++) {
        const route_evidence *e = &r->evidence[i];
        if (strcmp(e->route, r->route))
            break;
        if (e->line == last && !e->origin)
            continue;                 /* several patterns matched one line */
        last = e->line;
        strbuf_addf(out, "  %s ", shown++ ? "   " : "why");
        if (e->origin)
            strbuf_addf(out, "%s: ", e->origin);
        else
            strbuf_addf(out, "line %zu: ", e->line);
        strbuf_addf(out, "%.*s", (int)router_utf8_clip(e->text, 300), e->text);
        if (e->count > 1)
            strbuf_addf(out, "  (x%zu)", e->count);
        strbuf_addch(out, '\n');
    }
    if (!strcmp(r->route, "unknown")) {
        strbuf_addf(out, "  read %zu line(s), %zu bytes; no line states a cause that a route knows.\n", r->lines,
                    r->bytes);
        if (!r->nlooked)
            strbuf_addstr(out, "  no line reads like an error message: the text may stop before it.\n");
        for (size_t i = 0; i < r->nlooked; i++)
            strbuf_addf(out, "  %s line %zu: %.*s\n", i ? "      " : "looked", r->looked[i].line,
                        (int)router_utf8_clip(r->looked[i].text, 200), r->looked[i].text);
        if (r->learned_route) {
            strbuf_addstr(out, "  ");
            add_learned(out, r);
            strbuf_addch(out, '\n');
        }
    }
    if (r->part && !r->learned_used)
        strbuf_addf(out, "decided on: %s at line %zu\n", r->part, r->part_line);
    if (r->failed_text)
        strbuf_addf(out, "failed first: line %zu: %.*s%s\n", r->failed_line,
                    (int)router_utf8_clip(r->failed_text, 200), r->failed_text,
                    r->failed_routed ? "" : "\n  (no route names its cause: routed from the whole text)");
    if (r->platform)
        strbuf_addf(out, "platform: %s (%.*s)\n", r->platform, (int)router_utf8_clip(r->platform_from, 160),
                    r->platform_from);
    if (r->nfields) {
        strbuf_addstr(out, "fields:\n");
        size_t w = 0;
        for (size_t i = 0; i < r->nfields; i++)
            if (strlen(r->fields[i].key) > w)
                w = strlen(r->fields[i].key);
        for (size_t i = 0; i < r->nfields; i++)
            strbuf_addf(out, "  %-*s  %s\n", (int)w, r->fields[i].key, r->fields[i].value);
    }
    if (r->explanation && *r->explanation) {
        strbuf_addstr(out, "what it means:\n");
        add_wrapped(out, r->explanation, "  ", 76);
    }
    if (r->nsteps) {
        strbuf_addstr(out, "next steps:\n");
        for (size_t i = 0; i < r->nsteps; i++)
            strbuf_addf(out, "  %zu. %s\n", i + 1, r->steps[i]);
    }
    if (r->nactions) {
        strbuf_addstr(out, "actions:");
        for (size_t i = 0; i < r->nactions; i++) {
            strbuf_addstr(out, " [");
            add_action(out, &r->actions[i]);
            strbuf_addch(out, ']');
        }
        strbuf_addch(out, '\n');
    }
    for (size_t i = 0; i < r->nalso; i++)
        strbuf_addf(out, "also: %s - %s\n", r->also[i].route, r->also[i].reason);
    if (r->input_cut)
        strbuf_addf(out, "note: only the first %llu bytes of the input were read\n",
                    (unsigned long long)ROUTER_MAX_INPUT_BYTES);
}

void route_result_format_yaml(const route_result *r, strbuf *out)
{
    strbuf_addf(out, "route: %s\n", r->route);
    strbuf_addstr(out, "title: ");
    strbuf_add_yaml_quoted(out, r->title);
    strbuf_addf(out, "\nscore: %.1f\n", r->score);
    strbuf_addstr(out, "platform: ");
    if (r->platform) {
        strbuf_addf(out, "%s\nplatform_from: ", r->platform);
        strbuf_add_yaml_quoted(out, r->platform_from ? r->platform_from : "");
    } else {
        strbuf_addstr(out, "null");
    }
    strbuf_addch(out, '\n');
    if (r->failed_text) {
        strbuf_addf(out, "failed_line: {line: %zu, routed: %s, text: ", r->failed_line,
                    r->failed_routed ? "true" : "false");
        strbuf_add_yaml_quoted(out, r->failed_text);
        strbuf_addstr(out, "}\n");
    } else {
        strbuf_addstr(out, "failed_line: null\n");
    }
    if (r->part)
        strbuf_addf(out, "part: {kind: %s, line: %zu}\n", r->part, r->part_line);
    else
        strbuf_addstr(out, "part: null\n");
    if (r->learned_route) {
        strbuf_addf(out, "learned: {route: %s, confidence: %.2f, used: %s, nearest: [", r->learned_route,
                    r->learned_confidence, r->learned_used ? "true" : "false");
        for (size_t i = 0; i < r->nlearned_nearest; i++) {
            strbuf_addstr(out, i ? ", {log: " : "{log: ");
            strbuf_add_yaml_quoted(out, r->learned_nearest[i]);
            strbuf_addf(out, ", route: %s}", r->learned_nearest_route[i]);
        }
        strbuf_addstr(out, "]}\n");
    } else {
        strbuf_addstr(out, "learned: null\n");
    }
    strbuf_addstr(out, "explanation: ");
    strbuf_add_yaml_quoted(out, r->explanation ? r->explanation : "");
    strbuf_addstr(out, "\nfields:");
    if (!r->nfields)
        strbuf_addstr(out, " {}");
    strbuf_addch(out, '\n');
    for (size_t i = 0; i < r->nfields; i++) {
        strbuf_addstr(out, "  ");
        strbuf_add_yaml_quoted(out, r->fields[i].key);
        strbuf_addstr(out, ": ");
        strbuf_add_yaml_quoted(out, r->fields[i].value);
        strbuf_addch(out, '\n');
    }
    strbuf_addstr(out, "steps:");
    if (!r->nsteps)
        strbuf_addstr(out, " []");
    strbuf_addch(out, '\n');
    for (size_t i = 0; i < r->nsteps; i++) {
        strbuf_addstr(out, "  - ");
        strbuf_add_yaml_quoted(out, r->steps[i]);
        strbuf_addch(out, '\n');
    }
    strbuf_addstr(out, "actions:");
    if (!r->nactions)
        strbuf_addstr(out, " []");
    strbuf_addch(out, '\n');
    for (size_t i = 0; i < r->nactions; i++) {
        const route_action *a = &r->actions[i];
        strbuf_addf(out, "  - {do: %s", a->name);
        if (a->level)
            strbuf_addf(out, ", level: %d", a->level);
        if (a->field) {
            strbuf_addf(out, ", field: %s, value: ", a->field);
            if (a->value)
                strbuf_add_yaml_quoted(out, a->value);
            else
                strbuf_addstr(out, "null");
        }
        strbuf_addstr(out, "}\n");
    }
    strbuf_addstr(out, "also:");
    if (!r->nalso)
        strbuf_addstr(out, " []");
    strbuf_addch(out, '\n');
    for (size_t i = 0; i < r->nalso; i++) {
        strbuf_addf(out, "  - route: %s\n    score: %.1f\n    reason: ", r->also[i].route, r->also[i].score);
        strbuf_add_yaml_quoted(out, r->also[i].reason);
        strbuf_addch(out, '\n');
    }
    strbuf_addstr(out, "evidence:");
    if (!r->nevidence)
        strbuf_addstr(out, " []");
    strbuf_addch(out, '\n');
    for (size_t i = 0; i < r->nevidence; i++) {
        const route_evidence *e = &r->evidence[i];
        strbuf_addf(out, "  - line: %zu\n", e->line);
        if (e->origin) {
            strbuf_addstr(out, "    origin: ");
            strbuf_add_yaml_quoted(out, e->origin);
            strbuf_addch(out, '\n');
        }
        strbuf_addf(out, "    count: %zu\n    route: %s\n    role: %s\n    text: ", e->count, e->route, e->role);
        strbuf_add_yaml_quoted(out, e->text);
        strbuf_addch(out, '\n');
        int any = 0;
        for (size_t k = 0; k < ROUTER_CONTEXT_LINES; k++)
            any |= e->before[k] != NULL;
        if (any) {
            strbuf_addstr(out, "    before:\n");
            for (size_t k = 0; k < ROUTER_CONTEXT_LINES; k++)
                if (e->before[k]) {
                    strbuf_addstr(out, "      - ");
                    strbuf_add_yaml_quoted(out, e->before[k]);
                    strbuf_addch(out, '\n');
                }
        }
    }
    strbuf_addstr(out, "looked_at:");
    if (!r->nlooked)
        strbuf_addstr(out, " []");
    strbuf_addch(out, '\n');
    for (size_t i = 0; i < r->nlooked; i++) {
        strbuf_addf(out, "  - {line: %zu, text: ", r->looked[i].line);
        strbuf_add_yaml_quoted(out, r->looked[i].text);
        strbuf_addstr(out, "}\n");
    }
    strbuf_addf(out, "input: {lines: %zu, bytes: %zu, long_lines: %zu, cut: %s}\n", r->lines, r->bytes,
                r->long_lines, r->input_cut ? "true" : "false");
}
