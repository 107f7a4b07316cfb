/* The daemon against hostile ground (issue 15 [trust]), with the fixture of
 * daemon_fixture.h: answers checked by who wrote them (files of other uids,
 * as root), hard links never read, names others prepared at the sidecars'
 * names, names too long for their sidecars. agent_trust.sh does the same
 * with real accounts and the real agent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "approval.h"
#include "daemon_fixture.h"
#include "testdir.h"
#include "dirwrite.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "names.h"
#include "testdir.h"

/* security.yaml becomes yaml, loaded anew (before start). */
static void use_security(struct ctx *c, const char *yaml)
{
	char *err = NULL;
	put(c->conf, "security.yaml", yaml);
	config_free(c->cfg);
	if (config_load(c->conf, &c->cfg, &err) < 0)
		fail_msg("config: %s", err);
}

/* Puts name in the drop directory as the file of uid: written aside, given
 * to uid, renamed into place (so the agent never sees another owner). */
static void put_as(struct ctx *c, const char *name, const char *text, uid_t uid)
{
	_cleanup_free_ char *aside = xasprintf("%s/aside", c->root);
	_cleanup_free_ char *dst = xasprintf("%s/%s", c->drop, name);
	assert_int_equal(fileio_write_atomic(aside, text, strlen(text), 0644), 0);
	assert_int_equal(chown(aside, uid, uid), 0);
	assert_int_equal(rename(aside, dst), 0);
}

/* Waits until the sidecar's message holds what. */
static json_t *wait_message(struct ctx *c, const char *sidecar, const char *state,
			    const char *what)
{
	for (int i = 0; i < 500; i++) {
		json_t *o = wait_state(c, sidecar, state);
		if (str(o, "message") && strstr(str(o, "message"), what))
			return o;
		json_decref(o);
		sleep_ms(10);
	}
	json_t *o = wait_state(c, sidecar, state);
	fail_msg("%s: the message never said '%s': %s", sidecar, what, str(o, "message"));
	return NULL;
}

/* Answers from someone who may not give them are refused, recorded, and
 * moved aside; the approver's answer then runs the script; one's own
 * script needs allow_self_approval. Real files of other uids (as root). */
