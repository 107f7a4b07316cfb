/* mai-agent submit FILE: copy a script into the drop directory atomically,
 * wait for the agent's final answer for exactly that content, print it and
 * exit by outcome (the entry point for editor hooks). */
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "follow.h"
#include "fileio.h"
#include "held.h"
#include "intake.h"
#include "log.h"
#include "names.h"
#include "place.h"
#include "result.h"

enum submit_exit {
	SUBMIT_HELD = 6,     /* awaiting_confirmation or blocked */
	SUBMIT_REJECTED = 7,
	SUBMIT_NO_ANSWER = 8, /* no final answer in time, or the agent cannot finish it */
};

static void submit_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent submit FILE [--rerun] [--timeout S] [--json] [--config-dir DIR]\n"
		"\n"
		"Copies FILE into agent.drop_dir under its own name (atomically: the agent\n"
		"never sees half of it), waits for the final result for exactly that\n"
		"content and prints a summary (or the whole result with --json). With\n"
		"drop_mode: mount it waits by opening .wait/NAME.result.json in the drop\n"
		"directory, which the agent answers once the result is final; otherwise\n"
		"it reads NAME.result.json every 50 ms.\n"
		"\n"
		"Content that was answered before is not run again: its answer is given\n"
		"(written again by the agent from its copy if it was lost), and says so.\n"
		"--rerun runs it again in a new job (it writes NAME.rerun, which the agent\n"
		"takes as that request; a hand-made NAME.rerun does the same).\n"
		"\n"
		"  -r, --rerun           run this content again, even if it has its answer\n"
		"  -t, --timeout S       give up after S seconds (default 120)\n"
		"  -j, --json            print the result document\n"
		"  -c, --config-dir DIR  configuration directory (default: the running\n"
		"                        agent's, else $MAI_CONFIG_DIR or /etc/mai)\n"
		"\n"
		"Exit status: 0 it ran and exited 0; 1 it ran and failed (non-zero exit,\n"
		"signal, timeout, a limit, sandbox error); 2 bad arguments or unreadable\n"
		"FILE; 3 invalid configuration; 6 held (awaiting_confirmation or blocked:\n"
		"see mai-agent approve|override); 7 rejected; 8 no final answer (in time,\n"
		"or the agent is not running: the message says which).\n");
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

static void on_alarm(int sig)
{
	(void)sig; /* only to interrupt the read of .wait */
}

/* Mount mode: opening drop/.wait/SIDE blocks until the script has a final
 * result for its current content (agent/dropfs/dropfs.h), so there is no
 * polling; the result itself is then read as in watch mode. true when the
 * wait ran out of time (SIGALRM at timeout_s ends it); false when it ended,
 * or the drop directory is not served by a running agent (no .wait: then
 * the caller polls). */
static bool wait_mounted(const char *drop, const char *side, long timeout_s)
{
	_cleanup_free_ char *path = xasprintf("%s/.wait/%s", drop, side);
	struct sigaction sa = { .sa_handler = on_alarm }, old;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: the alarm ends the wait */
	alarm((unsigned)timeout_s);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int e = errno;
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (fd >= 0)
		close(fd);
	return fd < 0 && e == EINTR;
}

/* Asks the agent to run base again: an empty base-without-.py.rerun in
 * drop (names.h), which it takes and removes. One already there is the
 * same request. 0 or -errno. */
