/* mai-agent status: the agent's health from the status.json it keeps in the
 * state directory. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "follow.h"
#include "audit_stats.h"
#include "daemon.h"
#include "daemon_metrics.h"
#include "log.h"
#include "options.h"
#include "result.h"
#include "sandbox.h"
#include "units.h"

static void status_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent status [--config-dir DIR] [--format text|json|prometheus | --self-test]\n"
		"\n"
		"Shows the running agent's queue, counts by state and level, Docker\n"
		"reachability (and how long ago it was checked: the agent checks every\n"
		"docker.check_interval while no job talks to Docker), pool and uptime,\n"
		"from agent.state_dir/status.json. When the agent is not running, says\n"
		"when it was last seen instead.\n"
		"\n"
		"  -c, --config-dir DIR  configuration directory\n"
		"  -f, --format FMT      text (default), json (status.json as it is; also\n"
		"                        --json) or prometheus: the metrics in the Prometheus\n"
		"                        text format, for node_exporter's textfile collector\n"
		"                        (jobs by state, level and verdict, queue, retries,\n"
		"                        run and drop-to-result latency, Docker, warm pool,\n"
		"                        audit records, bytes and checkpoint age); printed\n"
		"                        whether or not the agent runs (mai_agent_up), exit 0\n"
		"  -j, --json            the same as --format json\n"
		"      --self-test       run the sandbox's confinement probes in a real\n"
		"                        container with the configured image, user and\n"
		"                        limits (root read-only, no network, no\n"
		"                        capabilities, no-new-privileges, seccomp, non-root\n"
		"                        user, memory limit enforced); names a failed probe\n"
		"\n"
		"Exit status: 0 the agent is running (with --self-test: every probe\n"
		"passed); 1 it is not, or it has not written status.json for 30 s; 2 bad\n"
		"arguments or no status; 3 invalid configuration; 4 Docker not usable or\n"
		"a probe failed.\n");
}

/* The agent rewrites status.json every second (daemon.c): older than this,
 * a live pid is not that agent, or it is stuck. */

/* "42 s", "5 min", "3 h", "2 d": how long ago, for a person; a time in the
 * future (the clock set back since) is "0 s" ago. */
static void format_ago(long long s, char buf[UNITS_BUF_LEN])
{
	units_format_age(s < 0 ? 0 : s, buf);
}

/* Seconds since a time that result_format_time() wrote; -1 when unreadable. */
static long long seconds_since(const char *iso)
{
	struct tm tm = { 0 };
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (!end)
		return -1;
	return (long long)(time(NULL) - timegm(&tm));
}

static void print_docker(json_t *st)
{
	json_t *up = json_object_get(st, "docker_reachable");
	const char *why = json_string_value(json_object_get(st, "docker_error"));
	long long ago = seconds_since(json_string_value(json_object_get(st, "docker_checked")));
	char when[48] = "";

	if (!json_is_boolean(up)) {
		printf("docker: not checked yet\n");
		return;
	}
	if (ago >= 0) {
		char a[UNITS_BUF_LEN];
		format_ago(ago, a);
		snprintf(when, sizeof(when), " (checked %s ago)", a);
	}
	if (json_is_true(up))
		printf("docker: reachable%s\n", when);
	else
		printf("docker: NOT reachable%s: %s\n", when, why ? why : "no detail");
}

/* The audit log as the agent last saw it: "ok", or what stops it and what
 * to do. */
