/* mai-agent submit FILE: copy a script into the drop directory atomically,
 * wait for the agent's final answer for exactly that content, print it and
 * exit by outcome (the entry point for editor hooks). */
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "fileio.h"
#include "intake.h"
#include "log.h"
#include "names.h"
#include "result.h"

enum submit_exit {
	SUBMIT_HELD = 6,     /* awaiting_confirmation or blocked */
	SUBMIT_REJECTED = 7,
	SUBMIT_NO_ANSWER = 8, /* no final answer in time, or the agent cannot finish it */
};

static void submit_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent submit FILE [--timeout S] [--json] [--config-dir DIR]\n"
		"\n"
		"Copies FILE into agent.drop_dir under its own name (atomically: the agent\n"
		"never sees half of it), waits for the final result for exactly that\n"
		"content and prints a summary (or the whole result with --json). With\n"
		"drop_mode: mount it waits by reading .wait/NAME.result.json in the drop\n"
		"directory, which the agent answers once the result is final; otherwise\n"
		"it reads NAME.result.json every 50 ms.\n"
		"\n"
		"  -t, --timeout S       give up after S seconds (default 120)\n"
		"  -j, --json            print the result document\n"
		"  -c, --config-dir DIR  configuration directory\n"
		"\n"
		"Exit status: 0 it ran and exited 0; 1 it ran and failed (non-zero exit,\n"
		"signal, timeout, a limit, sandbox error); 2 bad arguments or unreadable\n"
		"FILE; 3 invalid configuration; 6 held (awaiting_confirmation or blocked:\n"
		"see mai-agent approve|override); 7 rejected; 8 no final answer in time.\n");
}

static int copy_into(const char *drop, const char *base, const struct intake_snapshot *s)
{
	_cleanup_free_ char *tmp = xasprintf("%s/.%s.mai-submit.%ld", drop, base, (long)getpid());
	_cleanup_free_ char *dst = xasprintf("%s/%s", drop, base);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	int r;

	if (fd < 0)
		return -errno;
	r = fileio_write_all(fd, s->data, s->len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, dst) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

static void on_alarm(int sig)
{
	(void)sig; /* only to interrupt the read of .wait */
}

/* Mount mode: reading drop/.wait/SIDE blocks until the script has a final
 * result for its current content (agent/dropfs/dropfs.h), so no polling.
 * The result, or NULL: *timed_out when the wait ran out of time, else the
 * drop directory is not served by a running agent (then poll). */
static json_t *wait_mounted(const char *drop, const char *side, long timeout_s,
			    bool *timed_out)
{
	_cleanup_free_ char *path = xasprintf("%s/.wait/%s", drop, side);
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = -EINTR;

	*timed_out = false;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: the alarm ends the read */
	alarm((unsigned)timeout_s);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		r = fileio_read_fd(fd, (size_t)64 << 20, &text, &len);
		close(fd);
	} else {
		r = -errno;
	}
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (r == -EINTR)
		*timed_out = true;
	if (r < 0)
		return NULL;
	return json_loadb(text, len, 0, NULL);
}

static int exit_for(json_t *res)
{
	const char *state = json_string_value(json_object_get(res, "state"));
	enum result_state s;

	if (!state || result_state_from_string(state, &s) < 0)
		return SUBMIT_NO_ANSWER;
	switch (s) {
	case RESULT_COMPLETED: {
		const char *v = json_string_value(json_object_get(res, "verdict"));
		json_t *code = json_object_get(res, "exit_code");
		return v && strcmp(v, "exited") == 0 && code && json_integer_value(code) == 0 ?
			MAI_EXIT_OK : MAI_EXIT_FAILURE;
	}
	case RESULT_AWAITING_CONFIRMATION:
	case RESULT_BLOCKED:
		return SUBMIT_HELD;
	case RESULT_REJECTED:
		return SUBMIT_REJECTED;
	default:
		return SUBMIT_NO_ANSWER;
	}
}

