/* drop/quarantine.c: what someone else put at a name the agent or an
 * approver needs is moved aside, never deleted, to a place that writer
 * cannot reach: the holder (agent.state_dir/quarantine) when it is on the
 * same file system, else the directory's own .mai-quarantine, which must be
 * the agent's (0700, its owner); anything else at that name is moved out of
 * the way first and kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fileio.h"
#include "macro.h"
#include "quarantine.h"
#include "testdir.h"

/* The entries of dir whose name starts with prefix. */
static size_t count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

static void test_move_to_own_directory(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	_cleanup_free_ char *q = xasprintf("%s/%s", dir, QUARANTINE_DIR);
	char *to = NULL, *detail = NULL;
	struct stat st;

	assert_int_equal(quarantine_set_holder(NULL), 0);
	assert_string_equal(quarantine_where(), QUARANTINE_DIR);
	assert_false(quarantine_holder_reaches(dfd));
	testdir_put(dir, "x.approve", "forged");
	assert_int_equal(quarantine_move(dfd, "x.approve", &to, &detail), 0);
	assert_null(detail);
	/* <name>.<seconds>.<inode> under the agent's own 0700 directory. */
	assert_true(strncmp(to, QUARANTINE_DIR "/x.approve.", strlen(QUARANTINE_DIR "/x.approve.")) == 0);
	assert_int_equal(lstat(q, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	_cleanup_free_ char *kept = xasprintf("%s/%s", dir, to);
	assert_int_equal(lstat(kept, &st), 0);
	assert_int_equal(faccessat(dfd, "x.approve", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	free(to);
	/* Nothing at the name: -ENOENT, nothing said. */
	assert_int_equal(quarantine_move(dfd, "x.approve", &to, &detail), -ENOENT);
	assert_null(to);
	assert_null(detail);
}

/* A symlink, or a directory that is not 0700, at .mai-quarantine: moved out
 * of the way (kept, as .mai-quarantine.foreign.HEX) and a directory of the
 * agent's own made. */
static void test_foreign_quarantine_is_moved_aside(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	_cleanup_free_ char *q = xasprintf("%s/%s", dir, QUARANTINE_DIR);
	_cleanup_free_ char *elsewhere = xasprintf("%s/elsewhere", dir);
	char *to = NULL, *detail = NULL;
	struct stat st;

	assert_int_equal(quarantine_set_holder(NULL), 0);
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	assert_int_equal(symlink(elsewhere, q), 0);
	testdir_put(dir, "a.override", "forged");
	assert_int_equal(quarantine_move(dfd, "a.override", &to, &detail), 0);
	assert_int_equal(lstat(q, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(count_prefix(dir, QUARANTINE_DIR ".foreign."), 1);
	assert_int_equal(count_prefix(elsewhere, "a.override"), 0);
	free(to);

	/* Now a directory with the wrong mode. */
	assert_int_equal(chmod(q, 0755), 0);
	testdir_put(dir, "b.approve", "forged");
	assert_int_equal(quarantine_move(dfd, "b.approve", &to, &detail), 0);
	assert_int_equal(count_prefix(dir, QUARANTINE_DIR ".foreign."), 2);
	assert_int_equal(lstat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(count_prefix(q, "b.approve."), 1);
	free(to);
}

/* With a holder on the same file system, there; a holder that went away:
 * the directory's own quarantine, with a warning. */
static void test_holder(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	_cleanup_free_ char *h = xasprintf("%s/state/quarantine", dir);
	char *to = NULL, *detail = NULL;

	assert_int_equal(quarantine_set_holder(h), 0);
	assert_string_equal(quarantine_where(), h);
	assert_true(quarantine_holder_reaches(dfd));
	testdir_put(dir, "c.result.json", "forged");
	assert_int_equal(quarantine_move(dfd, "c.result.json", &to, &detail), 0);
	assert_true(strncmp(to, h, strlen(h)) == 0 && to[strlen(h)] == '/');
	assert_int_equal(count_prefix(h, "c.result.json."), 1);
	free(to);

	/* A holder that is not the agent's own (its owner changed): not used. */
	if (geteuid() == 0) {
		assert_int_equal(chown(h, 65534, 65534), 0);
		testdir_put(dir, "e.audit", "forged");
		assert_int_equal(quarantine_move(dfd, "e.audit", &to, &detail), 0);
		assert_true(strncmp(to, QUARANTINE_DIR "/", strlen(QUARANTINE_DIR "/")) == 0);
		assert_int_equal(count_prefix(h, "e.audit."), 0);
		free(to);
	}
	assert_int_equal(testdir_remove_tree(h), 0);
	testdir_put(dir, "d.audit", "forged");
	assert_int_equal(quarantine_move(dfd, "d.audit", &to, &detail), 0);
	assert_true(strncmp(to, QUARANTINE_DIR "/", strlen(QUARANTINE_DIR "/")) == 0);
	free(to);
	/* A holder that cannot be made. */
	testdir_put(dir, "file", "x");
	_cleanup_free_ char *bad = xasprintf("%s/file/quarantine", dir);
	assert_true(quarantine_set_holder(bad) < 0);
	assert_int_equal(quarantine_set_holder(NULL), 0);
}

struct seen {
	size_t n;
	char rel[4][256], script[4][256];
};

static void note(void *arg, const char *rel, const char *moved_to, const char *what,
		 const char *script)
{
	struct seen *s = arg;

	assert_true(s->n < 4);
	snprintf(s->rel[s->n], sizeof(s->rel[0]), "%s", rel);
	snprintf(s->script[s->n], sizeof(s->script[0]), "%s", script);
	s->n++;
}

/* At start: a FIFO at a sidecar's name and a directory at an answer's name
 * are moved aside, in subdirectories too with recursive; a plain answer file
 * and the agent's own sidecar stay; hidden directories are not entered. */
static void test_sweep(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *sub = xasprintf("%s/sub", dir), *hidden = xasprintf("%s/.hid", dir);
	_cleanup_free_ char *fifo = xasprintf("%s/sub/s.result.json", dir);
	_cleanup_free_ char *adir = xasprintf("%s/t.approve", dir);
	_cleanup_free_ char *hfifo = xasprintf("%s/.hid/u.audit", dir);
	struct seen seen = { 0 };

	assert_int_equal(quarantine_set_holder(NULL), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(hidden, 0755), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(mkfifo(hfifo, 0644), 0);
	assert_int_equal(mkdir(adir, 0755), 0);
	testdir_put(dir, "ok.approve", "");
	testdir_put(dir, "ok.result.json", "{}");
	testdir_put(dir, "plain.py", "print(1)\n");

	quarantine_sweep(dir, false, note, &seen);
	assert_int_equal(seen.n, 1);
	assert_string_equal(seen.rel[0], "t.approve");
	assert_string_equal(seen.script[0], "t.py");
	quarantine_sweep(dir, true, note, &seen);
	assert_int_equal(seen.n, 2);
	assert_string_equal(seen.rel[1], "sub/s.result.json");
	assert_string_equal(seen.script[1], "sub/s.py");
	assert_int_equal(access(fifo, F_OK), -1);
	assert_int_equal(count_prefix(sub, QUARANTINE_DIR), 1);
	/* What may stay stayed. */
	_cleanup_free_ char *a = xasprintf("%s/ok.approve", dir), *r = xasprintf("%s/ok.result.json", dir);
	assert_int_equal(access(a, F_OK), 0);
	assert_int_equal(access(r, F_OK), 0);
	assert_int_equal(access(hfifo, F_OK), 0);
}

/* With recursive, the sweep goes 16 directories down (as the start's
 * clearing of temporaries, place.c): a FIFO at an answer's name 16 levels
 * below the drop directory is moved aside, one 17 levels down is left. */
static void test_sweep_depth(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *d16 = testdir_nest(dir, 16), *d17 = testdir_nest(d16, 1);
	_cleanup_free_ char *f16 = xasprintf("%s/s.result.json", d16);
	_cleanup_free_ char *f17 = xasprintf("%s/t.result.json", d17);
	struct seen seen = { 0 };

	assert_int_equal(quarantine_set_holder(NULL), 0);
	assert_int_equal(mkfifo(f16, 0644), 0);
	assert_int_equal(mkfifo(f17, 0644), 0);
	quarantine_sweep(dir, true, note, &seen);
	assert_int_equal(seen.n, 1);
	assert_string_equal(seen.rel[0], "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/s.result.json");
	assert_string_equal(seen.script[0], "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/s.py");
	assert_int_equal(access(f16, F_OK), -1);
	assert_int_equal(access(f17, F_OK), 0);
}

/* What cannot be moved aside, for real: a name that is a mount point
 * (rename says EBUSY; the sweep warns and goes on), a foreign
 * .mai-quarantine that is a mount point itself (it cannot be moved out of
 * the way; the random name's source failing, getrandom before the kernel's
 * pool is ready, is fault.h's), and a directory whose disk has no inode
 * left for .mai-quarantine. Nothing is deleted. */
static void test_what_cannot_be_moved(void **state)
{
	if (geteuid() != 0)
		test_skip("mounts need root");
	const char *dir = *state;
	_cleanup_free_ char *m = xasprintf("%s/m.result.json", dir);
	_cleanup_free_ char *q = xasprintf("%s/" QUARANTINE_DIR, dir);
	_cleanup_close_ int dfd = testdir_open(dir);
	char *to = NULL, *detail = NULL;
	struct seen seen = { 0 };

	assert_int_equal(quarantine_set_holder(NULL), 0);
	assert_int_equal(mkdir(m, 0755), 0);
	assert_int_equal(mount("tmpfs", m, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k"), 0);
	int r = quarantine_move(dfd, "m.result.json", &to, &detail);
	quarantine_sweep(dir, false, note, &seen);
	assert_int_equal(umount2(m, MNT_DETACH), 0);
	assert_int_equal(r, -EBUSY);
	assert_string_equal(detail, "cannot move m.result.json aside: Device or resource busy");
	free(detail);
	assert_null(to);
	assert_int_equal(seen.n, 0);

	assert_int_equal(rmdir(q), 0);
	assert_int_equal(mkdir(q, 0755), 0);
	assert_int_equal(mount("tmpfs", q, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,mode=0755"), 0);
	testdir_put(dir, "n.approve", "");
	assert_int_equal(chmod(m, 0755), 0);
	fault_arm("getrandom", NULL, 1, 0, EAGAIN);
	r = quarantine_move(dfd, "m.result.json", &to, &detail);
	fault_clear();
	assert_int_equal(umount2(q, MNT_DETACH), 0);
	assert_int_equal(r, -EBUSY);
	assert_string_equal(detail, QUARANTINE_DIR " is not the agent's and cannot be moved: "
				    "Device or resource busy");
	free(detail);
	assert_int_equal(access(m, F_OK), 0);

	_cleanup_free_ char *small = testdir_small_fs(dir, "small", "size=64k,nr_inodes=4,mode=0755");
	if (!small)
		test_skip("cannot mount a tmpfs here");
	_cleanup_close_ int sfd = testdir_open(small);
	assert_int_equal(mkfifoat(sfd, "f.audit", 0644), 0);
	testdir_fill_inodes(small);
	r = quarantine_move(sfd, "f.audit", &to, &detail);
	assert_int_equal(r, -ENOSPC);
	assert_string_equal(detail, "cannot create " QUARANTINE_DIR ": No space left on device");
	free(detail);
	struct stat st;
	assert_int_equal(fstatat(sfd, "f.audit", &st, 0), 0);
	close(steal_fd(&sfd));
	testdir_unmount(small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_move_to_own_directory, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_foreign_quarantine_is_moved_aside, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_holder, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_sweep, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_sweep_depth, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_what_cannot_be_moved, testdir_setup, testdir_teardown),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
