/* keymap.c — key names and bindings (see keymap.h). */
#include "keymap.h"
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int code; } named_keys[] = {
    {"Up", KEY_UP}, {"Down", KEY_DOWN}, {"Left", KEY_LEFT}, {"Right", KEY_RIGHT},
    {"PgUp", KEY_PPAGE}, {"PgDn", KEY_NPAGE}, {"Home", KEY_HOME}, {"End", KEY_END},
    {"Tab", '\t'}, {"S-Tab", KEY_BTAB}, {"Enter", '\n'}, {"Space", ' '}, {"Esc", 27},
    {"Backspace", KEY_BACKSPACE}, {"Delete", KEY_DC}, {"Insert", KEY_IC},
};

int key_from_name(const char *name)
{
    if (!name || !*name)
        return -1;
    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
        if (!strcmp(named_keys[i].name, name))
            return named_keys[i].code;
    if (name[0] == 'F' && name[1]) {
        char *end;
        long v = strtol(name + 1, &end, 10);
        if (!*end && v >= 1 && v <= 12)
            return KEY_F((int)v);
    }
    if (name[0] == 'C' && name[1] == '-' && name[2] && !name[3] && isalpha((unsigned char)name[2]))
        return tolower((unsigned char)name[2]) - 'a' + 1;
    if (!name[1] && isgraph((unsigned char)name[0]))
        return (unsigned char)name[0];
    return -1;
}

const char *keyname_of(int code, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
        if (named_keys[i].code == code) {
            snprintf(buf, n, "%s", named_keys[i].name);
            return buf;
        }
    if (code >= KEY_F(1) && code <= KEY_F(12))
        snprintf(buf, n, "F%d", code - KEY_F(0));
    else if (code >= 1 && code <= 26)
        snprintf(buf, n, "C-%c", 'a' + code - 1);
    else if (code > 32 && code < 127)
        snprintf(buf, n, "%c", code);
    else
        snprintf(buf, n, "#%d", code);
    return buf;
}

static const char *bindings[KEYMAP_MAX_KEYCODE];   /* key code -> action name */

/* Codes that are another name of Enter or Backspace: shown once in help. */
static int alias_code(int k) { return k == '\r' || k == KEY_ENTER || k == 127 || k == 8; }

void keymap_clear(void) { memset(bindings, 0, sizeof bindings); }

void keymap_bind(int code, const char *action)
{
    if (code < 0 || code >= KEYMAP_MAX_KEYCODE)
        return;
    bindings[code] = action;
    if (code == '\n')
        bindings['\r'] = bindings[KEY_ENTER] = action;
    if (code == KEY_BACKSPACE)
        bindings[127] = bindings[8] = action;
}

int keymap_bind_names(const char *action, const char *keys)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s", keys);
    for (char *save = NULL, *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int k = key_from_name(t);
        if (k < 0 || k >= KEYMAP_MAX_KEYCODE)
            return -1;
        keymap_bind(k, action);
    }
    return 0;
}

void keymap_unbind(const char *action)
{
    for (int k = 0; k < KEYMAP_MAX_KEYCODE; k++)
        if (bindings[k] && !strcmp(bindings[k], action))
            bindings[k] = NULL;
}

const char *keymap_action(int code)
{
    return code >= 0 && code < KEYMAP_MAX_KEYCODE ? bindings[code] : NULL;
}

void keymap_keys_text(const char *action, strbuf *out)
{
    char nb[32];
    int first = 1;
    for (int k = 0; k < KEYMAP_MAX_KEYCODE; k++) {
        if (!bindings[k] || alias_code(k) || strcmp(bindings[k], action))
            continue;
        if (!first)
            strbuf_addch(out, ' ');
        strbuf_addstr(out, keyname_of(k, nb, sizeof nb));
        first = 0;
    }
}

void keymap_first_key(const char *action, char *buf, size_t n)
{
    strbuf kb = STRBUF_INIT;
    keymap_keys_text(action, &kb);
    size_t l = strcspn(kb.buf, " ");
    snprintf(buf, n, "%.*s", (int)l, kb.buf);
    strbuf_release(&kb);
}

void keymap_save(keymap_saved *s) { memcpy(s->b, bindings, sizeof bindings); }
void keymap_restore(const keymap_saved *s) { memcpy(bindings, s->b, sizeof bindings); }