static void test_answers_checked_by_who_wrote_them(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	if (geteuid() != 0)
		test_skip("files of other uids need root");
	use_security(c, "approvers:\n  users: [root]\n  groups: []\n");
	start(c, true);
	put_as(c, "h.py", "# level: HIGH\n", 1000);
	json_t *o = wait_state(c, "h.result.json", "awaiting_confirmation");
	assert_int_equal(num(json_object_get(o, "writer"), "uid"), 1000);
	json_decref(o);

	put_as(c, "h.approve", "sha256: 0000\nplease\n", 999);
	o = wait_message(c, "h.result.json", "awaiting_confirmation", "who is not an approver");
	assert_non_null(strstr(str(o, "message"), "only user root may approve"));
	assert_non_null(strstr(str(o, "message"), "'mai-agent approve h.py'"));
	json_decref(o);
	_cleanup_free_ char *ans = xasprintf("%s/h.approve", c->drop);
	struct stat st;
	assert_int_equal(stat(ans, &st), -1); /* moved aside, kept */
	json_t *recs = records_of(c, "h.py", "approval");
	assert_int_equal(json_array_size(recs), 1);
	json_t *ra = json_array_get(recs, 0);
	assert_false(json_is_true(json_object_get(ra, "accepted")));
	assert_int_equal(num(ra, "uid"), 999);
	assert_string_equal(str(ra, "consumed"), "refused: not an approver");
	assert_string_equal(str(ra, "status"), "not_approver");
	/* Kept in the state directory (quarantine.h), out of the drop
	 * directory's writers' reach. */
	assert_non_null(strstr(str(ra, "moved_aside"), "/quarantine/h.approve."));
	assert_int_equal(str(ra, "moved_aside")[0], '/');
	_cleanup_free_ char *inplace = xasprintf("%s/.mai-quarantine", c->drop);
	assert_int_equal(stat(inplace, &st), -1);
	_cleanup_free_ char *kept = xstrdup(str(ra, "moved_aside"));
	assert_int_equal(stat(kept, &st), 0);
	assert_int_equal(st.st_uid, 999);
	assert_string_equal(str(ra, "explanation"), ""); /* never read */
	json_decref(recs);

	/* root is an approver and did not write h.py: its answer replaces the
	 * refused one and runs the script. */
	testdir_tick();
	assert_int_equal(approval_write(c->drop, "h.py", APPROVAL_APPROVE, NULL, "reviewed", &err), 0);
	o = wait_state(c, "h.result.json", "completed");
	assert_int_equal(num(json_object_get(o, "decision"), "uid"), 0);
	assert_string_equal(str(json_object_get(o, "decision"), "user"), "root");
	json_decref(o);

	/* root's own script: refused as self-approval, moved aside ... */
	put(c->drop, "s.py", "# level: HIGH\n");
	json_decref(wait_state(c, "s.result.json", "awaiting_confirmation"));
	testdir_tick();
	assert_int_equal(approval_write(c->drop, "s.py", APPROVAL_APPROVE, NULL, "mine", &err), 0);
	o = wait_message(c, "s.result.json", "awaiting_confirmation", "who also wrote s.py");
	assert_non_null(strstr(str(o, "message"), "allow_self_approval: true"));
	json_decref(o);
	recs = records_of(c, "s.py", "approval");
	assert_string_equal(str(json_array_get(recs, 0), "consumed"), "refused: self-approval");
	json_decref(recs);
	stop(c);
	/* ... and a new one taken once the setting allows it (the hold, kept
	 * in the index, survives the restart). */
	use_security(c, "allow_self_approval: true\n");
	start(c, true);
	testdir_tick();
	assert_int_equal(approval_write(c->drop, "s.py", APPROVAL_APPROVE, NULL, "mine", &err), 0);
	o = wait_state(c, "s.result.json", "completed");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"), "mine");
	json_decref(o);
}

/* ln /root/secret.py drop/x.py: rejected without reading a byte of it;
 * a hard-linked answer is refused the same way. */
