/* Loading the configuration: defaults from the key table, then each file's
 * tree walked against the table, then the checks that span keys. The first
 * problem stops the load with one message that names file, line, column,
 * what is wrong and what is expected. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_keys.h"
#include "config_value.h"
#include "hash.h"
#include "log.h"

static const struct config_key *config_find(enum config_file f, const char *path, size_t *idx)
{
	for (size_t i = 0; i < config_keys_count; i++) {
		if (config_keys[i].file == f && strcmp(config_keys[i].path, path) == 0) {
			if (idx)
				*idx = i;
			return &config_keys[i];
		}
	}
	return NULL;
}

/* The names directly under section (e.g. "docker": "socket, api_timeout, ...")
 * or NULL when section is not one. Caller frees. */
static char *config_section_children(enum config_file f, const char *section)
{
	size_t len = strlen(section);
	char *list = NULL, *last = NULL;

	for (size_t i = 0; i < config_keys_count; i++) {
		const char *p = config_keys[i].path;
		if (config_keys[i].file != f || strncmp(p, section, len) != 0 || p[len] != '.')
			continue;
		p += len + 1;
		size_t n = strcspn(p, ".");
		if (last && strlen(last) == n && strncmp(last, p, n) == 0)
			continue;
		free(last);
		last = xstrndup(p, n);
		char *grown = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", last);
		free(list);
		list = grown;
	}
	free(last);
	return list;
}

static size_t config_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof(size_t));

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

static const char *config_closest(enum config_file f, const char *path)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; i < config_keys_count; i++) {
		if (config_keys[i].file != f)
			continue;
		size_t d = config_distance(path, config_keys[i].path);
		if (d < best_d) {
			best_d = d;
			best = config_keys[i].path;
		}
	}
	return best;
}

static int config_walk(struct config_ctx *ctx, enum config_file f, const char *file,
		       const struct yt_node *map, const char *prefix)
{
	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct yt_node *key = map->items[i], *v = map->items[i + 1];
		_cleanup_free_ char *path = NULL, *children = NULL;
		char shown[72];
		size_t idx = 0;
		int r;

		config_show(key->value, shown);
		if (strchr(key->value, '.')) {
			config_fail(ctx, file, key->line, key->col, "key '%s' holds a '.'; expected "
				    "nested keys, each on its own indented line", shown);
			return -EINVAL;
		}
		path = prefix ? xasprintf("%s.%s", prefix, key->value) : xstrdup(key->value);
		const struct config_key *k = config_find(f, path, &idx);
		if (k) {
			r = config_apply(ctx, k, v, file);
			if (r < 0)
				return r;
			ctx->pos[idx] = (struct config_pos){ file, v->line, v->col };
			continue;
		}
		children = config_section_children(f, path);
		if (!children) {
			config_show(path, shown);
			config_fail(ctx, file, key->line, key->col, "unknown key '%s'; expected a key "
				    "of %s: did you mean '%s'?", shown, config_file_name(f),
				    config_closest(f, path));
			return -EINVAL;
		}
		if (v->kind != YT_MAPPING) {
			config_fail(ctx, file, v->line, v->col, "%s: got %s; expected a mapping with "
				    "the keys %s", path, config_is_null(v) ? "no value" :
				    yt_kind_to_string(v->kind), children);
			return -EINVAL;
		}
		r = config_walk(ctx, f, file, v, path);
		if (r < 0)
			return r;
	}
	return 0;
}

static void config_own(struct mai_config *cfg, struct yt_node *tree)
{
	if (!tree)
		return;
	cfg->owned = xrealloc(cfg->owned, (cfg->n_owned + 1) * sizeof(*cfg->owned));
	cfg->owned[cfg->n_owned++] = tree;
}

static int config_apply_defaults(struct config_ctx *ctx)
{
	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		_cleanup_free_ char *name = xasprintf("default of %s", k->path);
		struct yt_node *tree = NULL;
		int r = yt_parse_buffer(name, k->def, strlen(k->def), &tree, &ctx->err);
		if (r == 0 && !tree)
			r = -EINVAL;
		if (r == 0)
			r = config_apply(ctx, k, tree, name);
		if (k->type == CONFIG_RAW)
			config_own(ctx->cfg, tree);
		else
			yt_free(tree);
		if (r < 0)
			return r; /* a bug in the table; the test suite loads the defaults */
	}
	return 0;
}

