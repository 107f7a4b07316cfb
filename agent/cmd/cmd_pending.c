/* mai-agent pending: every script the agent holds for a person (HIGH
 * awaiting a confirmation, BLOCKED awaiting an override), with what a
 * person needs to decide and the command that answers it. */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "account.h"
#include "approvers.h"
#include "fileio.h"
#include "cmd.h"
#include "config.h"
#include "follow.h"
#include "daemon.h"
#include "held.h"
#include "log.h"
#include "names.h"
#include "units.h"

#define TOP_FINDINGS 3
/* Deep enough for any drop directory a person keeps. */
#define MAX_DEPTH 16

static void pending_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent pending [--json] [--config-dir DIR]\n"
		"\n"
		"Lists every script in agent.drop_dir that the agent holds for a person:\n"
		"HIGH ones awaiting a confirmation and BLOCKED ones awaiting an override,\n"
		"each with its level, top findings, who wrote it (uid and name), how long\n"
		"it has waited, and the exact command that answers it. Only scripts whose\n"
		"current content has the agent's own answer are listed.\n"
		"\n"
		"  -j, --json            one JSON document: {\"drop_dir\", \"approvers\",\n"
		"                        \"you_approve\", \"pending\": [...]}\n"
		"  -c, --config-dir DIR  configuration directory\n"
		"\n"
		"Exit status: 0 listed (also when nothing is pending); 2 bad arguments or\n"
		"the drop directory unreadable; 3 invalid configuration.\n");
}

struct pending_ctx {
	const struct mai_config *cfg;
	const struct approvers *who;
	uid_t agent_uid, me;
	json_t *list;
};

/* Seconds since an RFC 3339 time of a result; -1 when unreadable. */
static long long age_of(const char *iso)
{
	struct tm tm = { 0 };
	if (!iso || !strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm))
		return -1;
	return (long long)(time(NULL) - timegm(&tm));
}

static void consider(struct pending_ctx *pc, const char *rel)
{
	struct held h;
	_cleanup_free_ char *err = NULL;

	if (held_load(pc->cfg->agent.drop_dir, rel, pc->agent_uid,
		      (size_t)pc->cfg->agent.max_file_size, &h, &err) < 0) {
		log_debug("pending: %s", err);
		return;
	}
	if (!held_is_held(&h)) {
		held_clear(&h);
		return;
	}
	json_t *times = json_object_get(h.result, "times");
	const char *since = json_string_value(json_object_get(times, "finished"));
	if (!since)
		since = json_string_value(json_object_get(times, "accepted"));
	_cleanup_free_ char *cmd = held_command(&h);
	_cleanup_free_ char *name = account_user_name(h.writer_uid);
	json_t *all = json_object_get(json_object_get(h.result, "assessment"), "findings");
	json_t *e = json_pack("{s:s, s:s, s:s, s:O?, s:s, s:{s:I, s:o}, s:s?, s:I, s:o, s:I, s:s, "
			      "s:b}",
		"file", h.rel, "path", h.path, "state", held_state(&h),
		"level", json_object_get(json_object_get(h.result, "assessment"), "level"),
		"sha256", h.sha256,
		"writer", "uid", (json_int_t)h.writer_uid, "user",
		name ? json_string(name) : json_null(),
		"since", since, "age_s", (json_int_t)age_of(since),
		"findings", held_top_findings(&h, TOP_FINDINGS),
		"findings_total", (json_int_t)json_array_size(all),
		"command", cmd,
		"you_may_answer", approvers_check(pc->who, pc->me, h.writer_uid) == APPROVERS_OK);
	json_t *why = json_object_get(json_object_get(h.result, "assessment"), "reason");
	if (e && json_is_string(why)) /* the one reason to look */
		json_object_set(e, "reason", why);
	if (e)
		json_array_append_new(pc->list, e);
	held_clear(&h);
}

/* Every script below dir (rel "" for the drop directory itself), into
 * subdirectories when agent.recursive is on, never through a symlink. */
static void walk(struct pending_ctx *pc, int dfd, const char *rel, unsigned depth)
{
	DIR *d = fileio_opendir_at(dfd);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		_cleanup_free_ char *child = *rel ? xasprintf("%s/%s", rel, de->d_name)
						  : xstrdup(de->d_name);
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			_cleanup_close_ int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
									  O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				if (pc->cfg->agent.recursive && depth < MAX_DEPTH)
					walk(pc, sub, child, depth + 1);
				continue;
			}
		}
		if (names_classify(de->d_name, NULL) == NAMES_SCRIPT)
			consider(pc, child);
	}
	closedir(d);
}

