/* mai-agent approve|override FILE [--reason TEXT] [--yes]: shows what the
 * agent found in a held script and what changed since the version of it
 * that ran last, asks for confirmation on a terminal, and writes the
 * answer next to it, pinned to the content the script has now. A caller
 * who may not answer (not an approver, or the script's own writer) is
 * refused before anything is written. */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <libgen.h>
#include <string.h>

#include "account.h"
#include "approval.h"
#include "approvers.h"
#include "cmd.h"
#include "config.h"
#include "follow.h"
#include "daemon.h"
#include "held.h"
#include "log.h"
#include "names.h"

#define SHOWN_FINDINGS 20

static void answer_usage(FILE *out, enum approval_kind k)
{
	if (k == APPROVAL_APPROVE)
		fprintf(out,
			"Usage: mai-agent approve FILE [--reason TEXT] [--yes] [--config-dir DIR]\n"
			"\n"
			"Confirms a script that was assessed HIGH (state awaiting_confirmation)\n"
			"so that it runs. Shows its findings and what changed since the version\n"
			"of it that ran last, asks for confirmation on a terminal, then writes\n"
			"FILE's stem + .approve next to FILE, pinned to the content FILE has now:\n"
			"if the script changes before the agent takes the answer, the answer is\n"
			"refused and you review it again.\n");
	else
		fprintf(out,
			"Usage: mai-agent override FILE --reason TEXT [--yes] [--config-dir DIR]\n"
			"\n"
			"Lets a script that was assessed BLOCKED run anyway. The reason is\n"
			"required: it is recorded in the audit log with your uid. Shows its\n"
			"findings and what changed since the version that ran last, asks for\n"
			"confirmation on a terminal, then writes FILE's stem + .override next\n"
			"to FILE, pinned to the content FILE has now.\n");
	fprintf(out,
		"\n"
		"Only an approver may answer (approvers in security.yaml), and not for a\n"
		"script they wrote themselves unless allow_self_approval is set; anyone\n"
		"else is refused here, before anything is written.\n"
		"\n"
		"  -r, --reason TEXT     why (recorded in the audit log)\n"
		"  -y, --yes             do not ask (for scripts); without it, a caller\n"
		"                        whose input is not a terminal is refused\n"
		"  -c, --config-dir DIR  configuration directory (for the approvers)\n"
		"\n"
		"Exit status: 0 written; 1 refused (not an approver, your own script, or\n"
		"not confirmed); 2 bad arguments or FILE unreadable; 3 invalid\n"
		"configuration.\n");
}

/* Whether the caller may answer for a script written by writer; if not,
 * says why (and what to do) and returns false. */
static bool caller_may_answer(const struct approvers *who, const char *what, const char *file,
			      uid_t writer, const char *config_dir)
{
	uid_t me = getuid();
	_cleanup_free_ char *label = account_user_label(me);
	_cleanup_free_ char *may = approvers_describe(who);

	switch (approvers_check(who, me, writer)) {
	case APPROVERS_OK:
		return true;
	case APPROVERS_NOT_APPROVER:
		log_errorx("%s: refused: you, %s, are not an approver: only %s may %s (approvers "
			   "in %s/security.yaml); ask one of them to run 'mai-agent %s %s'",
			   what, label, may, what, config_dir, what, file);
		return false;
	case APPROVERS_SELF:
		log_errorx("%s: refused: you, %s, wrote %s yourself, and an approval must come "
			   "from another approver (%s); on a single-user machine set "
			   "allow_self_approval: true in %s/security.yaml", what, label, file, may,
			   config_dir);
		return false;
	}
	return false;
}

/* What a person reviews before answering: the agent's view of this very
 * content and its diff against the version that ran last. */
static void show(const struct held *h, enum approval_kind kind)
{
	_cleanup_free_ char *file = names_printable(h->path);
	printf("%s\n  sha256 %s, %zu bytes, written by %s\n", file, h->sha256, h->size, h->writer);
	if (!h->result) {
		printf("  no answer of the agent for this content (%s): its findings are not "
		       "known; 'mai-agent check %s' shows them\n", h->no_result, file);
	} else {
		json_t *as = json_object_get(h->result, "assessment");
		json_t *top = held_top_findings(h, SHOWN_FINDINGS);
		size_t total = json_array_size(json_object_get(as, "findings"));
		printf("  state %s, level %s, score %.1f\n", held_state(h) ? held_state(h) : "?",
		       json_string_value(json_object_get(as, "level")) ?
			       json_string_value(json_object_get(as, "level")) : "?",
		       json_number_value(json_object_get(as, "score")));
		printf("  findings (%zu%s):\n", total, total > SHOWN_FINDINGS ? ", the most severe shown" : "");
		held_print_findings(stdout, top);
		json_decref(top);
		if (!held_is_held(h))
			printf("  note: the agent does not hold this content (state %s): an "
			       "answer changes nothing unless the script is held\n",
			       held_state(h) ? held_state(h) : "?");
		else if (kind == APPROVAL_APPROVE && strcmp(held_state(h), "blocked") == 0)
			printf("  note: it is BLOCKED: an approval does not let it run; it needs "
			       "'mai-agent override'\n");
		json_t *since = json_object_get(h->result, "since_last_run");
		const char *diff = json_string_value(json_object_get(since, "diff"));
		if (!since) {
			printf("  this name has not run before: review the whole script\n");
		} else if (!diff || !*diff) {
			printf("  unchanged since the version that ran last (sha256 %.12s)\n",
			       json_string_value(json_object_get(since, "previous_sha256")));
		} else {
			printf("  changes since the version that ran last (sha256 %.12s)%s:\n%s%s",
			       json_string_value(json_object_get(since, "previous_sha256")),
			       json_is_true(json_object_get(since, "truncated")) ? ", cut short" : "",
			       diff, diff[strlen(diff) - 1] == '\n' ? "" : "\n");
		}
	}
	fflush(stdout);
}

