#include "audit_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "audit_verify.h"
#include "fileio.h"
#include "macro.h"
#include "note_sign.h"

void fixture_keys(const char *dir, const char *name, const char *origin)
{
	char *priv = NULL, *pub = NULL;
	assert_int_equal(note_keygen(origin, &priv, &pub), 0);
	char *kp = xasprintf("%s/%s.key", dir, name), *pp = xasprintf("%s/%s.pub", dir, name);
	assert_int_equal(fileio_write_atomic(kp, priv, strlen(priv), 0600), 0);
	assert_int_equal(fileio_write_atomic(pp, pub, strlen(pub), 0644), 0);
	free(kp);
	free(pp);
	free(priv);
	free(pub);
}

struct audit_options fixture_options(const char *dir, const char *name, int fsync)
{
	static char log_dir[4096], key[4096];
	snprintf(log_dir, sizeof(log_dir), "%s/audit", dir);
	snprintf(key, sizeof(key), "%s/%s.key", dir, name);
	struct audit_options o = {
		.log_dir = log_dir,
		.signing_key = key,
		.origin = "mai.test/audit",
		.fsync = fsync,
	};
	return o;
}

void fixture_append(struct audit_log *log, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		json_t *f = json_pack("{s:s, s:I, s:s}", "file", "drop/ex\u00e4mple.py", "n", (json_int_t)i,
				      "sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		assert_int_equal(audit_append(log, "job_accepted", f, NULL), 0);
		json_decref(f);
	}
}

void fixture_closed_log(const char *dir, int fsync, uint64_t n)
{
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", fsync);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	if (audit_open(&o, &log, &err) < 0)
		fail_msg("audit_open: %s", err);
	fixture_append(log, n);
	audit_close(log);
}

char *fixture_verify_line(const char *log_dir, const char *pub)
{
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
	char *line = audit_verify_report_line(&rep);
	audit_verify_report_clear(&rep);
	return line;
}

char *fixture_verify_dir(const char *dir, const char *pub_name)
{
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	_cleanup_free_ char *pub = xasprintf("%s/%s.pub", dir, pub_name);
	return fixture_verify_line(log_dir, pub);
}

char *fixture_read(const char *path, size_t *len)
{
	char *data = NULL;
	assert_int_equal(fileio_read_path(path, (size_t)1 << 30, &data, len), 0);
	return data;
}

void fixture_write(const char *path, const char *data, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, data, len), 0);
}
