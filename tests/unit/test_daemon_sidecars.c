/* daemon_sidecars: the final sidecars kept in the state directory, placed
 * again when they were lost (removed, replaced, never written) and held
 * while the drop directory cannot take them. Real files in a temporary
 * directory; the placer is place_sidecar(), or a full disk (ENOSPC). And
 * place_clear_temporaries(), which the daemon runs at start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon_sidecars.h"
#include "dirwrite.h"
#include "fileio.h"
#include "macro.h"
#include "place.h"
#include "result.h"
#include "testdir.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct placer {
	struct place_dirs dirs;
	bool full;       /* the drop directory's disk is full */
	bool audit_full; /* ... for the .audit sidecars only */
	unsigned placed; /* sidecars placed */
};

static int place(void *arg, const char *script, const char *suffix, const char *text, size_t len)
{
	struct placer *p = arg;
	if (p->full || (p->audit_full && strcmp(suffix, ".audit") == 0))
		return -ENOSPC;
	_cleanup_free_ char *side = xasprintf("%.*s%s", (int)(strlen(script) - 3), script, suffix);
	_cleanup_free_ char *err = NULL;
	int r = place_sidecar(&p->dirs, side, text, len, NULL, false, &err);
	if (r >= 0)
		p->placed++;
	return r;
}

static char *result_text(const char *sha)
{
	return xasprintf("{\"file\": \"x.py\", \"sha256\": \"%s\", \"state\": \"completed\"}\n", sha);
}

static char *read_text(const char *dir, const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	char *text = NULL;
	size_t len;
	return fileio_read_path(path, 1 << 20, &text, &len) == 0 ? text : NULL;
}

struct fx {
	char *root, *drop, *unplaced;
	struct placer p;
	struct daemon_sidecars *s;
};

static void fx_init(struct fx *f, const char *root)
{
	f->root = xstrdup(root);
	f->drop = xasprintf("%s/drop", root);
	f->unplaced = xasprintf("%s/unplaced", root);
	assert_int_equal(mkdir(f->drop, 0755), 0);
	f->p = (struct placer){ .dirs = { .drop_dir = f->drop, .fallback_dir = f->unplaced } };
	f->s = daemon_sidecars_new(root, place, &f->p);
}

static void fx_clear(struct fx *f)
{
	daemon_sidecars_free(f->s);
	free(f->root);
	free(f->drop);
	free(f->unplaced);
}

/* A final answer written, then removed or changed by someone: placed again
 * from the copy, both sidecars, and only where it differs. */
static void test_restore_missing_and_changed(void **state)
{
	struct fx f;
	fx_init(&f, *state);
	_cleanup_free_ char *res = result_text(SHA_A);
	const char *audit = "{\"format\": \"mai-audit-sidecar/1\"}\n";
	assert_int_equal(place(&f.p, "x.py", ".audit", audit, strlen(audit)), PLACE_IN_DROP_DIR);
	daemon_sidecars_keep(f.s, "x.py", ".audit", audit, strlen(audit), true, PLACE_IN_DROP_DIR);
	assert_int_equal(place(&f.p, "x.py", RESULT_SUFFIX, res, strlen(res)), PLACE_IN_DROP_DIR);
	daemon_sidecars_keep(f.s, "x.py", RESULT_SUFFIX, res, strlen(res), true, PLACE_IN_DROP_DIR);

	char *what = NULL;
	int placed = -1;
	f.p.placed = 0;
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "x.py", SHA_A, &what, &placed),
			 DAEMON_SIDECARS_IN_PLACE);
	assert_null(what);
	assert_int_equal(f.p.placed, 0);

	_cleanup_free_ char *rp = xasprintf("%s/x.result.json", f.drop);
	assert_int_equal(unlink(rp), 0);
	_cleanup_free_ char *ap = xasprintf("%s/x.audit", f.drop);
	assert_int_equal(fileio_write_atomic(ap, "forged\n", 7, 0644), 0);
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "x.py", SHA_A, &what, &placed),
			 DAEMON_SIDECARS_RESTORED);
	assert_int_equal(placed, PLACE_IN_DROP_DIR);
	assert_non_null(strstr(what, "x.audit changed"));
	assert_non_null(strstr(what, "x.result.json missing"));
	free(what);
	assert_int_equal(f.p.placed, 2);
	_cleanup_free_ char *got = read_text(f.drop, "x.result.json");
	assert_string_equal(got, res);
	_cleanup_free_ char *gota = read_text(f.drop, "x.audit");
	assert_string_equal(gota, audit);

	/* Other content has no copy: it must run. */
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "x.py", SHA_B, &what, &placed),
			 DAEMON_SIDECARS_NO_COPY);
	/* Nor has a script never answered. */
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "y.py", SHA_A, &what, &placed),
			 DAEMON_SIDECARS_NO_COPY);
	fx_clear(&f);
}

