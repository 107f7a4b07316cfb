/* Checking and storing one value of the configuration against its key
 * (config_value.c), for the loader (config.c). Not used outside config/. */
#ifndef MAI_CONFIG_VALUE_H
#define MAI_CONFIG_VALUE_H

#include "config.h"
#include "config_keys.h"
#include "macro.h"
#include "yamltree.h"

/* Where a key got its value; file is NULL while the key has its default. */
struct config_pos {
	const char *file;
	unsigned line, col;
};

struct config_ctx {
	struct mai_config *cfg;
	struct config_pos *pos; /* one per key of the table */
	char *err;
};

/* Sets ctx->err to "FILE:LINE:COL: message" unless an error is already
 * set: the first problem is the one reported. */
void config_fail(struct config_ctx *ctx, const char *file, unsigned line, unsigned col,
		 const char *fmt, ...) _printf_(5, 6);
/* A value quoted back in a message: short, on one line. */
void config_show(const char *value, char out[72]);
/* Where key k's value lives in cfg. */
void *config_field(struct mai_config *cfg, const struct config_key *k);
/* Whether the YAML node is null (an empty value). */
int config_is_null(const struct yt_node *v);
/* A lexically normalised path: no "//", "." or "..", no trailing "/".
 * Caller frees. */
char *config_path_normalize(const char *path);
/* Checks the node v against key k and stores it in the configuration;
 * 0, or -EINVAL with ctx->err set. */
int config_apply(struct config_ctx *ctx, const struct config_key *k, const struct yt_node *v,
		 const char *file);

#endif
