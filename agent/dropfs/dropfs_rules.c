/* What users may not do in the drop directory, refused at the call
 * (dropfs.h): the agent's sidecars are the agent's, answer files are the
 * approvers', and the rest of what the intake would refuse later (hard
 * links, devices, FIFOs, subdirectories without recursion) is refused at
 * once. Each refusal is reported: the refused callback logs it (and the
 * daemon records refused answers in the audit log). */
#include "dropfs_int.h"

#include <fcntl.h>
#include <string.h>

#include "hash.h"
#include "log.h"
#include "result.h"

const char *dropfs_refusal_why_to_string(enum dropfs_refusal_why w)
{
	switch (w) {
	case DROPFS_AGENT_FILE: return "the agent's own file (its sidecars are written only by it)";
	case DROPFS_NOT_APPROVER: return "may not answer";
	case DROPFS_NO_SUBDIRS: return "no subdirectories (agent.recursive is false)";
	case DROPFS_HARD_LINK: return "no hard links in the drop directory";
	case DROPFS_SPECIAL_FILE: return "only regular files, directories and symbolic links";
	}
	return "refused";
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool dropfs_is_sidecar(const char *leaf)
{
	size_t n = strlen(leaf);
	return ends_with(leaf, n, RESULT_SUFFIX) || ends_with(leaf, n, ".audit");
}

bool dropfs_is_agent_file(const char *leaf)
{
	if (dropfs_is_sidecar(leaf))
		return true;
	/* A temporary of the agent's atomic write: "foo.result.json.tmp.123". */
	const char *t = strstr(leaf, ".tmp.");
	if (!t || t == leaf || !t[5] || strspn(t + 5, "0123456789") != strlen(t + 5))
		return false;
	_cleanup_free_ char *stem = xstrndup(leaf, (size_t)(t - leaf));
	return dropfs_is_sidecar(stem);
}

static void report(struct dropfs *fs, struct dropfs_refusal *rf)
{
	if (fs->o.refused) {
		fs->o.refused(fs->o.arg, rf);
		return;
	}
	_cleanup_free_ char *p = names_printable(rf->rel);
	log_warnx("%s: %s refused for uid %u: %s", p, rf->op, (unsigned)rf->caller->uid,
		  dropfs_refusal_why_to_string(rf->why));
}

int dropfs_refuse(struct dropfs *fs, const char *path, enum dropfs_refusal_why why,
		  const char *op)
{
	struct drop_writer caller;
	dropfs_caller(&caller);
	struct dropfs_refusal rf = { .why = why, .rel = dropfs_rel(path), .op = op, .err = EPERM,
				     .caller = &caller };
	report(fs, &rf);
	return -EPERM;
}

/* What script (relative) is now, for the record: its content's SHA-256
 * (false when it cannot be read) and its owner (-1 when there is none). */
static bool script_now(struct dropfs *fs, const char *script, char sha[HASH_SHA256_HEX_LEN + 1],
		       long *owner)
{
	_cleanup_free_ char *path = xasprintf("/%s", script);
	struct dropfs_at at;
	struct intake_snapshot snap;
	struct intake_options io = { .max_size = atomic_load(&fs->max_size) };
	struct stat st;
	int err;

	*owner = -1;
	if (dropfs_at_open(fs, path, &at) < 0)
		return false;
	if (fstatat(at.dirfd, at.leaf, &st, AT_SYMLINK_NOFOLLOW) == 0)
		*owner = (long)st.st_uid;
	bool ok = intake_read(at.dirfd, at.leaf, &io, &snap, &err) == INTAKE_OK;
	dropfs_at_close(&at);
	if (ok)
		memcpy(sha, snap.sha256, HASH_SHA256_HEX_LEN + 1);
	intake_snapshot_clear(&snap);
	return ok;
}

/* An answer file: only who answer_allowed() lets. */
static int check_answer(struct dropfs *fs, const char *path, enum names_kind kind,
			const char *op)
{
	struct drop_writer caller;
	dropfs_caller(&caller);
	_cleanup_free_ char *script = names_script_for_answer(dropfs_rel(path));
	_cleanup_free_ char *why = NULL;
	char sha[HASH_SHA256_HEX_LEN + 1];
	const char *status = "not_approver";
	long owner;
	bool known = script_now(fs, script, sha, &owner);
	int r = 0;

	if (fs->o.answer_allowed) {
		r = fs->o.answer_allowed(fs->o.arg, &caller, script, owner, &status, &why);
	} else if (caller.uid != 0) {
		r = -EPERM;
		why = xstrdup("only root may approve or override here");
	}
	if (r == 0)
		return 0;
	struct dropfs_refusal rf = { .why = DROPFS_NOT_APPROVER, .rel = dropfs_rel(path), .op = op,
				     .err = EPERM, .caller = &caller, .kind = kind,
				     .script = script, .script_sha256 = known ? sha : NULL,
				     .script_uid = owner, .status = status, .detail = why };
	report(fs, &rf);
	return -EPERM;
}

/* Whether the caller may remove the sidecar at path (leaf) of a script that
 * no longer exists: root, the sidecar's owner (the script's writer, who
 * was given it) or an approver may; nobody while the script is there. */
static bool may_remove_orphan(struct dropfs *fs, const char *path, const char *leaf)
{
	size_t m = strlen(ends_with(leaf, strlen(leaf), RESULT_SUFFIX) ? RESULT_SUFFIX : ".audit");
	_cleanup_free_ char *script = xasprintf("%.*s.py", (int)(strlen(path) - m), path);
	struct drop_writer caller;
	struct dropfs_at at;
	struct stat st, side;
	if (dropfs_at_open(fs, script, &at) < 0)
		return false;
	bool there = fstatat(at.dirfd, at.leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
	dropfs_at_close(&at);
	if (there)
		return false;
	dropfs_caller(&caller);
	if (caller.uid == 0)
		return true;
	if (dropfs_at_open(fs, path, &at) < 0)
		return false;
	bool own = fstatat(at.dirfd, at.leaf, &side, AT_SYMLINK_NOFOLLOW) == 0 &&
		   side.st_uid == caller.uid;
	dropfs_at_close(&at);
	if (own)
		return true;
	const char *status = NULL;
	_cleanup_free_ char *why = NULL;
	return fs->o.answer_allowed &&
	       fs->o.answer_allowed(fs->o.arg, &caller, dropfs_rel(script), -1, &status, &why) == 0;
}

int dropfs_check(struct dropfs *fs, const char *path, enum dropfs_check what, const char *op)
{
	const char *rest;
	if (dropfs_wait_path(path, &rest))
		return -EPERM; /* .wait is the agent's, and read-only */
	const char *slash = strrchr(path, '/');
	const char *leaf = slash ? slash + 1 : path;
	if (dropfs_is_sidecar(leaf) && what == DROPFS_CHECK_REMOVE && strcmp(op, "unlink") == 0 &&
	    may_remove_orphan(fs, path, leaf))
		return 0;
	if (dropfs_is_agent_file(leaf)) {
		struct drop_writer caller;
		dropfs_caller(&caller);
		struct dropfs_refusal rf = { .why = DROPFS_AGENT_FILE, .rel = dropfs_rel(path),
					     .op = op, .err = EACCES, .caller = &caller };
		report(fs, &rf);
		return -EACCES;
	}
	if (what != DROPFS_CHECK_WRITE)
		return 0;
	enum names_kind kind = names_classify(leaf, NULL);
	if (kind == NAMES_APPROVE || kind == NAMES_OVERRIDE)
		return check_answer(fs, path, kind, op);
	return 0;
}
