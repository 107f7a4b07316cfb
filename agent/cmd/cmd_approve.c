/* mai-agent approve|override FILE [--reason TEXT]: write the user's answer to
 * a held script next to it, pinned to the content the script has now. */
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <string.h>

#include "approval.h"
#include "cmd.h"
#include "intake.h"
#include "log.h"
#include "names.h"

static void answer_usage(FILE *out, enum approval_kind k)
{
	if (k == APPROVAL_APPROVE)
		fprintf(out,
			"Usage: mai-agent approve FILE [--reason TEXT]\n"
			"\n"
			"Confirms a script that was assessed HIGH (state awaiting_confirmation)\n"
			"so that it runs. Writes FILE's stem + .approve next to FILE, pinned to\n"
			"the content FILE has now: if the script changes before the agent takes\n"
			"the answer, the answer is refused and you review it again.\n");
	else
		fprintf(out,
			"Usage: mai-agent override FILE --reason TEXT\n"
			"\n"
			"Lets a script that was assessed BLOCKED run anyway. The reason is\n"
			"required: it is recorded in the audit log with your uid. Writes FILE's\n"
			"stem + .override next to FILE, pinned to the content FILE has now.\n");
	fprintf(out,
		"\n"
		"  -r, --reason TEXT  why (recorded in the audit log)\n"
		"\n"
		"Exit status: 0 written; 2 bad arguments or FILE unreadable.\n");
}

static int cmd_answer(int argc, char **argv, enum approval_kind kind)
{
	static const struct option options[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *reason = NULL;
	const char *what = approval_kind_to_string(kind);
	int c;

	while ((c = getopt_long(argc, argv, "r:h", options, NULL)) != -1) {
		switch (c) {
		case 'r': reason = optarg; break;
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
	const char *dir = dirname(c1), *base = basename(c2);
	if (names_classify(base, NULL) != NAMES_SCRIPT) {
		log_errorx("%s: %s is not a script the agent runs (a .py file name); give the "
			   "script itself", what, file);
		return MAI_EXIT_USAGE;
	}
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct intake_options io = { .max_size = 64u << 20 };
	struct intake_snapshot snap;
	int e = 0;
	enum intake_status s = dfd < 0 ? INTAKE_VANISHED : intake_read(dfd, base, &io, &snap, &e);
	if (s != INTAKE_OK) {
		log_errorx("%s: cannot read %s: %s", what, file, intake_status_message(s));
		return MAI_EXIT_USAGE;
	}
	_cleanup_free_ char *err = NULL;
	int r = approval_write(dir, base, kind, snap.sha256, reason, &err);
	if (r < 0) {
		intake_snapshot_clear(&snap);
		log_errorx("%s: %s", what, err);
		return MAI_EXIT_USAGE;
	}
	_cleanup_free_ char *answer = names_sidecar(base, kind == APPROVAL_APPROVE ? ".approve"
									      : ".override");
	printf("wrote %s/%s for the content with sha256 %s; the agent takes it (in watch mode "
	       "after its settle delay) and rewrites the result\n", dir, answer, snap.sha256);
	intake_snapshot_clear(&snap);
	return MAI_EXIT_OK;
}

int cmd_approve(int argc, char **argv)
{
	return cmd_answer(argc, argv, APPROVAL_APPROVE);
}

int cmd_override(int argc, char **argv)
{
	return cmd_answer(argc, argv, APPROVAL_OVERRIDE);
}