static int config_load_file(struct config_ctx *ctx, const char *dir, enum config_file f,
			    const char **file_out)
{
	char *path = xasprintf("%s/%s", dir, config_file_name(f));
	struct yt_node *root = NULL;
	int r;

	/* the path lives as long as the context: positions point to it */
	*file_out = path;
	r = yt_parse_file(path, &root, &ctx->err);
	if (r == -ENOENT) {
		free(ctx->err);
		ctx->err = NULL;
		/* Said by 'config check' and 'run' (config_note_missing), not by
		 * every command that loads it. */
		log_debug("%s not found: using the defaults of every key in it", path);
		return 0;
	}
	if (r < 0)
		return r;
	config_own(ctx->cfg, root);
	if (!root)
		return 0;
	if (root->kind != YT_MAPPING) {
		config_fail(ctx, path, root->line, root->col, "the file holds %s; expected a "
			    "mapping of keys such as '%s: ...'", yt_kind_to_string(root->kind),
			    config_closest(f, ""));
		return -EINVAL;
	}
	return config_walk(ctx, f, path, root, NULL);
}

static const struct config_pos *config_pos_of(struct config_ctx *ctx, enum config_file f,
					      const char *path)
{
	static const struct config_pos none = { "(defaults)", 0, 0 };
	size_t idx = 0;

	if (config_find(f, path, &idx) && ctx->pos[idx].file)
		return &ctx->pos[idx];
	return &none;
}

/* The position of the first of two keys that the file sets, for errors
 * about how two values relate. */
static const struct config_pos *config_pos_either(struct config_ctx *ctx, enum config_file f,
						  const char *first, const char *second)
{
	const struct config_pos *p = config_pos_of(ctx, f, first);
	return p->file && p->line ? p : config_pos_of(ctx, f, second);
}

static int config_check_thresholds(struct config_ctx *ctx)
{
	const struct config_security *s = &ctx->cfg->security;
	const struct config_pos *p;

	if (s->thresholds.medium >= s->thresholds.high) {
		p = config_pos_either(ctx, CONFIG_FILE_SECURITY, "thresholds.high", "thresholds.medium");
		config_fail(ctx, p->file, p->line, p->col, "thresholds: high (%lld) is not above "
			    "medium (%lld); expected medium < high < blocked",
			    (long long)s->thresholds.high, (long long)s->thresholds.medium);
		return -EINVAL;
	}
	if (s->thresholds.high >= s->thresholds.blocked) {
		p = config_pos_either(ctx, CONFIG_FILE_SECURITY, "thresholds.blocked", "thresholds.high");
		config_fail(ctx, p->file, p->line, p->col, "thresholds: blocked (%lld) is not above "
			    "high (%lld); expected medium < high < blocked",
			    (long long)s->thresholds.blocked, (long long)s->thresholds.high);
		return -EINVAL;
	}
	return 0;
}

static char *config_join(const char *dir, const char *path)
{
	_cleanup_free_ char *joined = path[0] == '/' ? xstrdup(path) :
		xasprintf("%s/%s", dir, path);
	return config_path_normalize(joined);
}

static int config_path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Relative audit paths resolve against agent.state_dir; the signing key must
 * stay out of the log directory, which is published through the view. */
static int config_resolve_audit(struct config_ctx *ctx)
{
	struct mai_config *cfg = ctx->cfg;
	struct config_audit *a = &cfg->audit;
	char *resolved = config_join(cfg->agent.state_dir, a->log_dir);
	const struct config_pos *p;

	free(a->log_dir);
	a->log_dir = resolved;
	resolved = *a->public_key ? config_join(cfg->agent.state_dir, a->public_key) :
		config_join(a->log_dir, "audit.pub");
	free(a->public_key);
	a->public_key = resolved;

	if (config_path_is_under(a->signing_key, a->log_dir)) {
		p = config_pos_either(ctx, CONFIG_FILE_AUDIT, "signing_key", "log_dir");
		if (!p->line)
			p = config_pos_of(ctx, CONFIG_FILE_AGENT, "state_dir");
		config_fail(ctx, p->file, p->line, p->col, "signing_key: %s is inside log_dir %s; "
			    "expected a key outside the audit log directory, which is published",
			    a->signing_key, a->log_dir);
		return -EINVAL;
	}
	if (strcmp(a->signing_key, a->public_key) == 0) {
		p = config_pos_either(ctx, CONFIG_FILE_AUDIT, "public_key", "signing_key");
		config_fail(ctx, p->file, p->line, p->col, "public_key: %s is the signing key; "
			    "expected a different file for the public key", a->public_key);
		return -EINVAL;
	}
	return 0;
}