static int ask_rerun(const char *drop, const char *base)
{
	_cleanup_free_ char *name = names_sidecar(base, ".rerun");
	_cleanup_free_ char *path = xasprintf("%s/%s", drop, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	return 0;
}

struct submit_wait {
	const char *drop, *state_dir, *side, *base, *sha256;
	uid_t agent_uid;
	const char *since;       /* only an answer accepted since (a rerun), or NULL */
	const char *why;         /* the last reason the drop directory gave no answer */
	bool foreign;            /* a file that is not the agent's holds the result's name */
	bool from_fallback;      /* the answer came from the agent's copy in unplaced/ */
	bool agent_down;         /* no running agent (status.json) */
};

/* The agent's copy of a result it could not place (place.h), when this
 * process may read it and it answers this content; else NULL. */
static json_t *read_unplaced(const struct submit_wait *w)
{
	_cleanup_free_ char *name = place_fallback_name(w->side);
	_cleanup_free_ char *path = xasprintf("%s/%s/%s", w->state_dir, PLACE_FALLBACK_DIR, name);
	json_t *o = json_load_file(path, 0, NULL);
	if (o && result_json_answers(o, w->sha256, NULL))
		return o;
	json_decref(o);
	return NULL;
}

/* Whether res is the answer waited for. */
static bool answers(const struct submit_wait *w, json_t *res)
{
	if (!res || !result_json_answers(res, w->sha256, NULL))
		return false;
	if (!w->since)
		return true;
	const char *accepted = json_string_value(json_object_get(json_object_get(res, "times"),
								 "accepted"));
	return accepted && strcmp(accepted, w->since) >= 0;
}

/* Polls for the answer, every 50 ms, for at most timeout_s; gives up sooner
 * when no agent runs (3 s without one). A new reference, or NULL with
 * w->why, w->foreign and w->agent_down saying why. */
static json_t *wait_answer(struct submit_wait *w, long timeout_s)
{
	_cleanup_close_ int drop_fd = open(w->drop, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct timespec t0, now, pause = { 0, 50 * 1000000L };
	long down_since = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0;; i++) {
		/* Only the agent's own answer for this content (held.h). */
		w->why = NULL;
		json_t *res = drop_fd < 0 ? NULL : held_read_result(drop_fd, w->side, w->base,
								     w->sha256, w->agent_uid, &w->why);
		if (answers(w, res))
			return res;
		json_decref(res);
		res = NULL;
		/* Another user's file at the name: the agent's answer went to its
		 * state directory, which root may read. */
		w->foreign = w->why && strstr(w->why, "not the agent's");
		if (w->foreign && (res = read_unplaced(w)) && answers(w, res)) {
			w->from_fallback = true;
			return res;
		}
		json_decref(res);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (i % 20 == 0) {
			w->agent_down = !follow_agent_running(w->state_dir);
			if (!w->agent_down)
				down_since = -1;
			else if (down_since < 0)
				down_since = now.tv_sec;
			else if (now.tv_sec - down_since >= 3)
				return NULL;
		}
		if (now.tv_sec - t0.tv_sec >= timeout_s)
			return NULL;
		nanosleep(&pause, NULL);
	}
}

/* Why there is no answer, as exactly as it is known. */
static void say_no_answer(const struct submit_wait *w, long timeout_s)
{
	if (w->agent_down)
		log_errorx("submit: no answer for %s: no agent is running for %s (its status.json "
			   "is missing or stale); start it ('mai-agent run', or ./run-agent): it "
			   "answers %s at its start", w->base, w->drop, w->base);
	else if (w->foreign)
		log_errorx("submit: no answer for %s: %s/%s is a file that is not the agent's "
			   "(another user's file, a link, or not a regular file), so the agent "
			   "cannot place its answer there; it keeps it in %s/%s/ (root) and the "
			   "audit view's runs/. Remove that file and submit again", w->base, w->drop,
			   w->side, w->state_dir, PLACE_FALLBACK_DIR);
	else
		log_errorx("submit: no final answer for %s (sha256 %.12s) within %lds: %s "
			   "('mai-agent status' shows what the agent is doing)", w->base, w->sha256,
			   timeout_s, w->why ? w->why : "the agent has not answered yet");
}

int cmd_submit(int argc, char **argv)
{
	static const struct option options[] = {
		{ "rerun", no_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	bool as_json = false, rerun = false;
	long timeout_s = 120;
	_cleanup_free_ char *dir = NULL, *err = NULL;
	struct mai_config *cfg = NULL;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "rt:jc:h", options, NULL)) != -1) {
		switch (c) {
		case 'r': rerun = true; break;
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
	if (follow_config_load(dir_arg, &dir, &cfg, &err) < 0) {
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
	_cleanup_free_ char *state_dir = xstrdup(cfg->agent.state_dir);
	bool mounted = cfg->agent.drop_mode == CONFIG_DROP_MOUNT;
	uid_t agent_uid = held_agent_uid(cfg);
	config_free(cfg);
	/* Any answer accepted from now on is for this submission; one accepted
	 * before it is an earlier answer for the same content. */
	struct timespec since;
	clock_gettime(CLOCK_REALTIME, &since);
	char since_text[40];
	result_format_time(&since, since_text, sizeof(since_text));
	int r = copy_into(drop, base, &snap);
	if (r < 0) {
		log_errorx("submit: cannot copy %s into %s: %s (agent.drop_dir in agent.yaml)",
			   file, drop, strerror(-r));
		intake_snapshot_clear(&snap);
		return MAI_EXIT_USAGE;
	}
	_cleanup_free_ char *side = names_sidecar(base, RESULT_SUFFIX);
	_cleanup_free_ char *side_path = xasprintf("%s/%s", drop, side);
	if (rerun && (r = ask_rerun(drop, base)) < 0) {
		_cleanup_free_ char *ask = names_sidecar(base, ".rerun");
		log_errorx("submit: cannot ask for a new run of %s (%s in %s): %s", base, ask, drop,
			   strerror(-r));
		intake_snapshot_clear(&snap);
		return MAI_EXIT_USAGE;
	}
	struct submit_wait w = { .drop = drop, .state_dir = state_dir, .side = side, .base = base,
				 .sha256 = snap.sha256, .agent_uid = agent_uid,
				 .since = rerun ? since_text : NULL };
	/* .wait answers as soon as this content has any final answer: an
	 * earlier one too, which a rerun must not take. */
	bool timed_out = mounted && !rerun && wait_mounted(drop, side, timeout_s);
	json_t *res = timed_out ? NULL : wait_answer(&w, timeout_s);
	if (!res) {
		say_no_answer(&w, timeout_s); /* names snap's sha256 */
		intake_snapshot_clear(&snap);
		return SUBMIT_NO_ANSWER;
	}
	intake_snapshot_clear(&snap);
	const char *accepted = json_string_value(json_object_get(json_object_get(res, "times"),
								 "accepted"));
	if (!rerun && accepted && strcmp(accepted, since_text) < 0)
		log_info("submit: %s was answered before (accepted %s) for exactly this content, so "
			 "it was not run again; 'mai-agent submit --rerun' runs it again", base,
			 accepted);
	if (w.from_fallback)
		log_warnx("submit: %s is a file that is not the agent's, so the answer below is the "
			  "agent's copy from %s/%s/; remove that file so that the next answer lands "
			  "in the drop directory", side_path, state_dir, PLACE_FALLBACK_DIR);
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
