/* mai-agent verify: offline verification of an audit log or a sidecar. */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

#include "audit_verify.h"
#include "cmd.h"
#include "log.h"
#include "macro.h"

#define VERIFY_DEFAULT_STATE_DIR "/var/lib/mai/state"

static void verify_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent verify [STATE_DIR | LOG_DIR | FILE.audit] [--pubkey KEY] [--json]\n"
		"                        [--since CHECKPOINT_FILE]\n"
		"\n"
		"Verifies an audit log (every record, the hash chain and the signed\n"
		"checkpoint) or one job's .audit sidecar (its records and inclusion\n"
		"proofs), with nothing but the public key. STATE_DIR means its audit/\n"
		"subdirectory; the default is " VERIFY_DEFAULT_STATE_DIR ".\n"
		"\n"
		"Options:\n"
		"  --pubkey KEY     the public (verifier) key; required for a sidecar. For a\n"
		"                   log the default is LOG_DIR/pubkey, which proves that the\n"
		"                   log is intact but not who wrote it: pass the key you keep.\n"
		"  --since FILE     also prove that the log only grew since this signed\n"
		"                   checkpoint (a copy of LOG_DIR/checkpoint kept earlier):\n"
		"                   an RFC 9162 consistency proof from its size to the log's\n"
		"                   checkpoint is computed from the log and checked against\n"
		"                   both signed roots; the line adds 'consistency=ok from=M\n"
		"                   to=N proof=K', the JSON a \"consistency\" object\n"
		"  --json           print the report as JSON\n"
		"\n"
		"Prints one line: 'OK n=N head=HASH checkpoint=STATUS' or 'FAIL seq=N: reason'.\n"
		"Exit status: 0 intact; 1 tampered; 2 unreadable input or bad arguments.\n");
}

/* A state directory holds the log in audit/. */
static char *resolve_log_dir(const char *path)
{
	_cleanup_free_ char *sub = xasprintf("%s/audit", path);
	struct stat st;
	if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
		return steal_pointer(&sub);
	return xstrdup(path);
}

int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pubkey", required_argument, NULL, 'k' },
		{ "since", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *pubkey = NULL, *since = NULL;
	int json = 0, c;
	while ((c = getopt_long(argc, argv, "k:s:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'k': pubkey = optarg; break;
		case 's': since = optarg; break;
		case 'j': json = 1; break;
		case 'h': verify_usage(stdout); return MAI_EXIT_OK;
		default: verify_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		log_errorx("verify: give one log directory or sidecar; see 'mai-agent verify --help'");
		return MAI_EXIT_USAGE;
	}
	const char *target = optind < argc ? argv[optind] : VERIFY_DEFAULT_STATE_DIR;
	struct stat st;
	if (stat(target, &st) < 0) {
		log_errorx("verify: %s: %s", target, strerror(errno));
		return MAI_EXIT_USAGE;
	}
	struct audit_verify_report rep;
	int r;
	if (S_ISDIR(st.st_mode)) {
		_cleanup_free_ char *dir = resolve_log_dir(target);
		r = since ? audit_verify_log_since(dir, pubkey, since, &rep) : audit_verify_log(dir, pubkey, &rep);
	} else {
		if (since) {
			log_errorx("verify: --since applies to a log directory, not to the sidecar %s", target);
			return MAI_EXIT_USAGE;
		}
		r = audit_verify_sidecar(target, pubkey, &rep);
	}
	if (r < 0) {
		log_errorx("verify: %s", rep.reason ? rep.reason : strerror(-r));
		audit_verify_report_clear(&rep);
		return MAI_EXIT_USAGE;
	}
	if (json) {
		json_t *j = audit_verify_report_json(&rep);
		_cleanup_free_ char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
		json_decref(j);
		puts(s);
	} else {
		_cleanup_free_ char *line = audit_verify_report_line(&rep);
		puts(line);
	}
	int status = rep.ok ? MAI_EXIT_OK : MAI_EXIT_FAILURE;
	audit_verify_report_clear(&rep);
	return status;
}
