/* A small string-keyed hash map (separate chaining). Keys are copied; values
 * are owned by the map when a free function is given at creation. Not
 * thread-safe: the owner locks around it. */
#ifndef MAI_STRMAP_H
#define MAI_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

struct strmap;

/* free_value (may be NULL) is called on values that the map drops. Caller
 * frees the map with strmap_free. */
struct strmap *strmap_new(void (*free_value)(void *));
void strmap_free(struct strmap *m);

void *strmap_get(const struct strmap *m, const char *key) _nonnull_(1, 2);
/* Inserts or replaces; a replaced value is freed. */
void strmap_put(struct strmap *m, const char *key, void *value) _nonnull_(1, 2);
/* Removes the key and returns its value without freeing it; NULL if absent. */
void *strmap_take(struct strmap *m, const char *key) _nonnull_(1, 2);
/* Removes the key and frees its value. True when it was present. */
bool strmap_remove(struct strmap *m, const char *key) _nonnull_(1, 2);
size_t strmap_size(const struct strmap *m) _nonnull_(1);
/* Calls fn on every entry in no particular order; fn must not change the map. */
void strmap_foreach(const struct strmap *m, void (*fn)(const char *key, void *value, void *arg),
		    void *arg) _nonnull_(1, 2);

#endif
