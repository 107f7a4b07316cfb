/* mai-agent status: the agent's health from the status.json it keeps in the
 * state directory. */
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "sandbox.h"

static void status_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent status [--config-dir DIR] [--json | --self-test]\n"
		"\n"
		"Shows the running agent's queue, counts by state and level, Docker\n"
		"reachability, pool and uptime, from agent.state_dir/status.json.\n"
		"\n"
		"  -c, --config-dir DIR  configuration directory\n"
		"  -j, --json            print status.json as it is\n"
		"      --self-test       run the sandbox's confinement probes in a real\n"
		"                        container with the configured image, user and\n"
		"                        limits (root read-only, no network, no\n"
		"                        capabilities, no-new-privileges, seccomp, non-root\n"
		"                        user, memory limit enforced); names a failed probe\n"
		"\n"
		"Exit status: 0 the agent is running (with --self-test: every probe\n"
		"passed); 1 it is not (the last status is shown); 2 bad arguments or no\n"
		"status; 3 invalid configuration; 4 Docker not usable or a probe failed.\n");
}

static void print_counts(const char *title, json_t *o)
{
	const char *k;
	json_t *v;
	printf("%s:", title);
	json_object_foreach(o, k, v)
		printf(" %s %lld", k, (long long)json_integer_value(v));
	printf("\n");
}

static int status_self_test(const struct mai_config *cfg)
{
	_cleanup_free_ char *err = NULL;
	struct sandbox_options so;
	struct sandbox *sb = NULL;
	char instance[64];

	/* Its own instance label: a running agent's containers are not touched. */
	snprintf(instance, sizeof(instance), "self-test-%ld", (long)getpid());
	sandbox_options_from_config(cfg, instance, &so);
	so.self_test = true;
	so.pool_size = 0;
	if (sandbox_new(&so, &sb, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_DOCKER;
	}
	printf("self-test: passed (root read-only, no network, no capabilities, "
	       "no-new-privileges, seccomp, non-root user %s, memory limit enforced)\n",
	       cfg->sandbox.user);
	sandbox_free(sb);
	return MAI_EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "self-test", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	bool as_json = false, self_test = false;
	_cleanup_free_ char *dir = NULL, *err = NULL, *path = NULL;
	struct mai_config *cfg = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:jh", options, NULL)) != -1) {
		switch (c) {
		case 'c': dir_arg = optarg; break;
		case 'j': as_json = true; break;
		case 's': self_test = true; break;
		case 'h': status_usage(stdout); return MAI_EXIT_OK;
		default: status_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (config_dir_resolve(dir_arg, &dir, &err) < 0 || config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	if (optind < argc) {
		log_errorx("status takes no arguments ('%s'); see 'mai-agent status --help'",
			   argv[optind]);
		config_free(cfg);
		return MAI_EXIT_USAGE;
	}
	if (self_test) {
		int r = status_self_test(cfg);
		config_free(cfg);
		return r;
	}
	path = xasprintf("%s/%s", cfg->agent.state_dir, DAEMON_STATUS_NAME);
	config_free(cfg);
	json_error_t je;
	json_t *st = json_load_file(path, 0, &je);
	if (!st) {
		log_errorx("no status at %s (%s): has the agent ever run with this configuration? "
			   "Start it with 'mai-agent run'", path, je.text);
		return MAI_EXIT_USAGE;
	}
	json_int_t pid = json_integer_value(json_object_get(st, "pid"));
	bool alive = pid > 0 && kill((pid_t)pid, 0) == 0;
	if (as_json) {
		char *s = json_dumps(st, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", s);
		free(s);
	} else {
		json_t *q = json_object_get(st, "queue");
		json_t *dk = json_object_get(st, "docker_reachable");
		printf("agent: %s (pid %lld, up %llds)\n", alive ? "running" : "NOT running",
		       (long long)pid,
		       (long long)json_integer_value(json_object_get(st, "uptime_s")));
		printf("drop directory: %s (%s)\n",
		       json_string_value(json_object_get(st, "drop_dir")),
		       json_is_true(json_object_get(st, "watching")) ? "watched" :
		       "MISSING, waiting for it");
		printf("docker: %s\n", json_is_null(dk) || !dk ? "unknown in this build" :
		       json_is_true(dk) ? "reachable" : "NOT reachable");
		printf("pool: %lld worker(s), %lld running, %lld queued, %lld waiting to retry\n",
		       (long long)json_integer_value(json_object_get(q, "workers")),
		       (long long)json_integer_value(json_object_get(q, "running")),
		       (long long)json_integer_value(json_object_get(q, "queued")),
		       (long long)json_integer_value(json_object_get(q, "retrying")));
		print_counts("states", json_object_get(st, "states"));
		print_counts("levels", json_object_get(st, "levels"));
	}
	json_decref(st);
	if (!alive)
		log_warnx("the agent is not running (this status is from its last run): start it "
			  "with 'mai-agent run'");
	return alive ? MAI_EXIT_OK : MAI_EXIT_FAILURE;
}