/* A file that is not a regular file at the name (a FIFO): the copy goes
 * to the fallback, and the caller is told so. */
static void test_restore_refused_name(void **state)
{
	struct fx f;
	fx_init(&f, *state);
	_cleanup_free_ char *res = result_text(SHA_A);
	daemon_sidecars_keep(f.s, "x.py", RESULT_SUFFIX, res, strlen(res), true, PLACE_IN_DROP_DIR);
	_cleanup_free_ char *rp = xasprintf("%s/x.result.json", f.drop);
	assert_int_equal(mkfifo(rp, 0644), 0);
	char *what = NULL;
	int placed = -1;
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "x.py", SHA_A, &what, &placed),
			 DAEMON_SIDECARS_RESTORED);
	assert_int_equal(placed, PLACE_IN_FALLBACK);
	assert_non_null(strstr(what, "not the agent's"));
	free(what);
	_cleanup_free_ char *fb = read_text(f.unplaced, "x.result.json");
	assert_string_equal(fb, res);
	fx_clear(&f);
}

/* A result someone made longer than the agent's copy is placed again; one
 * that cannot be placed again (a full disk) is held and placed once the
 * disk takes it; a suffix the agent does not keep is not kept. */
static void test_restore_grown_and_held(void **state)
{
	struct fx f;
	fx_init(&f, *state);
	_cleanup_free_ char *res = result_text(SHA_A);
	assert_int_equal(place(&f.p, "x.py", RESULT_SUFFIX, res, strlen(res)), PLACE_IN_DROP_DIR);
	daemon_sidecars_keep(f.s, "x.py", RESULT_SUFFIX, res, strlen(res), true, PLACE_IN_DROP_DIR);
	daemon_sidecars_keep(f.s, "x.py", ".notes", "x", 1, true, PLACE_IN_DROP_DIR);
	_cleanup_free_ char *grown = xasprintf("%s{\"padding\": \"%0200d\"}\n", res, 0);
	_cleanup_free_ char *rp = xasprintf("%s/x.result.json", f.drop);
	assert_int_equal(fileio_write_atomic(rp, grown, strlen(grown), 0644), 0);

	char *what = NULL;
	int placed = -1;
	f.p.full = true;
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "x.py", SHA_A, &what, &placed),
			 DAEMON_SIDECARS_RESTORED);
	assert_true(placed < 0);
	free(what);
	_cleanup_free_ char *still = read_text(f.drop, "x.result.json");
	assert_string_equal(still, grown);
	f.p.full = false;
	assert_int_equal(daemon_sidecars_place_pending(f.s), 0);
	_cleanup_free_ char *got = read_text(f.drop, "x.result.json");
	assert_string_equal(got, res);
	_cleanup_free_ char *notes = read_text(f.drop, "x.notes");
	assert_null(notes);
	/* Held at the stop: said, and kept for the next start. */
	f.p.full = true;
	assert_int_equal(unlink(rp), 0);
	assert_int_equal(daemon_sidecars_restore(f.s, f.drop, "x.py", SHA_A, &what, &placed),
			 DAEMON_SIDECARS_RESTORED);
	free(what);
	fx_clear(&f);
}

/* A final answer that could be written nowhere is held and placed once the
 * disk takes it; a newer answer placed meanwhile ends the hold of the older
 * one, and a non-final one never is held. */