/* Asks on the terminal; true for y or yes. */
static bool confirmed(const char *what, const char *file)
{
	char line[64];
	printf("%s this content of %s? [y/N] ", what, file);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	line[strcspn(line, "\n")] = '\0';
	return strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0;
}

/* FILE as the agent names it: relative to the drop directory when it is
 * in it (or below it), so that its result is found; else its own
 * directory and name. *top and *rel are the caller's to free. */
static void locate(const char *drop_dir, const char *dir, const char *base, char **top, char **rel)
{
	_cleanup_free_ char *real_dir = realpath(dir, NULL), *real_drop = realpath(drop_dir, NULL);
	size_t n = real_drop ? strlen(real_drop) : 0;

	if (real_dir && real_drop && strncmp(real_dir, real_drop, n) == 0 &&
	    (real_dir[n] == '\0' || real_dir[n] == '/')) {
		*top = xstrdup(drop_dir);
		*rel = real_dir[n] ? xasprintf("%s/%s", real_dir + n + 1, base) : xstrdup(base);
		return;
	}
	*top = xstrdup(dir);
	*rel = xstrdup(base);
}

static int cmd_answer(int argc, char **argv, enum approval_kind kind)
{
	static const struct option options[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "yes", no_argument, NULL, 'y' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *reason = NULL, *dir_arg = NULL;
	const char *what = approval_kind_to_string(kind);
	bool yes = false;
	int c;

	while ((c = getopt_long(argc, argv, "r:yc:h", options, NULL)) != -1) {
		switch (c) {
		case 'r': reason = optarg; break;
		case 'y': yes = true; break;
		case 'c': dir_arg = optarg; break;
		case 'h': answer_usage(stdout, kind); return MAI_EXIT_OK;
		default: answer_usage(stderr, kind); return MAI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		log_errorx("%s: expected exactly one FILE; see 'mai-agent %s --help'", what, what);
		return MAI_EXIT_USAGE;
	}
	if (kind == APPROVAL_OVERRIDE && (!reason || !*reason || strspn(reason, " \t\n") ==
							       strlen(reason))) {
		log_errorx("override: --reason TEXT is required and must not be empty: say why "
			   "this BLOCKED script has to run");
		return MAI_EXIT_USAGE;
	}
	const char *file = argv[optind];
	_cleanup_free_ char *c1 = xstrdup(file), *c2 = xstrdup(file);
	/* Declared before the first goto: a jump past a cleanup variable's
	 * initialisation would free garbage. */
	_cleanup_free_ char *config_dir = NULL, *err = NULL, *answer = NULL;
	const char *dir = dirname(c1), *base = basename(c2);
	if (names_classify(base, NULL) != NAMES_SCRIPT) {
		log_errorx("%s: %s is not a script the agent runs (a .py file name); give the "
			   "script itself", what, file);
		return MAI_EXIT_USAGE;
	}
	struct mai_config *cfg = NULL;
	if (follow_config_load(dir_arg, &config_dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	struct approvers *who = daemon_approvers_from_config(cfg);
	struct held h;
	int rc = MAI_EXIT_USAGE;
	/* The approvers come first: a caller who is none learns it before
	 * anything else, whatever the file. */
	if (!approvers_is_approver(who, getuid())) {
		caller_may_answer(who, what, file, (uid_t)-1, config_dir);
		approvers_unref(who);
		config_free(cfg);
		return MAI_EXIT_FAILURE;
	}
	_cleanup_free_ char *top = NULL, *rel = NULL;
	locate(cfg->agent.drop_dir, dir, base, &top, &rel);
	if (held_load(top, rel, held_agent_uid(cfg), (size_t)cfg->agent.max_file_size, &h,
		      &err) < 0) {
		log_errorx("%s: %s", what, err);
		goto out;
	}
	rc = MAI_EXIT_FAILURE;
	if (!caller_may_answer(who, what, file, h.writer_uid, config_dir))
		goto out_held;
	show(&h, kind);
	if (!yes) {
		if (!isatty(STDIN_FILENO)) {
			log_errorx("%s: not confirmed: standard input is not a terminal, so there is "
				   "no one to ask; nothing was written (pass --yes to %s without "
				   "asking)", what, what);
			rc = MAI_EXIT_USAGE;
			goto out_held;
		}
		if (!confirmed(kind == APPROVAL_APPROVE ? "Approve" : "Override", base)) {
			printf("not %s: nothing was written\n",
			       kind == APPROVAL_APPROVE ? "approved" : "overridden");
			goto out_held;
		}
	}
	free(err);
	err = NULL;
	if (approval_write(dir, base, kind, h.sha256, reason, &err) < 0) {
		log_errorx("%s: %s", what, err);
		rc = MAI_EXIT_USAGE;
		goto out_held;
	}
	answer = names_sidecar(base, kind == APPROVAL_APPROVE ? ".approve" : ".override");
	printf("wrote %s/%s for the content with sha256 %s; the agent takes it (in watch mode "
	       "after its settle delay) and rewrites the result\n", dir, answer, h.sha256);
	rc = MAI_EXIT_OK;
out_held:
	held_clear(&h);
out:
	approvers_unref(who);
	config_free(cfg);
	return rc;
}

int cmd_approve(int argc, char **argv)
{
	return cmd_answer(argc, argv, APPROVAL_APPROVE);
}

int cmd_override(int argc, char **argv)
{
	return cmd_answer(argc, argv, APPROVAL_OVERRIDE);
}