static void print_audit(json_t *st)
{
	json_t *a = json_object_get(st, "audit");
	const char *state = json_string_value(json_object_get(a, "state"));
	const char *why = json_string_value(json_object_get(a, "message"));
	if (state)
		printf("audit log: %s%s%s\n", strcmp(state, "ok") == 0 ? "ok" : state, why ? ": " : "",
		       why ? why : "");
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

/* "runtimes: trusted runc, standard runc, untrusted runsc", then the
 * warnings the agent gave (a runtime auto that fell back to runc). */
static void print_runtimes(json_t *st)
{
	json_t *rt = json_object_get(st, "runtimes"), *w;
	const char *k;
	json_t *v;
	size_t i;
	if (json_object_size(rt) > 0) {
		printf("runtimes:");
		json_object_foreach(rt, k, v)
			printf(" %s %s", k, json_string_value(v) ? json_string_value(v) : "?");
		printf("\n");
	}
	json_array_foreach(json_object_get(st, "warnings"), i, w)
		printf("warning: %s\n", json_string_value(w) ? json_string_value(w) : "?");
}

/* "engine: swarm at unix:///...", where an allowlist level's proxy runs,
 * then one line per node: its level and whether its probe let it take
 * runs, and if not, why. */
static void print_engine(json_t *st)
{
	json_t *e = json_object_get(st, "engine"), *n;
	size_t i;

	if (!json_is_object(e))
		return;
	printf("engine: %s at %s\n", json_string_value(json_object_get(e, "name")) ?: "?",
	       json_string_value(json_object_get(e, "host")) ?: "?");
	if (json_string_value(json_object_get(e, "proxy")))
		printf("network allowlist: through %s, to network.allowed_hosts only\n",
		       json_string_value(json_object_get(e, "proxy")));
	json_array_foreach(json_object_get(e, "nodes"), i, n) {
		const char *probe = json_string_value(json_object_get(n, "probe"));
		const char *level = json_string_value(json_object_get(n, "level"));
		const char *why = json_string_value(json_object_get(n, "why"));
		bool used = probe && !strcmp(probe, "ok") && level;
		printf("node %s (%s, %s): %s%s\n",
		       json_string_value(json_object_get(n, "hostname")) ?: "?",
		       level ? level : "no trust label",
		       json_string_value(json_object_get(n, "state")) ?: "?",
		       used ? "used, probe passed" : "not used: ",
		       used ? "" : !level ? "it has no trust level label" : why ? why : probe);
	}
}

static int status_self_test(const struct mai_config *cfg)
{
	_cleanup_free_ char *err = NULL, *warning = NULL;
	struct sandbox_options so;
	struct sandbox *sb = NULL;
	char instance[64];

	/* Its own instance label: a running agent's containers are not touched. */
	snprintf(instance, sizeof(instance), "self-test-%ld", (long)getpid());
	sandbox_options_from_config(cfg, instance, &so);
	so.self_test = true;
	so.pool_size = 0;
	/* The running agent checked its range at its start; its own runs are
	 * in it now. */
	so.uid_check = false;
	if (sandbox_options_resolve_auto(&so, &warning, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_DOCKER;
	}
	if (warning)
		log_warnx("%s", warning);
	if (sandbox_new(&so, &sb, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_DOCKER;
	}
	bool gvisor = so.trust[TRUST_UNTRUSTED].runtime &&
		      strcmp(so.trust[TRUST_UNTRUSTED].runtime, "runsc") == 0;
	printf("self-test: passed (root read-only, no network, no capabilities, %s, non-root "
	       "user (uid_range %s), memory limit enforced)\n",
	       gvisor ? "gVisor's kernel (runsc)" : "no-new-privileges, seccomp", cfg->sandbox.uid_range);
	sandbox_free(sb);
	return MAI_EXIT_OK;
}

/* --format prometheus: status.json and the audit log, whatever state the
 * agent is in; mai_agent_up says whether it runs. */
static int status_prometheus(const struct mai_config *cfg)
{
	struct daemon_metrics_input in = { .now = time(NULL), .status_age_s = -1 };
	struct audit_stats audit;
	json_t *st = NULL;
	int r = daemon_status_read(cfg->agent.state_dir, &st, &in.status_age_s, &in.live);

	if (r < 0 && r != -ENOENT)
		log_warnx("%s/%s: %s; the agent's own metrics are left out", cfg->agent.state_dir,
			  DAEMON_STATUS_NAME, r == -EBADMSG ? "not a JSON object" : strerror(-r));
	in.status = st;
	if ((r = audit_stats_read(cfg->audit.log_dir, &audit)) == 0)
		in.audit = &audit;
	else
		log_warnx("%s: cannot read the audit log directory: %s", cfg->audit.log_dir,
			  strerror(-r));
	char *text = daemon_metrics_render(&in);
	fputs(text, stdout);
	free(text);
	json_decref(st);
	return fflush(stdout) == 0 ? MAI_EXIT_OK : MAI_EXIT_FAILURE;
}

int cmd_status(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "self-test", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	bool as_json = false, self_test = false, prometheus = false;
	_cleanup_free_ char *dir = NULL, *err = NULL, *path = NULL;
	struct mai_config *cfg = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:jf:h", options, NULL)) != -1) {
		switch (c) {
		case 'c': dir_arg = optarg; break;
		case 'j': as_json = true; break;
		case 'f':
			as_json = !strcmp(optarg, "json");
			prometheus = !strcmp(optarg, "prometheus");
			if (!as_json && !prometheus && strcmp(optarg, "text") != 0) {
				log_errorx("unknown --format '%s'; use text, json or prometheus", optarg);
				return MAI_EXIT_USAGE;
			}
			break;
		case 's': self_test = true; break;
		case 'h': status_usage(stdout); return MAI_EXIT_OK;
		default: status_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (follow_config_load(dir_arg, &dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	if (optind < argc) {
		log_errorx("status takes no arguments ('%s'); see 'mai-agent status --help'",
			   argv[optind]);
		config_free(cfg);
		return MAI_EXIT_USAGE;
	}
	if (self_test || prometheus) {
		int r = self_test ? status_self_test(cfg) : status_prometheus(cfg);
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
	struct stat sst;
	long long age = stat(path, &sst) == 0 ? (long long)(time(NULL) - sst.st_mtime) : -1;
	enum daemon_liveness live = daemon_liveness(pid, age);
	bool pid_alive = live != DAEMON_GONE;
	bool alive = live == DAEMON_RUNNING;
	char seen[64] = "unknown", ago[UNITS_BUF_LEN] = "?";
	if (age >= 0) {
		result_format_time(&sst.st_mtim, seen, sizeof(seen));
		format_ago(age, ago);
	}
	if (as_json) {
		char *s = json_dumps(st, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", s);
		free(s);
	} else {
		json_t *q = json_object_get(st, "queue");
		const char *drop = json_string_value(json_object_get(st, "drop_dir"));
		if (!alive) {
			/* Figures of a past run are not shown as if they were live. */
			printf("agent: %s (last seen %s, %s ago, as pid %lld%s)\n",
			       pid_alive ? "NOT answering" : "not running", seen, ago,
			       (long long)pid, pid_alive ? ", which is still alive" : "");
			printf("drop directory: %s\n", drop ? drop : "?");
			print_counts("last run's states",
				     json_object_get(st, "states"));
			print_counts("last run's levels",
				     json_object_get(st, "levels"));
		} else {
			printf("agent: running (pid %lld, up %llds)\n", (long long)pid,
			       (long long)json_integer_value(json_object_get(st, "uptime_s")));
			const char *mode = json_string_value(json_object_get(st, "drop_mode"));
			bool mounted = mode && strcmp(mode, "mount") == 0;
			printf("drop directory: %s (%s)\n", drop ? drop : "?",
			       !json_is_true(json_object_get(st, "watching")) ?
				       "MISSING, waiting for it" :
			       mounted ? "mounted: mount mode" : "watched");
			const char *conf = json_string_value(json_object_get(st, "config_dir"));
			if (conf)
				printf("configuration: %s\n", conf);
			print_docker(st);
			print_runtimes(st);
			print_engine(st);
			print_audit(st);
			printf("pool: %lld worker(s), %lld running, %lld queued, %lld waiting to "
			       "retry\n",
			       (long long)json_integer_value(json_object_get(q, "workers")),
			       (long long)json_integer_value(json_object_get(q, "running")),
			       (long long)json_integer_value(json_object_get(q, "queued")),
			       (long long)json_integer_value(json_object_get(q, "retrying")));
			if (json_is_integer(json_object_get(st, "pool_size")))
				printf("warm pool: %lld container(s) per trust level\n",
				       (long long)json_integer_value(json_object_get(st, "pool_size")));
			print_counts("states", json_object_get(st, "states"));
			print_counts("levels", json_object_get(st, "levels"));
		}
	}
	json_decref(st);
	if (pid_alive && !alive)
		log_warnx("%s was last written %s ago, yet its agent (pid %lld) writes it every "
			  "second: that process is stuck or is not the agent; see the agent log, "
			  "or start the agent with 'mai-agent run'", path, ago, (long long)pid);
	else if (!alive)
		log_warnx("the agent is not running (%s is from its last run, %s ago): start it "
			  "with 'mai-agent run'", path, ago);
	return alive ? MAI_EXIT_OK : MAI_EXIT_FAILURE;
}