int cmd_submit(int argc, char **argv)
{
	static const struct option options[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	bool as_json = false;
	long timeout_s = 120;
	_cleanup_free_ char *dir = NULL, *err = NULL;
	struct mai_config *cfg = NULL;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "t:jc:h", options, NULL)) != -1) {
		switch (c) {
		case 't':
			timeout_s = strtol(optarg, &end, 10);
			if (*end || timeout_s <= 0 || timeout_s > 86400) {
				log_errorx("submit: --timeout takes whole seconds from 1 to 86400, "
					   "not '%s'", optarg);
				return MAI_EXIT_USAGE;
			}
			break;
		case 'j': as_json = true; break;
		case 'c': dir_arg = optarg; break;
		case 'h': submit_usage(stdout); return MAI_EXIT_OK;
		default: submit_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		log_errorx("submit: expected exactly one FILE; see 'mai-agent submit --help'");
		return MAI_EXIT_USAGE;
	}
	const char *file = argv[optind];
	_cleanup_free_ char *c1 = xstrdup(file), *c2 = xstrdup(file);
	const char *src_dir = dirname(c1), *base = basename(c2);
	if (names_classify(base, NULL) != NAMES_SCRIPT) {
		log_errorx("submit: %s is not a name the agent runs: it must end in .py, not be "
			   "hidden, and be valid UTF-8", file);
		return MAI_EXIT_USAGE;
	}
	if (config_dir_resolve(dir_arg, &dir, &err) < 0 || config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	_cleanup_close_ int dfd = open(src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct intake_options io = { .max_size = cfg->agent.max_file_size };
	struct intake_snapshot snap;
	int e = 0;
	enum intake_status s = dfd < 0 ? INTAKE_VANISHED : intake_read(dfd, base, &io, &snap, &e);
	if (s != INTAKE_OK) {
		log_errorx("submit: cannot take %s: %s", file, intake_status_message(s));
		config_free(cfg);
		return MAI_EXIT_USAGE;
	}
	_cleanup_free_ char *drop = xstrdup(cfg->agent.drop_dir);
	bool mounted = cfg->agent.drop_mode == CONFIG_DROP_MOUNT;
	config_free(cfg);
	int r = copy_into(drop, base, &snap);
	if (r < 0) {
		log_errorx("submit: cannot copy %s into %s: %s (agent.drop_dir in agent.yaml)",
			   file, drop, strerror(-r));
		intake_snapshot_clear(&snap);
		return MAI_EXIT_USAGE;
	}
	_cleanup_free_ char *side = names_sidecar(base, RESULT_SUFFIX);
	_cleanup_free_ char *side_path = xasprintf("%s/%s", drop, side);
	struct timespec t0, now, pause = { 0, 50 * 1000000L };
	json_t *res = NULL;
	bool timed_out = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mounted) {
		res = wait_mounted(drop, side, timeout_s, &timed_out);
		/* Another content may have replaced ours meanwhile: then the
		 * polling below says so when the time is up. */
		if (res && !result_json_answers(res, snap.sha256, NULL)) {
			json_decref(res);
			res = NULL;
		}
	}
	while (!res && !timed_out) {
		res = json_load_file(side_path, 0, NULL);
		if (res && result_json_answers(res, snap.sha256, NULL))
			break;
		json_decref(res);
		res = NULL;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= timeout_s)
			break;
		nanosleep(&pause, NULL);
	}
	if (!res) {
		log_errorx("submit: no final answer for %s (sha256 %.12s) within %lds: is the agent "
			   "running ('mai-agent status')?", base, snap.sha256, timeout_s);
		intake_snapshot_clear(&snap);
		return SUBMIT_NO_ANSWER;
	}
	intake_snapshot_clear(&snap);
	if (as_json) {
		char *text = json_dumps(res, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", text);
		free(text);
	} else {
		const char *state = json_string_value(json_object_get(res, "state"));
		const char *verdict = json_string_value(json_object_get(res, "verdict"));
		const char *msg = json_string_value(json_object_get(res, "message"));
		json_t *lvl = json_object_get(json_object_get(res, "assessment"), "level");
		printf("%s: %s%s%s%s%s\n", base, state, verdict ? " (" : "", verdict ? verdict : "",
		       verdict ? ")" : "", "");
		if (json_is_string(lvl))
			printf("level: %s\n", json_string_value(lvl));
		if (msg)
			printf("%s\n", msg);
		printf("result: %s\n", side_path);
	}
	int rc = exit_for(res);
	json_decref(res);
	return rc;
}