int config_load(const char *dir, struct mai_config **out, char **err)
{
	struct config_ctx ctx = { 0 };
	const char *files[CONFIG_FILE_COUNT] = { 0 };
	int r;

	ctx.cfg = xcalloc(1, sizeof(*ctx.cfg));
	ctx.pos = xcalloc(config_keys_count, sizeof(*ctx.pos));
	r = config_apply_defaults(&ctx);
	for (int f = 0; r == 0 && f < CONFIG_FILE_COUNT; f++)
		r = config_load_file(&ctx, dir, (enum config_file)f, &files[f]);
	if (r == 0)
		r = config_check_thresholds(&ctx);
	if (r == 0)
		r = config_resolve_audit(&ctx);
	if (r == 0) {
		_cleanup_free_ char *text = config_render(ctx.cfg);
		hash_sha256_hex(text, strlen(text), ctx.cfg->sha256);
	}
	for (int f = 0; f < CONFIG_FILE_COUNT; f++)
		free((char *)files[f]);
	free(ctx.pos);
	if (r < 0) {
		config_free(ctx.cfg);
		*err = ctx.err ? ctx.err : xasprintf("%s: cannot load the configuration; expected "
						     "readable YAML files", dir);
		return r;
	}
	*out = ctx.cfg;
	return 0;
}

void config_free(struct mai_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		void *field = config_field(cfg, k);
		if (k->type == CONFIG_STRING || k->type == CONFIG_PATH) {
			free(*(char **)field);
		} else if (k->type == CONFIG_STRING_LIST) {
			struct config_strv *strv = field;
			for (size_t j = 0; j < strv->n; j++)
				free(strv->items[j]);
			free(strv->items);
		}
	}
	for (size_t i = 0; i < cfg->n_owned; i++)
		yt_free(cfg->owned[i]);
	free(cfg->owned);
	free(cfg);
}

static void analyzer_copy(struct config_analyzer *dst, const struct config_analyzer *src)
{
	*dst = *src;
	dst->path = src->path ? xstrdup(src->path) : NULL;
	dst->rules = src->rules ? xstrdup(src->rules) : NULL;
}

void config_analyzers_copy(struct config_analyzers *dst, const struct config_analyzers *src)
{
	analyzer_copy(&dst->bandit, &src->bandit);
	analyzer_copy(&dst->semgrep, &src->semgrep);
}

void config_analyzers_clear(struct config_analyzers *a)
{
	free(a->bandit.path);
	free(a->bandit.rules);
	free(a->semgrep.path);
	free(a->semgrep.rules);
	memset(a, 0, sizeof(*a));
}

int config_dir_resolve(const char *arg, char **dir, char **err)
{
	const char *env = getenv(CONFIG_DIR_ENV);
	const char *d, *how;
	struct stat st;

	if (arg) {
		d = arg;
		how = "--config-dir";
	} else if (env && *env) {
		d = env;
		how = CONFIG_DIR_ENV;
	} else {
		*dir = xstrdup(CONFIG_DEFAULT_DIR);
		return 0;
	}
	int e = stat(d, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (e) {
		*err = xasprintf("%s: configuration directory (from %s): %s; expected a directory "
				 "holding agent.yaml, security.yaml, sandbox.yaml, audit.yaml",
				 d, how, strerror(e));
		return -e;
	}
	*dir = xstrdup(d);
	return 0;
}

void config_note_missing(const char *dir)
{
	for (int f = 0; f < CONFIG_FILE_COUNT; f++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, config_file_name((enum config_file)f));
		if (access(path, F_OK) < 0 && errno == ENOENT)
			log_info("%s not found: using the defaults of every key in it", path);
	}
}