static int by_file(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "file")),
		      json_string_value(json_object_get(*(json_t *const *)b, "file")));
}

static void sort_list(json_t *list)
{
	size_t n = json_array_size(list);
	json_t **v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(list, i));
	qsort(v, n, sizeof(*v), by_file);
	json_array_clear(list);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, v[i]);
	free(v);
}

static void print_text(const struct pending_ctx *pc, const char *may)
{
	size_t n = json_array_size(pc->list), i;
	json_t *e;

	if (n == 0) {
		printf("nothing is held in %s\n", pc->cfg->agent.drop_dir);
		return;
	}
	printf("%zu script%s held in %s (approvers: %s)\n", n, n == 1 ? "" : "s",
	       pc->cfg->agent.drop_dir, may);
	json_array_foreach(pc->list, i, e) {
		json_t *w = json_object_get(e, "writer");
		const char *user = json_string_value(json_object_get(w, "user"));
		char age[UNITS_BUF_LEN];
		units_format_age(json_integer_value(json_object_get(e, "age_s")), age);
		_cleanup_free_ char *file = names_printable(json_string_value(json_object_get(e, "file")));
		printf("\n%s  %s, %s, written by %s%s(uid %lld), waiting %s\n", file,
		       json_string_value(json_object_get(e, "level")) ?
			       json_string_value(json_object_get(e, "level")) : "?",
		       json_string_value(json_object_get(e, "state")), user ? user : "",
		       user ? " " : "", (long long)json_integer_value(json_object_get(w, "uid")),
		       age);
		long long total = json_integer_value(json_object_get(e, "findings_total"));
		json_t *top = json_object_get(e, "findings");
		if (json_is_string(json_object_get(e, "reason")))
			printf("  look at %s\n", json_string_value(json_object_get(e, "reason")));
		printf("  findings (%lld%s):\n", total,
		       (size_t)total > json_array_size(top) ? ", the most severe shown" : "");
		held_print_findings(stdout, top);
		printf("  %s: %s\n",
		       json_is_true(json_object_get(e, "you_may_answer")) ? "answer with"
			       : "an approver answers with",
		       json_string_value(json_object_get(e, "command")));
	}
}

int cmd_pending(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	bool as_json = false;
	_cleanup_free_ char *dir = NULL, *err = NULL, *may = NULL;
	struct mai_config *cfg = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:jh", options, NULL)) != -1) {
		switch (c) {
		case 'c': dir_arg = optarg; break;
		case 'j': as_json = true; break;
		case 'h': pending_usage(stdout); return MAI_EXIT_OK;
		default: pending_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_errorx("pending takes no arguments ('%s'); see 'mai-agent pending --help'",
			   argv[optind]);
		return MAI_EXIT_USAGE;
	}
	if (follow_config_load(dir_arg, &dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	struct approvers *who = daemon_approvers_from_config(cfg);
	struct pending_ctx pc = { .cfg = cfg, .who = who, .agent_uid = held_agent_uid(cfg),
				  .me = getuid(), .list = json_array() };
	int rc = MAI_EXIT_OK;
	_cleanup_close_ int dfd = open(cfg->agent.drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		log_error("pending: cannot read the drop directory %s (agent.drop_dir in %s/agent.yaml; "
			  "are you in its group?)", cfg->agent.drop_dir, dir);
		rc = MAI_EXIT_USAGE;
		goto out;
	}
	walk(&pc, dfd, "", 0);
	sort_list(pc.list);
	may = approvers_describe(who);
	if (as_json) {
		json_t *doc = json_pack("{s:s, s:s, s:b, s:b, s:O}", "drop_dir", cfg->agent.drop_dir,
					"approvers", may, "allow_self_approval",
					approvers_allow_self(who), "you_approve",
					approvers_is_approver(who, pc.me), "pending", pc.list);
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", text);
		free(text);
		json_decref(doc);
	} else {
		print_text(&pc, may);
	}
out:
	json_decref(pc.list);
	approvers_unref(who);
	config_free(cfg);
	return rc;
}
