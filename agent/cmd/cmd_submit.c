/* mai-agent submit FILE: copy a script into the drop directory atomically,
 * wait for the agent's final answer for exactly that content, print it and
 * exit by outcome (the entry point for editor hooks). */
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "fileio.h"
#include "held.h"
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
		"content and prints a summary (or the whole result with --json).\n"
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

/* Final for submit: a final state, or an error that the agent will not get
 * past by itself in this build. */
static bool is_answer(json_t *res, const char *sha)
{
	const char *got = json_string_value(json_object_get(res, "sha256"));
	const char *state = json_string_value(json_object_get(res, "state"));
	const char *reason = json_string_value(json_object_get(res, "reason"));
	enum result_state s;

	if (!got || strcmp(got, sha) != 0 || !state || result_state_from_string(state, &s) < 0)
		return false;
	if (result_state_is_final(s))
		return true;
	return s == RESULT_ERROR && reason &&
	       (strcmp(reason, "no_assessor") == 0 || strcmp(reason, "no_sandbox") == 0);
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
	if (!names_sidecar_fits(base)) {
		log_errorx("submit: the name of %s is %zu bytes long: its answer files would not "
			   "fit in a file name, so the agent does not run it; rename it to at most "
			   "%zu bytes", file, strlen(base), (size_t)NAME_MAX - strlen(RESULT_SUFFIX) + 3);
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
	uid_t agent_uid = held_agent_uid(cfg);
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
	_cleanup_close_ int drop_fd = open(drop, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct timespec t0, now, pause = { 0, 50 * 1000000L };
	json_t *res = NULL;
	const char *why;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/* Only the agent's own answer for this content (held.h). */
		res = drop_fd < 0 ? NULL : held_read_result(drop_fd, side, base, snap.sha256,
							     agent_uid, &why);
		if (res && is_answer(res, snap.sha256))
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
