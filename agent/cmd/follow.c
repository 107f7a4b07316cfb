#include "follow.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon_status.h"
#include "log.h"

/* status.json of state_dir when the agent that writes it runs (a new
 * reference), else NULL. */
static json_t *running_status(const char *state_dir)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", state_dir, DAEMON_STATUS_NAME);
	struct stat st;
	if (stat(path, &st) < 0)
		return NULL;
	json_t *o = json_load_file(path, 0, NULL);
	json_int_t pid = json_integer_value(json_object_get(o, "pid"));
	if (o && daemon_liveness(pid, (long long)(time(NULL) - st.st_mtime)) == DAEMON_RUNNING)
		return o;
	json_decref(o);
	return NULL;
}

bool follow_agent_running(const char *state_dir)
{
	/* A caller who may not look (the state directory is the agent's)
	 * cannot tell: it is not told that no agent runs. */
	_cleanup_free_ char *path = xasprintf("%s/%s", state_dir, DAEMON_STATUS_NAME);
	if (access(path, R_OK) < 0 && errno == EACCES)
		return true;
	json_t *o = running_status(state_dir);
	json_decref(o);
	return o != NULL;
}

/* The configuration directory of the agent that runs with state_dir, or
 * NULL (none runs, or it does not say). Caller frees. */
static char *running_config_dir(const char *state_dir)
{
	json_t *o = running_status(state_dir);
	const char *dir = json_string_value(json_object_get(o, "config_dir"));
	char *r = dir && *dir ? xstrdup(dir) : NULL;
	json_decref(o);
	return r;
}

static bool same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	if (!realpath(a, ra) || !realpath(b, rb))
		return strcmp(a, b) == 0;
	return strcmp(ra, rb) == 0;
}

char *follow_running_elsewhere(const char *dir)
{
	/* dir only for its state_dir: an error in it is reported when the
	 * command loads what it uses. */
	struct mai_config *cfg = NULL;
	_cleanup_free_ char *e = NULL;
	if (config_load(dir, &cfg, &e) < 0)
		return NULL;
	char *running = running_config_dir(cfg->agent.state_dir);
	config_free(cfg);
	if (running && same_dir(running, dir)) {
		free(running);
		return NULL;
	}
	return running;
}

int follow_config_dir(const char *arg, char **dir, char **err)
{
	int r = config_dir_resolve(arg, dir, err);
	const char *env = getenv("MAI_CONFIG_DIR");
	if (r < 0 || arg || (env && *env))
		return r;
	char *running = follow_running_elsewhere(*dir);
	if (!running)
		return 0;
	log_debug("following the configuration of the running agent: %s", running);
	free(*dir);
	*dir = running;
	return 0;
}

int follow_config_load(const char *arg, char **dir, struct mai_config **cfg, char **err)
{
	int r = follow_config_dir(arg, dir, err);
	return r < 0 ? r : config_load(*dir, cfg, err);
}