static void test_held_until_room(void **state)
{
	struct fx f;
	fx_init(&f, *state);
	_cleanup_free_ char *res = result_text(SHA_A);
	f.p.full = true;
	daemon_sidecars_keep(f.s, "x.py", RESULT_SUFFIX, res, strlen(res), true, -ENOSPC);
	daemon_sidecars_keep(f.s, "q.py", RESULT_SUFFIX, res, strlen(res), false, -ENOSPC);
	assert_int_equal(daemon_sidecars_place_pending(f.s), 1);
	_cleanup_free_ char *none = read_text(f.drop, "x.result.json");
	assert_null(none);
	f.p.full = false;
	assert_int_equal(daemon_sidecars_place_pending(f.s), 0);
	_cleanup_free_ char *got = read_text(f.drop, "x.result.json");
	assert_string_equal(got, res);
	_cleanup_free_ char *q = read_text(f.drop, "q.result.json");
	assert_null(q);

	f.p.full = true;
	daemon_sidecars_keep(f.s, "x.py", RESULT_SUFFIX, res, strlen(res), true, -ENOSPC);
	_cleanup_free_ char *newer = result_text(SHA_B);
	daemon_sidecars_keep(f.s, "x.py", RESULT_SUFFIX, newer, strlen(newer), false,
			     PLACE_IN_DROP_DIR);
	f.p.full = false;
	f.p.placed = 0;
	assert_int_equal(daemon_sidecars_place_pending(f.s), 0);
	assert_int_equal(f.p.placed, 0);
	fx_clear(&f);
}

/* A result never lands before its foo.audit: when the audit sidecar fails
 * again in a round, the result waits for the next. */
static void test_result_waits_for_its_audit(void **state)
{
	struct fx f;
	fx_init(&f, *state);
	_cleanup_free_ char *res = result_text(SHA_A);
	const char *audit = "{\"format\": \"mai-audit-sidecar/1\"}\n";
	f.p.full = true;
	daemon_sidecars_keep(f.s, "z.py", ".audit", audit, strlen(audit), true, -ENOSPC);
	daemon_sidecars_keep(f.s, "z.py", RESULT_SUFFIX, res, strlen(res), true, -ENOSPC);
	f.p.full = false;
	f.p.audit_full = true;
	assert_int_equal(daemon_sidecars_place_pending(f.s), 2);
	_cleanup_free_ char *early = read_text(f.drop, "z.result.json");
	assert_null(early);
	f.p.audit_full = false;
	assert_int_equal(daemon_sidecars_place_pending(f.s), 0);
	_cleanup_free_ char *za = read_text(f.drop, "z.audit");
	assert_string_equal(za, audit);
	fx_clear(&f);
}

/* At start, the temporaries an interrupted write left (the agent's own,
 * .mai-tmp. and 16 hex digits) are removed from the drop directory, and
 * with recursive from its subdirectories down to 16 levels; one 17 levels
 * down, a file of another name and a plain directory stay. */
static void test_clear_temporaries_at_start(void **state)
{
	const char *dir = *state;
	static const char tmp[] = DIRWRITE_TEMP_PREFIX "0123456789abcdef";
	_cleanup_free_ char *d1 = testdir_nest(dir, 1), *d16 = testdir_nest(d1, 15);
	_cleanup_free_ char *d17 = testdir_nest(d16, 1);
	const char *const at[] = { dir, d1, d16, d17 };
	_cleanup_free_ char *keep = xasprintf("%s/%s", d1, DIRWRITE_TEMP_PREFIX "x");

	for (size_t i = 0; i < ARRAY_SIZE(at); i++)
		testdir_put(at[i], tmp, "part of an answer");
	testdir_put(d1, DIRWRITE_TEMP_PREFIX "x", "not a temporary of the agent's");
	place_clear_temporaries(dir, false);
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", at[i], tmp);
		assert_int_equal(access(p, F_OK), i == 0 ? -1 : 0);
	}
	place_clear_temporaries(dir, true);
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", at[i], tmp);
		assert_int_equal(access(p, F_OK), at[i] == d17 ? 0 : -1);
	}
	assert_int_equal(access(keep, F_OK), 0);
	assert_int_equal(access(d17, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clear_temporaries_at_start, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_restore_missing_and_changed, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_restore_refused_name, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_restore_grown_and_held, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_held_until_room, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_result_waits_for_its_audit, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
