/* keymap.h — key names and which action each key runs. Actions are named
 * (the action table's names, actions.h); the names bound must outlive the
 * keymap (the table's own strings). The defaults come from actions.c, the
 * user's keys.yaml on top. Threads: one; the map is process-wide. */
#ifndef AOTIDBG_KEYMAP_H
#define AOTIDBG_KEYMAP_H
#include <stddef.h>
#include "strbuf.h"

#define KEYMAP_MAX_KEYCODE 1024

/* Key names: "a", "G", "?", "Up", "PgDn", "Home", "Tab", "S-Tab", "Enter",
 * "Space", "Esc", "Backspace", "F1".."F12", "C-a".."C-z". -1 when unknown. */
int key_from_name(const char *name);
/* Writes the display name of a key code into buf. */
const char *keyname_of(int code, char *buf, size_t n);

/* No key bound. */
void keymap_clear(void);
/* Binds the space-separated key names of keys ("j Down") to action;
 * -1 when a name is unknown (the keys before it stay bound). Enter binds
 * its aliases (CR, KEY_ENTER) too, Backspace its (DEL, ^H). */
int keymap_bind_names(const char *action, const char *keys);
/* Binds one key code; Enter's aliases follow it. */
void keymap_bind(int code, const char *action);
/* Unbinds every key of action. */
void keymap_unbind(const char *action);
/* The action bound to the key, or NULL. */
const char *keymap_action(int code);
/* The keys bound to action, for help: "j Down" (Enter and Backspace once). */
void keymap_keys_text(const char *action, strbuf *out);
/* The first key of action ("C"), "" when none. */
void keymap_first_key(const char *action, char *buf, size_t n);

/* A copy of the whole map, to undo a failed load. */
typedef struct { const char *b[KEYMAP_MAX_KEYCODE]; } keymap_saved;
void keymap_save(keymap_saved *s);
void keymap_restore(const keymap_saved *s);

#endif
