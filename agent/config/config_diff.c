/* Which keys a reload cannot apply: those of the key table marked
 * CONFIG_F_RESTART whose value differs between two configurations. */
#include <string.h>

#include "config.h"
#include "config_keys.h"

static bool strv_equal(const struct config_strv *a, const struct config_strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			return false;
	return true;
}

static bool value_equal(const struct config_key *k, const void *a, const void *b)
{
	switch (k->type) {
	case CONFIG_STRING:
	case CONFIG_PATH: {
		const char *x = *(char *const *)a, *y = *(char *const *)b;
		return (!x && !y) || (x && y && strcmp(x, y) == 0);
	}
	case CONFIG_BOOL: return *(const bool *)a == *(const bool *)b;
	case CONFIG_INT: return *(const int64_t *)a == *(const int64_t *)b;
	case CONFIG_SIZE:
	case CONFIG_DURATION:
	case CONFIG_CPUS: return *(const uint64_t *)a == *(const uint64_t *)b;
	case CONFIG_ENUM: return *(const int *)a == *(const int *)b;
	case CONFIG_STRING_LIST: return strv_equal(a, b);
	case CONFIG_RAW: break; /* no RAW key needs a restart */
	}
	return true;
}

json_t *config_restart_changes(const struct mai_config *running, const struct mai_config *loaded)
{
	json_t *keys = json_array();

	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		if (!(k->flags & CONFIG_F_RESTART) ||
		    value_equal(k, (const char *)running + k->offset, (const char *)loaded + k->offset))
			continue;
		const char *file = config_file_name(k->file);
		json_array_append_new(keys, json_sprintf("%.*s.%s", (int)strcspn(file, "."), file,
							 k->path));
	}
	return keys;
}