static void test_hard_links_are_never_read(void **state)
{
	struct ctx *c = *state;
	const char *secret_text = "# level: LOW\nSECRET-4711\n";
	_cleanup_free_ char *secret = xasprintf("%s/secret.py", c->root);
	_cleanup_free_ char *x = xasprintf("%s/x.py", c->drop);
	assert_int_equal(fileio_write_atomic(secret, secret_text, strlen(secret_text), 0600), 0);
	start(c, true);
	assert_int_equal(link(secret, x), 0);
	json_t *o = wait_state(c, "x.result.json", "rejected");
	assert_string_equal(str(o, "reason"), "hard_link");
	assert_non_null(strstr(str(o, "message"), "more than one link (a hard link"));
	assert_null(json_object_get(o, "sha256"));
	assert_int_equal(json_array_size(json_object_get(json_object_get(o, "audit"), "seqs")), 1);
	json_decref(o);
	json_t *recs = records_of(c, "x.py", "intake_rejected");
	assert_int_equal(json_array_size(recs), 1);
	assert_string_equal(str(json_array_get(recs, 0), "reason"), "hard_link");
	assert_int_equal(num(json_array_get(recs, 0), "links"), 2);
	json_decref(recs);
	pthread_mutex_lock(&c->lock);
	char *all = json_dumps(c->records, 0);
	unsigned assessed = c->assessed;
	pthread_mutex_unlock(&c->lock);
	assert_null(strstr(all, "SECRET-4711"));
	free(all);
	assert_int_equal(assessed, 0);
	char hex[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(secret_text, strlen(secret_text), hex);
	_cleanup_free_ char *blob = xasprintf("%s/blobs/%.2s/%s", c->state, hex, hex);
	struct stat st;
	assert_int_equal(stat(blob, &st), -1); /* not in the version store */

	/* A hard-linked answer: moved aside, unread. */
	put(c->drop, "h.py", "# level: HIGH\n");
	json_decref(wait_state(c, "h.result.json", "awaiting_confirmation"));
	_cleanup_free_ char *ans = xasprintf("%s/ok", c->root);
	_cleanup_free_ char *hap = xasprintf("%s/h.approve", c->drop);
	assert_int_equal(fileio_write_atomic(ans, "fine\n", 5, 0644), 0);
	assert_int_equal(link(ans, hap), 0);
	o = wait_message(c, "h.result.json", "awaiting_confirmation", "h.approve has 2 links");
	json_decref(o);
	recs = records_of(c, "h.py", "approval");
	assert_string_equal(str(json_array_get(recs, 0), "consumed"), "refused: hard link");
	assert_string_equal(str(json_array_get(recs, 0), "explanation"), "");
	json_decref(recs);
	assert_int_equal(stat(hap, &st), -1);
	assert_int_equal(c->executed, 0);
}

/* What others put at the names the agent writes is never written through
 * nor blocked on: the answer goes to the fallback copy, and the agent goes
 * on. What was there at start is moved aside (kept, recorded) and the
 * script answered again. A crash's temporaries of the agent are cleared at
 * start. */
static void test_sidecar_names_prepared_by_others(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *fifo = xasprintf("%s/f.result.json", c->drop);
	_cleanup_free_ char *target = xasprintf("%s/target", c->root);
	_cleanup_free_ char *sym = xasprintf("%s/g.audit", c->drop);
	_cleanup_free_ char *old_tmp = xasprintf("%s/k.result.json.tmp.%ld", c->drop, (long)getpid());
	_cleanup_free_ char *left = xasprintf("%s/" DIRWRITE_TEMP_PREFIX "0123456789abcdef", c->drop);
	_cleanup_free_ char *dirname_py = xasprintf("%s/d.result.json", c->drop);
	_cleanup_free_ char *early = xasprintf("%s/e.result.json", c->drop);
	_cleanup_free_ char *early_dir = xasprintf("%s/e.approve", c->drop);
	struct stat st;

	assert_int_equal(fileio_write_atomic(target, "untouched\n", 10, 0600), 0);
	assert_int_equal(mkfifo(old_tmp, 0666), 0);
	assert_int_equal(fileio_write_atomic(left, "half", 4, 0600), 0);
	/* Planted while the agent is stopped: a forged result (a symlink) and
	 * a directory where an answer goes. */
	assert_int_equal(symlink(target, early), 0);
	assert_int_equal(mkdir(early_dir, 0755), 0);
	put(c->drop, "e.py", "# level: LOW\n");
	start(c, true);
	assert_int_equal(stat(left, &st), -1); /* cleared at start */
	json_decref(wait_state(c, "e.result.json", "completed"));
	assert_int_equal(lstat(early, &st), 0);
	assert_true(S_ISREG(st.st_mode));     /* the agent's answer, not the symlink */
	assert_int_equal(lstat(early_dir, &st), -1);
	json_t *moved = records_of(c, "e.result.json", "moved_aside");
	assert_int_equal(json_array_size(moved), 1);
	assert_string_equal(str(json_array_get(moved, 0), "script"), "e.py");
	const char *kept = str(json_array_get(moved, 0), "moved_to");
	assert_non_null(strstr(kept, "/quarantine/e.result.json."));
	assert_int_equal(lstat(kept, &st), 0);
	assert_true(S_ISLNK(st.st_mode));     /* kept as it was */
	json_decref(moved);
	moved = records_of(c, "e.approve", "moved_aside");
	assert_int_equal(json_array_size(moved), 1);
	json_decref(moved);
	/* Planted while it runs: refused at each write, the answer goes to the
	 * fallback copy. */
	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(symlink(target, sym), 0);
	assert_int_equal(mkdir(dirname_py, 0755), 0);
	put(c->drop, "f.py", "# level: LOW\n");
	put(c->drop, "g.py", "# level: LOW\n");
	put(c->drop, "k.py", "# level: LOW\n");
	put(c->drop, "d.py", "# level: LOW\n");
	json_decref(wait_state(c, "g.result.json", "completed"));
	json_decref(wait_state(c, "k.result.json", "completed"));
	_cleanup_free_ char *fb_f = xasprintf("%s/unplaced/f.result.json", c->state);
	_cleanup_free_ char *fb_g = xasprintf("%s/unplaced/g.audit", c->state);
	_cleanup_free_ char *fb_d = xasprintf("%s/unplaced/d.result.json", c->state);
	/* f.py runs beside g.py and k.py: its fallback copy is replaced at each
	 * state until the final one. */
	json_t *o = NULL;
	for (int i = 0; i < 1000; i++) {
		json_decref(o);
		o = json_load_file(fb_f, 0, NULL);
		if (o && strcmp(str(o, "state"), "completed") == 0 && stat(fb_d, &st) == 0)
			break;
		sleep_ms(10);
	}
	assert_non_null(o);
	assert_string_equal(str(o, "state"), "completed");
	json_decref(o);
	assert_int_equal(stat(fb_g, &st), 0);
	assert_int_equal(stat(fb_d, &st), 0);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(lstat(sym, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(dirname_py, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	char *text = NULL;
	size_t len;
	assert_int_equal(fileio_read_path(target, 64, &text, &len), 0);
	assert_string_equal(text, "untouched\n");
	free(text);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (geteuid() == 0) {
		/* Another user's regular file at a sidecar's name: left as it is. */
		_cleanup_free_ char *theirs = xasprintf("%s/m.result.json", c->drop);
		assert_int_equal(fileio_write_atomic(theirs, "mine\n", 5, 0644), 0);
		assert_int_equal(chown(theirs, 999, 999), 0);
		put(c->drop, "m.py", "# level: LOW\n");
		_cleanup_free_ char *fb_m = xasprintf("%s/unplaced/m.result.json", c->state);
		for (int i = 0; i < 500 && stat(fb_m, &st) < 0; i++)
			sleep_ms(10);
		assert_int_equal(stat(fb_m, &st), 0);
		assert_int_equal(stat(theirs, &st), 0);
		assert_int_equal(st.st_uid, 999);
		assert_int_equal(st.st_size, 5);
	}
	/* Once the name is free, the next answer lands there again and the
	 * fallback copy goes. */
	assert_int_equal(unlink(fifo), 0);
	put(c->drop, "f.py", "# level: LOW\nprint(2)\n");
	for (int i = 0; i < 500 && stat(fb_f, &st) == 0; i++)
		sleep_ms(10);
	assert_int_equal(stat(fb_f, &st), -1);
	json_decref(wait_state(c, "f.result.json", "completed"));
	stop(c); /* and it stops as ever */
}

/* A name whose sidecars cannot fit is answered under the short name. */
static void test_long_name_is_answered(void **state)
{
	struct ctx *c = *state;
	char name[256];
	memset(name, 'l', 248);
	strcpy(name + 248, ".py");
	start(c, true);
	/* Written in place: a temporary name would not fit either. */
	_cleanup_free_ char *path = xasprintf("%s/%s", c->drop, name);
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, "# level: LOW\n", 13), 0);
	close(steal_fd(&fd));
	_cleanup_free_ char *side = names_result_sidecar(name, ".result.json");
	json_t *o = wait_state(c, side, "rejected");
	assert_string_equal(str(o, "reason"), "name_too_long");
	assert_non_null(strstr(str(o, "message"), "Rename the script to at most 246 bytes"));
	assert_string_equal(str(o, "file"), name);
	json_decref(o);
	assert_int_equal(c->executed, 0);
}

int main(void)
{
	log_init("test_daemon_trust", LOG_LEVEL_WARN);
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_answers_checked_by_who_wrote_them),
		T(test_hard_links_are_never_read),
		T(test_sidecar_names_prepared_by_others),
		T(test_long_name_is_answered),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
