/* The table of configuration keys, shared by the loader (config.c) and the
 * renderer (config_render.c). Internal to the config module and its tests. */
#ifndef MAI_CONFIG_KEYS_H
#define MAI_CONFIG_KEYS_H

#include <stddef.h>
#include <stdint.h>

enum config_file {
	CONFIG_FILE_AGENT,
	CONFIG_FILE_SECURITY,
	CONFIG_FILE_SANDBOX,
	CONFIG_FILE_AUDIT,
	CONFIG_FILE_COUNT,
};

/* Storage of each type in struct mai_config:
 * STRING, PATH: char *; BOOL: bool; INT: int64_t; SIZE (bytes), DURATION (ms),
 * CPUS (nano-CPUs): uint64_t; ENUM: int (index into values); STRING_LIST:
 * struct config_strv; RAW: const struct yt_node *. */
enum config_type {
	CONFIG_STRING,
	CONFIG_PATH,
	CONFIG_BOOL,
	CONFIG_INT,
	CONFIG_SIZE,
	CONFIG_DURATION,
	CONFIG_ENUM,
	CONFIG_CPUS,
	CONFIG_STRING_LIST,
	CONFIG_RAW,
};

enum config_flag {
	CONFIG_F_RELATIVE = 1 << 0, /* PATH: may be relative (resolved against agent.state_dir) */
	CONFIG_F_EMPTY = 1 << 1,    /* STRING, PATH: "" is allowed */
	CONFIG_F_LIST = 1 << 2,     /* RAW: must be a list */
	CONFIG_F_RESTART = 1 << 3,  /* a reload (SIGHUP) keeps the old value until the next start */
	CONFIG_F_AUTO = 1 << 4,     /* INT: also the word "auto", stored as CONFIG_AUTO (config.h) */
};

struct config_key {
	enum config_file file;
	const char *path;            /* dotted, within its file: "docker.socket" */
	enum config_type type;
	const char *def;             /* default, written as in the file */
	int64_t min, max;            /* INT, SIZE, DURATION, CPUS: inclusive range */
	const char *const *values;   /* ENUM: NULL-terminated names */
	unsigned flags;              /* enum config_flag */
	/* STRING, STRING_LIST items: extra check; returns NULL when fine, else
	 * what is expected ("a host name such as pypi.org"). */
	const char *(*check)(const char *value);
	const char *help;
	size_t offset;               /* into struct mai_config */
};

extern const struct config_key config_keys[];
extern const size_t config_keys_count;

/* "agent.yaml", ... */
const char *config_file_name(enum config_file file);
/* "a size", "true or false", ... for the key list */
const char *config_type_to_string(enum config_type type);

#endif
