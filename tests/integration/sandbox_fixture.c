#include "sandbox_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "docker_env.h"
#include "swarm_engine.h"

struct docker *docker;
struct sandbox *sb;

void test_options(struct sandbox_options *o)
{
	sandbox_options_defaults(o);
	o->socket_path = docker_env_socket();
	o->image = docker_env_image();
	o->instance_id = docker_env_instance();
	if (docker_env_swarm()) {
		static char host[512];
		const char *label = getenv("MAI_TEST_SWARM_LABEL");
		snprintf(host, sizeof(host), "unix://%s", docker_env_socket());
		o->engine.ops = &swarm_engine;
		o->engine.host = host;
		o->engine.node_label_key = label && *label ? label : NULL;
		/* Placement on a machine loaded by other work: minutes. */
		o->engine.probe_timeout_ms = 180000;
	}
	for (int t = 0; t < TRUST_COUNT; t++) {
		struct sandbox_limits *l = &o->trust[t].base;
		l->memory_bytes = 96LL << 20;
		l->nano_cpus = 1000000000;
		l->pids = 32;
		l->tmpfs_bytes = 8LL << 20;
		l->nofile = 64;
		l->fsize_bytes = 16LL << 20;
		l->timeout_ms = t == TRUST_TRUSTED ? SHORT_TIMEOUT_MS : TIMEOUT_MS;
		l->stdout_max = OUTPUT_MAX;
		l->stderr_max = OUTPUT_MAX;
	}
}

static void run_at(struct sandbox *p, enum trust t, const char *name, const char *code,
		   struct sandbox_result *r)
{
	struct sandbox_job job = {
		.job_id = name, .file_name = name, .code = (const uint8_t *)code, .len = strlen(code),
		.trust = t,
	};
	sandbox_run(p, &job, r);
	if (r->verdict == SANDBOX_VERDICT_SANDBOX_ERROR)
		print_message("%s: %s\n", name, r->message);
}

void run_in(struct sandbox *p, const char *name, const char *code, struct sandbox_result *r)
{
	run_at(p, TRUST_STANDARD, name, code, r);
}

void run(const char *name, const char *code, struct sandbox_result *r)
{
	run_at(sb, TRUST_STANDARD, name, code, r);
}

void run_short(const char *name, const char *code, struct sandbox_result *r)
{
	run_at(sb, TRUST_TRUSTED, name, code, r);
}

void expect_exit(const struct sandbox_result *r, int code)
{
	if (r->verdict != SANDBOX_VERDICT_EXITED || r->exit_code != code)
		fail_msg("verdict %s exit %d (want exited %d); message %s; stderr: %s",
			 sandbox_verdict_to_string(r->verdict), r->exit_code, code,
			 r->message ? r->message : "-", r->err.data ? r->err.data : "");
}

void wait_pool_ready(struct sandbox *p, enum trust t, unsigned n)
{
	for (int i = 0; i < 1200 && sandbox_warm_ready(p, t) < n; i++)
		usleep(50000);
	assert_int_equal(sandbox_warm_ready(p, t), n);
}

void sandbox_fixture_open(void)
{
	struct sandbox_options o;
	char *err = NULL;

	docker = docker_env_require();
	test_options(&o);
	if (sandbox_new(&o, &sb, &err) < 0) {
		fprintf(stderr, "sandbox_new: %s\n", err);
		exit(1);
	}
}

int sandbox_fixture_close(int r)
{
	sandbox_free(sb);
	if (docker_env_count_ours(docker) != 0) {
		fprintf(stderr, "FAIL: containers with this test's label are left behind\n");
		r = 1;
	}
	docker_free(docker);
	return r;
}
