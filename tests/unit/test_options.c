/* cmd/options.c: the configuration and the assessor's metrics as the
 * modules' options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "config.h"
#include "options.h"
#include "testdir.h"

static void test_assess_bridge(void **state)
{
	struct py_metrics a = { .bytes = 10, .lines = 2, .statements = 3, .loops = 4,
				.imports = 5, .functions = 6, .max_nesting = 7 };
	struct sandbox_code_metrics m;

	sandbox_metrics_from_assess(&a, &m);
	assert_int_equal(m.bytes, 10);
	assert_int_equal(m.lines, 2);
	assert_int_equal(m.loops, 4);
	assert_int_equal(m.imports, 5);
	assert_int_equal(m.max_nesting, 7);
}

/* The shipped config/audit.yaml maps onto the writer's options. */
static void test_options_from_config(void **state)
{
	struct config_audit cfg = {
		.log_dir = "/var/lib/mai/audit", .signing_key = "/var/lib/mai/keys/audit.key", .public_key = "",
		.origin = "mai-agent/audit", .fsync = true, .group_commit_delay_ms = 2,
		.checkpoint_interval_ms = 10000, .rotate_size = 64u << 20, .rotate_age_ms = 86400000,
		.retention_age_ms = 0, .diff_max = 65536,
	};
	struct audit_options o;
	audit_options_from_config(&cfg, &o);
	assert_string_equal(o.log_dir, "/var/lib/mai/audit");
	assert_null(o.public_key);
	assert_int_equal(o.group_commit_delay_us, 2000);
	assert_int_equal(o.checkpoint_interval_s, 10);
	assert_int_equal(o.rotate_age_s, 86400);
	assert_int_equal(o.diff_max, 65536);
	assert_true(o.fsync);
}

/* The engine is reached the way the docker client would reach it: with
 * DOCKER_TLS_VERIFY set, the certificates in DOCKER_CERT_PATH, else in
 * ~/.docker; DOCKER_TLS_VERIFY=0 means none; sandbox.yaml's own tls and
 * engine.host come first. */
static void test_engine_like_the_docker_client(void **state)
{
	const char *dir = *state;
	struct mai_config *cfg = NULL;
	struct sandbox_options o;
	char *err = NULL;

	assert_int_equal(config_load(dir, &cfg, &err), 0);
	setenv("HOME", "/home/someone", 1);
	setenv("DOCKER_HOST", "tcp://docker.example:2376", 1);
	unsetenv("DOCKER_CERT_PATH");
	setenv("DOCKER_TLS_VERIFY", "1", 1);
	sandbox_options_from_config(cfg, "id", &o);
	assert_string_equal(o.engine.host, "tcp://docker.example:2376");
	assert_string_equal(o.engine.tls_ca, "/home/someone/.docker/ca.pem");
	assert_string_equal(o.engine.tls_cert, "/home/someone/.docker/cert.pem");
	assert_string_equal(o.engine.tls_key, "/home/someone/.docker/key.pem");
	setenv("DOCKER_CERT_PATH", "/etc/docker-certs", 1);
	sandbox_options_from_config(cfg, "id", &o);
	assert_string_equal(o.engine.tls_key, "/etc/docker-certs/key.pem");
	setenv("DOCKER_TLS_VERIFY", "0", 1);
	sandbox_options_from_config(cfg, "id", &o);
	assert_null(o.engine.tls_ca);
	config_free(cfg);

	testdir_put(dir, "sandbox.yaml", "engine:\n  host: tcp://mine.example:2376\n  tls:\n"
				       "    ca: /etc/mai/ca.pem\n    cert: /etc/mai/cert.pem\n"
				       "    key: /etc/mai/key.pem\n");
	assert_int_equal(config_load(dir, &cfg, &err), 0);
	setenv("DOCKER_TLS_VERIFY", "1", 1);
	sandbox_options_from_config(cfg, "id", &o);
	assert_string_equal(o.engine.host, "tcp://mine.example:2376");
	assert_string_equal(o.engine.tls_ca, "/etc/mai/ca.pem");
	config_free(cfg);
	unsetenv("DOCKER_HOST");
	unsetenv("DOCKER_TLS_VERIFY");
	unsetenv("DOCKER_CERT_PATH");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assess_bridge),
		cmocka_unit_test(test_options_from_config),
		cmocka_unit_test_setup_teardown(test_engine_like_the_docker_client, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
