/* test_session_keys.c — the session key tables (core/session/session_keys.c)
 * are well formed, and every key they hold is documented in
 * man/aotidbg-session.5: adding a key without its manual line fails here. */
#include <stdlib.h>
#include "check.h"
#include "session_keys.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = 0;
    fclose(f);
    return b;
}

/* Bold in the manual: \fBkey\fR, \fB{key:, ".B key", or a word of a ".BR" line. */
static int documented(const char *man, const char *key)
{
    static const char *const forms[] = {"\\fB%s\\f", "\\fB%s:", "\\fB{%s:", ", %s:"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char pat[128];
        snprintf(pat, sizeof pat, forms[i], key);
        if (strstr(man, pat))
            return 1;
    }
    for (const char *line = man; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, ".B ", 3) && strncmp(line, ".BR ", 4))
            continue;
        const char *end = strchr(line, '\n');
        size_t klen = strlen(key);
        for (const char *p = line + 3; p && p + klen <= (end ? end : p + klen); p++)
            if (!strncmp(p, key, klen) && (p[-1] == ' ' || p[-1] == '"') &&
                (p[klen] == ' ' || p[klen] == '\n' || p[klen] == '"' || p[klen] == ','))
                return 1;
    }
    return 0;
}

/* Every table: the top, the event tables, and every table a row leads to (sub-records and
 * lists of records, however deep), each once. */
static const stable *all_tables(int i)
{
    static const stable *seen[64];
    static int n;
    if (!n) {
        seen[n++] = &session_top_table;
        seen[n++] = &session_event_table;
        for (int k = 0; k < EV__COUNT; k++)
            seen[n++] = session_kind_tables[k];
        for (int t = 0; t < n; t++)
            for (int r = 0; r < seen[t]->n; r++) {
                const stable *sub = seen[t]->keys[r].sub;
                int known = !sub;
                for (int j = 0; j < n && !known; j++)
                    known = seen[j] == sub;
                if (!known && n < 64)
                    seen[n++] = sub;
            }
    }
    return i < n ? seen[i] : NULL;
}

static void test_tables_well_formed(void)
{
    for (int ti = 0; all_tables(ti); ti++) {
        const stable *t = all_tables(ti);
        CHECK(t->n > 0 && t->n <= 64);
        CHECK(t->where && t->size > 0);
        for (int i = 0; i < t->n; i++) {
            const skey *k = &t->keys[i];
            if (!k->what || !k->name)
                fprintf(stderr, "table %s row %d: no name or what\n", t->where, i);
            CHECK(k->name && k->what);
            CHECK(skey_find(t, k->name) == k);   /* each name once */
            if (k->type == SK_SUB || k->type == SK_LIST)
                CHECK(k->sub != NULL);
            if (k->type == SK_ENUM)
                CHECK(k->enum_name && k->enum_from);
            if (k->type == SK_STRS)
                CHECK(k->item != NULL);
            if (k->type == SK_CUSTOM)
                CHECK(k->custom != SC_NONE);
        }
    }
    /* format_version first and events last: the writer appends events. */
    CHECK_STR(session_top_table.keys[0].name, "format_version");
    CHECK_STR(session_top_table.keys[session_top_table.n - 1].name, "events");
    /* A key several event kinds share is read once for all of them. */
    for (int a = 0; a < EV__COUNT; a++)
        for (int b = a + 1; b < EV__COUNT; b++)
            for (int i = 0; i < session_kind_tables[a]->n; i++) {
                const skey *ka = &session_kind_tables[a]->keys[i];
                const skey *kb = skey_find(session_kind_tables[b], ka->name);
                CHECK(!skey_find(&session_event_table, ka->name));
                if (kb) {
                    CHECK(ka->type == kb->type && ka->sub == kb->sub && ka->custom == kb->custom);
                    CHECK_STR(ka->what, kb->what);
                }
            }
}

static void test_every_key_documented(void)
{
    char *man = slurp(AOTIDBG_SOURCE_DIR "/man/aotidbg-session.5");
    CHECK(man != NULL);
    if (!man)
        return;
    for (int ti = 0; all_tables(ti); ti++) {
        const stable *t = all_tables(ti);
        for (int i = 0; i < t->n; i++)
            if (!documented(man, t->keys[i].name)) {
                fprintf(stderr, "key '%s' (%s) is not in man/aotidbg-session.5\n", t->keys[i].name, t->where);
                CHECK(0);
            }
    }
    CHECK(!documented(man, "no_such_key_anywhere"));
    free(man);
}

int main(void)
{
    RUN(test_tables_well_formed);
    RUN(test_every_key_documented);
    return CHECK_DONE();
}
