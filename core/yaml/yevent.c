/* yevent.c — see yevent.h. */
#include "yevent.h"
#include <stdarg.h>
#include <string.h>

static int init(yev *y, const ylimits *lim)
{
    memset(y, 0, sizeof *y);
    y->lim = *lim;
    strbuf_init(&y->msg, 0);
    return yaml_parser_initialize(&y->p) ? 0 : -1;
}

int yev_init_string(yev *y, const char *text, size_t len, const ylimits *lim)
{
    if (init(y, lim))
        return -1;
    yaml_parser_set_input_string(&y->p, (const unsigned char *)text, len);
    return 0;
}

int yev_init_reader(yev *y, yaml_read_handler_t *read, void *data, const ylimits *lim)
{
    if (init(y, lim))
        return -1;
    yaml_parser_set_input(&y->p, read, data);
    return 0;
}

void yev_release(yev *y)
{
    if (y->have)
        yaml_event_delete(&y->ev);
    y->have = 0;
    yaml_parser_delete(&y->p);
    strbuf_release(&y->msg);
}

void yev_add_shown(strbuf *sb, const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (n >= 40 && (*p & 0xc0) != 0x80) {
            strbuf_addstr(sb, "...");
            return;
        }
        strbuf_addch(sb, *p < 0x20 || *p == 0x7f ? '?' : *p);
        if ((*p & 0xc0) != 0x80)
            n++;
    }
}

void yev_describe(const yaml_event_t *e, strbuf *sb)
{
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        if (!e->data.scalar.length) {
            strbuf_addstr(sb, "an empty value");
        } else {
            strbuf_addstr(sb, "the value '");
            yev_add_shown(sb, (const char *)e->data.scalar.value);
            strbuf_addch(sb, '\'');
        }
        break;
    case YAML_MAPPING_START_EVENT: strbuf_addstr(sb, "a mapping"); break;
    case YAML_SEQUENCE_START_EVENT: strbuf_addstr(sb, "a list"); break;
    case YAML_MAPPING_END_EVENT: strbuf_addstr(sb, "the end of a mapping"); break;
    case YAML_SEQUENCE_END_EVENT: strbuf_addstr(sb, "the end of a list"); break;
    case YAML_DOCUMENT_START_EVENT: strbuf_addstr(sb, "a second document"); break;
    case YAML_ALIAS_EVENT: strbuf_addstr(sb, "an alias"); break;
    default: strbuf_addstr(sb, "the end of the file"); break;
    }
}

static int fail(yev *y, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(yev *y, yaml_mark_t m, const char *fmt, ...)
{
    strbuf_reset(&y->msg);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&y->msg, fmt, ap);
    va_end(ap);
    y->err_mark = m;
    return -1;
}

int yev_next(yev *y)
{
    if (y->have) {
        yaml_event_delete(&y->ev);
        y->have = 0;
    }
    y->syntax = 0;
    if (!yaml_parser_parse(&y->p, &y->ev)) {
        yaml_mark_t m = y->p.problem_mark;
        if (y->p.error == YAML_READER_ERROR || y->p.error == YAML_MEMORY_ERROR)
            m = y->p.mark;
        y->syntax = 1;
        const char *prob = y->p.problem ? y->p.problem : "a YAML error";
        if (y->p.context)
            return fail(y, m, "found bad YAML (%s %s, from line %zu), expected well-formed YAML", prob,
                        y->p.context, (size_t)y->p.context_mark.line + 1);
        return fail(y, m, "found bad YAML (%s), expected well-formed YAML", prob);
    }
    y->have = 1;
    yaml_event_t *e = &y->ev;
    const yaml_char_t *anchor = NULL;
    int node = 0;
    switch (e->type) {
    case YAML_ALIAS_EVENT:
        return fail(y, e->start_mark, "found an alias (*%s), expected plain values: anchors and aliases are not allowed in %s",
                    e->data.alias.anchor ? (const char *)e->data.alias.anchor : "", y->lim.docs);
    case YAML_SCALAR_EVENT:
        anchor = e->data.scalar.anchor;
        node = 1;
        if (e->data.scalar.length > y->lim.max_scalar)
            return fail(y, e->start_mark, "found a value of %zu bytes, expected at most %zu bytes",
                        e->data.scalar.length, y->lim.max_scalar);
        if (memchr(e->data.scalar.value, 0, e->data.scalar.length))
            return fail(y, e->start_mark, "found a NUL byte in a value, expected text");
        break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        anchor = e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor : e->data.mapping_start.anchor;
        node = 1;
        if (++y->depth > y->lim.max_depth)
            return fail(y, e->start_mark, "found nesting deeper than %zu levels, expected %s", y->lim.max_depth,
                        y->lim.doc);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        y->depth--;
        break;
    default:
        break;
    }
    if (anchor)
        return fail(y, e->start_mark, "found an anchor (&%s), expected plain values: anchors and aliases are not allowed in %s",
                    (const char *)anchor, y->lim.docs);
    if (node && y->lim.max_nodes && ++y->nodes > y->lim.max_nodes)
        return fail(y, e->start_mark, "found more than %zu YAML values, expected %s", y->lim.max_nodes, y->lim.doc);
    return 0;
}
