#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <sys/wait.h>

#include "config.h"
#include "config_keys.h"
#include "config_value.h"
#include "fileio.h"
#include "log.h"
#include "testdir.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	assert_int_equal(fileio_write_atomic(path, text, strlen(text), 0644), 0);
}

static void remove_file(const char *dir, const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

static const char *source_root(void)
{
	const char *root = getenv("MAI_SOURCE_ROOT");
	assert_non_null(root); /* set by tests/meson.build */
	return root;
}

/* Every error class: the one message, with file, line and column. */
static const struct {
	const char *file, *text, *message;
} bad_cases[] = {
	/* unknown key, with the closest known key */
	{ "agent.yaml", "workers: 2\nworkerz: 3\n",
	  "agent.yaml:2:1: unknown key 'workerz'; expected a key of agent.yaml: did you mean 'workers'?" },
	{ "agent.yaml", "docker:\n  sockt: /x\n",
	  "agent.yaml:2:3: unknown key 'docker.sockt'; expected a key of agent.yaml: did you mean 'docker.socket'?" },
	{ "sandbox.yaml", "trusted:\n  memroy: 1g\n",
	  "sandbox.yaml:2:3: unknown key 'trusted.memroy'; expected a key of sandbox.yaml: did you mean 'trusted.memory'?" },
	{ "agent.yaml", "docker.socket: /x\n",
	  "agent.yaml:1:1: key 'docker.socket' holds a '.'; expected nested keys, each on its own indented line" },
	/* wrong type */
	{ "agent.yaml", "workers: [1, 2]\n",
	  "agent.yaml:1:10: workers: got a list; expected a whole number from 1 to 64" },
	{ "agent.yaml", "workers:\n",
	  "agent.yaml:1:9: workers: got no value; expected a whole number from 1 to 64" },
	{ "agent.yaml", "workers: many\n",
	  "agent.yaml:1:10: workers: 'many' is not a whole number; expected a whole number from 1 to 64" },
	{ "agent.yaml", "recursive: \"true\"\n",
	  "agent.yaml:1:12: recursive: \"true\" is quoted text; expected true or false (without quotes)" },
	{ "agent.yaml", "recursive: yes\n",
	  "agent.yaml:1:12: recursive: 'yes' is not a boolean; expected true or false" },
	{ "agent.yaml", "docker: 5\n",
	  "agent.yaml:1:9: docker: got a scalar; expected a mapping with the keys socket, api_timeout, retry_backoff_max, check_interval" },
	{ "agent.yaml", "drop_mode: mounted\n",
	  "agent.yaml:1:12: drop_mode: 'mounted' is not a known choice; expected one of: watch, mount" },
	{ "agent.yaml", "drop_dir_mode: \"27x0\"\n",
	  "agent.yaml:1:16: drop_dir_mode: '27x0' is not valid; expected permissions in octal, quoted, such as \"2770\" (setgid, rwx for owner and group), or \"\" to leave them as they are" },
	{ "agent.yaml", "drop_dir_group: \"a b\"\n",
	  "agent.yaml:1:17: drop_dir_group: 'a b' is not valid; expected a group name or a numeric gid, such as mai-drop, or \"\" to leave the group as it is" },
	{ "agent.yaml", "drop_dir: drop\n",
	  "agent.yaml:1:11: drop_dir: 'drop' is a relative path; expected an absolute path" },
	{ "agent.yaml", "- drop_dir\n",
	  "agent.yaml:1:1: the file holds a list; expected a mapping of keys such as 'workers: ...'" },
	{ "sandbox.yaml", "network:\n  allowed_hosts: pypi.org\n",
	  "sandbox.yaml:2:18: network.allowed_hosts: got a scalar; expected a list of host names such as pypi.org" },
	{ "sandbox.yaml", "network:\n  allowed_hosts: [pypi.org, \"bad host\"]\n",
	  "sandbox.yaml:2:29: network.allowed_hosts: 'bad host' is not valid; expected a list of host names such as pypi.org" },
	{ "security.yaml", "rules: {}\n",
	  "security.yaml:1:8: rules: got a mapping; expected a list" },
	/* out of range */
	{ "agent.yaml", "workers: 65\n",
	  "agent.yaml:1:10: workers: '65' is out of range; expected a whole number from 1 to 64" },
	{ "agent.yaml", "workers: 0\n",
	  "agent.yaml:1:10: workers: '0' is out of range; expected a whole number from 1 to 64" },
	{ "agent.yaml", "workers: 99999999999999999999\n",
	  "agent.yaml:1:10: workers: '99999999999999999999' is out of range; expected a whole number from 1 to 64" },
	{ "agent.yaml", "max_file_size: 65m\n",
	  "agent.yaml:1:16: max_file_size: '65m' is out of range; expected a size from 1 to 64m, such as 512m, 64k, 1g or a number of bytes" },
	{ "audit.yaml", "origin: \"\"\n",
	  "audit.yaml:1:9: origin: empty; expected a non-empty UTF-8 name without spaces, '+' or control characters, such as mai-agent/audit" },
	{ "agent.yaml", "settle_delay: 2m\n",
	  "agent.yaml:1:15: settle_delay: '2m' is out of range; expected a duration from 0 to 1m, such as 500ms, 120s, 2m or 1h" },
	{ "sandbox.yaml", "untrusted:\n  cpus: 2000\n",
	  "sandbox.yaml:2:9: untrusted.cpus: '2000' is out of range; expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "security.yaml", "thresholds:\n  medium: 60\n",
	  "security.yaml:2:11: thresholds: high (50) is not above medium (60); expected medium < high < blocked" },
	{ "security.yaml", "thresholds:\n  high: 40\n  blocked: 30\n",
	  "security.yaml:3:12: thresholds: blocked (30) is not above high (40); expected medium < high < blocked" },
	{ "audit.yaml", "signing_key: /var/lib/mai/state/audit/keys/audit.key\n",
	  "audit.yaml:1:14: signing_key: /var/lib/mai/state/audit/keys/audit.key is inside log_dir /var/lib/mai/state/audit; expected a key outside the audit log directory, which is published" },
	/* the log directory itself, and the root as the log directory: every
	 * key is inside it */
	{ "audit.yaml", "signing_key: /var/lib/mai/state/audit\n",
	  "audit.yaml:1:14: signing_key: /var/lib/mai/state/audit is inside log_dir /var/lib/mai/state/audit; expected a key outside the audit log directory, which is published" },
	{ "audit.yaml", "log_dir: /\n",
	  "audit.yaml:1:10: signing_key: /var/lib/mai/keys/audit.key is inside log_dir /; expected a key outside the audit log directory, which is published" },
	{ "audit.yaml", "public_key: /var/lib/mai/keys/audit.key\n",
	  "audit.yaml:1:13: public_key: /var/lib/mai/keys/audit.key is the signing key; expected a different file for the public key" },
	/* bad size, duration, enum, and other values */
	{ "agent.yaml", "max_file_size: 1.5m\n",
	  "agent.yaml:1:16: max_file_size: '1.5m' has a fraction; expected a size from 1 to 64m, such as 512m, 64k, 1g or a number of bytes" },
	{ "agent.yaml", "max_file_size: -1\n",
	  "agent.yaml:1:16: max_file_size: '-1' is negative; expected a size from 1 to 64m, such as 512m, 64k, 1g or a number of bytes" },
	{ "agent.yaml", "max_file_size: 10x\n",
	  "agent.yaml:1:16: max_file_size: '10x' has an unknown unit; expected a size from 1 to 64m, such as 512m, 64k, 1g or a number of bytes" },
	{ "agent.yaml", "max_file_size: \"  \"\n",
	  "agent.yaml:1:16: max_file_size: '  ' is empty; expected a size from 1 to 64m, such as 512m, 64k, 1g or a number of bytes" },
	{ "agent.yaml", "max_file_size: 99999999999999999999k\n",
	  "agent.yaml:1:16: max_file_size: '99999999999999999999k' is out of range; expected a size from 1 to 64m, such as 512m, 64k, 1g or a number of bytes" },
	{ "agent.yaml", "settle_delay: 30\n",
	  "agent.yaml:1:15: settle_delay: '30' has no unit; expected a duration from 0 to 1m, such as 500ms, 120s, 2m or 1h" },
	{ "agent.yaml", "docker:\n  api_timeout: 1h30m\n",
	  "agent.yaml:2:16: docker.api_timeout: '1h30m' has an unknown unit; expected a duration from 1s to 10m, such as 500ms, 120s, 2m or 1h" },
	{ "agent.yaml", "log_level: verbose\n",
	  "agent.yaml:1:12: log_level: 'verbose' is not a known choice; expected one of: error, warn, info, debug" },
	{ "sandbox.yaml", "standard:\n  network: open\n",
	  "sandbox.yaml:2:12: standard.network: 'open' is not a known choice; expected one of: none, allowlist" },
	{ "sandbox.yaml", "trusted:\n  cpus: 1.5.0\n",
	  "sandbox.yaml:2:9: trusted.cpus: '1.5.0' is not a decimal number; expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "sandbox.yaml", "uid_range: 0-10\n",
	  "sandbox.yaml:1:12: uid_range: '0-10' is not valid; expected a range of uids FIRST-LAST with 0 < FIRST <= LAST < 2147483647, such as 1879048192-1879113727" },
	{ "sandbox.yaml", "uid_range: 2000-1000\n",
	  "sandbox.yaml:1:12: uid_range: '2000-1000' is not valid; expected a range of uids FIRST-LAST with 0 < FIRST <= LAST < 2147483647, such as 1879048192-1879113727" },
	{ "sandbox.yaml", "uid_range: 1000-2147483647\n",
	  "sandbox.yaml:1:12: uid_range: '1000-2147483647' is not valid; expected a range of uids FIRST-LAST with 0 < FIRST <= LAST < 2147483647, such as 1879048192-1879113727" },
	{ "sandbox.yaml", "pool_size: some\n",
	  "sandbox.yaml:1:12: pool_size: 'some' is not a whole number; expected auto or a whole number from 0 to 16" },
	{ "sandbox.yaml", "pool_size: 17\n",
	  "sandbox.yaml:1:12: pool_size: '17' is out of range; expected auto or a whole number from 0 to 16" },
	{ "sandbox.yaml", "image: \"\"\n",
	  "sandbox.yaml:1:8: image: empty; expected an image reference such as mai-sandbox:latest" },
	{ "sandbox.yaml", "engine:\n  host: http://docker:2375\n",
	  "sandbox.yaml:2:9: engine.host: 'http://docker:2375' is not valid; expected unix:///path/to/docker.sock or tcp://HOST:2376 (TCP only with tls), or \"\" for DOCKER_HOST or agent.yaml's docker.socket" },
	{ "sandbox.yaml", "engine:\n  host: \"tcp://a b:2376\"\n",
	  "sandbox.yaml:2:9: engine.host: 'tcp://a b:2376' is not valid; expected unix:///path/to/docker.sock or tcp://HOST:2376 (TCP only with tls), or \"\" for DOCKER_HOST or agent.yaml's docker.socket" },
	/* CPUs as Docker counts them: digits first, at most nine decimals */
	{ "sandbox.yaml", "trusted:\n  cpus: .5\n",
	  "sandbox.yaml:2:9: trusted.cpus: '.5' is not a decimal number; expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "sandbox.yaml", "trusted:\n  cpus: \"1.\"\n",
	  "sandbox.yaml:2:9: trusted.cpus: '1.' is not a decimal number; expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "sandbox.yaml", "trusted:\n  cpus: 0.0000000001\n",
	  "sandbox.yaml:2:9: trusted.cpus: '0.0000000001' has more than nine decimals (Docker counts CPUs in billionths); expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "sandbox.yaml", "trusted:\n  cpus: 0.0000000001x\n",
	  "sandbox.yaml:2:9: trusted.cpus: '0.0000000001x' is not a decimal number; expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "sandbox.yaml", "trusted:\n  cpus: 99999999\n",
	  "sandbox.yaml:2:9: trusted.cpus: '99999999' is out of range; expected a number of CPUs from 0.01 to 1024.0, such as 1.0 or 0.5" },
	{ "sandbox.yaml", "pool_size: 1-2\n",
	  "sandbox.yaml:1:12: pool_size: '1-2' is not a whole number; expected auto or a whole number from 0 to 16" },
	/* a list's items, a control character, a long value quoted back cut */
	{ "sandbox.yaml", "network:\n  allowed_hosts: [pypi.org, ~]\n",
	  "sandbox.yaml:2:29: network.allowed_hosts: item 2 is empty; expected a list of host names such as pypi.org" },
	{ "sandbox.yaml", "network:\n  allowed_hosts: [[pypi.org]]\n",
	  "sandbox.yaml:2:19: network.allowed_hosts: item 1 is a list; expected a list of host names such as pypi.org" },
	{ "sandbox.yaml", "image: \"mai\\tsandbox\"\n",
	  "sandbox.yaml:1:8: image: 'mai?sandbox' holds a control character; expected an image reference such as mai-sandbox:latest" },
	{ "agent.yaml", "drop_mode: mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n",
	  "agent.yaml:1:12: drop_mode: 'mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm...' is not a known choice; expected one of: watch, mount" },
	/* duplicate key */
	{ "agent.yaml", "workers: 2\nrecursive: true\nworkers: 3\n",
	  "agent.yaml:3:1: duplicate key 'workers' (first at line 1); expected each key once per mapping" },
	{ "sandbox.yaml", "trusted:\n  pids: 10\n  pids: 11\n",
	  "sandbox.yaml:3:3: duplicate key 'pids' (first at line 2); expected each key once per mapping" },
	/* malformed YAML */
	{ "agent.yaml", "workers: [2\n",
	  "agent.yaml:2:1: malformed YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 1); expected consistent indentation, 'key: value' pairs and balanced quotes and brackets" },
	{ "agent.yaml", "workers: 2\n\trecursive: true\n",
	  "agent.yaml:2:1: malformed YAML: found a tab character that violates indentation (while scanning a plain scalar at line 1); expected consistent indentation, 'key: value' pairs and balanced quotes and brackets" },
	{ "audit.yaml", "fsync: true\n---\nfsync: false\n",
	  "audit.yaml:2:1: a second YAML document starts here; expected one document per file (remove the '---' line)" },
};

static void test_every_error_class_gives_one_positioned_message(void **state)
{
	const char *dir = *state;

	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		_cleanup_free_ char *expected = xasprintf("%s/%s", dir, bad_cases[i].message);
		struct mai_config *cfg = (struct mai_config *)(uintptr_t)1; /* must stay untouched */
		char *err = NULL;

		write_file(dir, bad_cases[i].file, bad_cases[i].text);
		assert_int_equal(config_load(dir, &cfg, &err), -EINVAL);
		assert_ptr_equal(cfg, (struct mai_config *)(uintptr_t)1);
		assert_non_null(err);
		if (strcmp(err, expected) != 0)
			fail_msg("case %zu:\n got      '%s'\n expected '%s'", i, err, expected);
		assert_null(strchr(err, '\n'));
		free(err);
		remove_file(dir, bad_cases[i].file);
	}
}

static void test_values_land_in_the_typed_struct(void **state)
{
	const char *dir = *state;
	struct mai_config *cfg = NULL;
	char *err = NULL;

	write_file(dir, "agent.yaml", "state_dir: /srv/mai//state/\nworkers: 64\nrecursive: true\n"
		   "settle_delay: 0\nmax_file_size: 64m\nlog_level: debug\n"
		   "docker:\n  api_timeout: 2m\n");
	write_file(dir, "sandbox.yaml", "untrusted:\n  cpus: 0.25\n  memory: 1g\n  network: allowlist\n"
		   "  scale: false\nnetwork:\n  allowed_hosts: []\n");
	write_file(dir, "audit.yaml", "log_dir: ../log\nretention_age: 30d\n");
	write_file(dir, "security.yaml", "rules:\n  - id: no-eval\n    weight: 10\n");
	assert_int_equal(config_load(dir, &cfg, &err), 0);

	assert_string_equal(cfg->agent.state_dir, "/srv/mai/state");
	assert_int_equal(cfg->agent.workers, 64);
	assert_true(cfg->agent.recursive);
	assert_int_equal(cfg->agent.settle_delay_ms, 0);
	assert_int_equal(cfg->agent.max_file_size, 64 << 20);
	assert_int_equal(cfg->agent.log_level, LOG_LEVEL_DEBUG); /* same order as log.h */
	assert_int_equal(cfg->agent.docker.api_timeout_ms, 120000);
	assert_string_equal(cfg->agent.docker.socket, "/var/run/docker.sock");

	const struct config_trust_limits *u = &cfg->sandbox.levels[TRUST_UNTRUSTED];
	assert_int_equal(u->nano_cpus, 250000000);
	assert_int_equal(u->memory, 1 << 30);
	assert_int_equal(u->network, CONFIG_NETWORK_ALLOWLIST);
	assert_false(u->scale);
	assert_int_equal(u->pids, 32); /* untouched keys keep their defaults */
	assert_int_equal(cfg->sandbox.levels[TRUST_TRUSTED].memory, 512 << 20);
	assert_int_equal(cfg->sandbox.network.allowed_hosts.n, 0);
	assert_int_equal(cfg->sandbox.pool_size, CONFIG_AUTO); /* the default: sized by the sandbox */

	/* relative audit paths resolve against agent.state_dir */
	assert_string_equal(cfg->audit.log_dir, "/srv/mai/log");
	assert_string_equal(cfg->audit.public_key, "/srv/mai/log/audit.pub");
	assert_int_equal(cfg->audit.retention_age_ms, 30ULL * 86400000);

	/* the rule list is kept as written for the assessor */
	const struct yt_node *rules = cfg->security.rules;
	assert_int_equal(rules->kind, YT_SEQUENCE);
	assert_int_equal(rules->n_items, 1);
	assert_string_equal(yt_map_get(rules->items[0], "id")->value, "no-eval");
	assert_int_equal(yt_map_get(rules->items[0], "weight")->line, 3);

	/* and rendered, like every value, in the effective configuration */
	_cleanup_free_ char *text = config_render(cfg);
	assert_non_null(strstr(text, "\n  rules:\n    -\n      id: no-eval\n      weight: 10\n"
				  "  bandit_checks: []\nsandbox:\n"));
	assert_non_null(strstr(text, "\n  state_dir: \"/srv/mai/state\"\n"));
	assert_non_null(strstr(text, "\n    allowed_hosts: []\n"));
	assert_non_null(strstr(text, "\n  untrusted:\n    memory: 1g\n    cpus: 0.25\n"));
	assert_non_null(strstr(text, "\n  retention_age: 30d\n"));
	assert_non_null(strstr(text, "\n  pool_size: auto\n"));
	config_free(cfg);

	/* a number and 0 still set it; 0 turns the pool off */
	write_file(dir, "sandbox.yaml", "pool_size: 0\n");
	assert_int_equal(config_load(dir, &cfg, &err), 0);
	assert_int_equal(cfg->sandbox.pool_size, 0);
	config_free(cfg);
	write_file(dir, "sandbox.yaml", "pool_size: 3\n");
	assert_int_equal(config_load(dir, &cfg, &err), 0);
	assert_int_equal(cfg->sandbox.pool_size, 3);
	config_free(cfg);
}

/* A key beside the log directory whose name only begins like it is outside
 * it: the check compares whole path components, not a prefix. */
static void test_signing_key_beside_the_log_dir(void **state)
{
	const char *dir = *state;
	struct mai_config *cfg = NULL;
	char *err = NULL;

	write_file(dir, "audit.yaml", "log_dir: /srv/mai/audit\nsigning_key: /srv/mai/audit2/audit.key\n");
	assert_int_equal(config_load(dir, &cfg, &err), 0);
	assert_string_equal(cfg->audit.signing_key, "/srv/mai/audit2/audit.key");
	config_free(cfg);
	write_file(dir, "audit.yaml", "log_dir: /srv/mai/audit\nsigning_key: /srv/mai/audit.key\n");
	assert_int_equal(config_load(dir, &cfg, &err), 0);
	config_free(cfg);
}

static struct mai_config *load_with(const char *dir, const char *sandbox_yaml, const char *agent_yaml)
{
	struct mai_config *cfg = NULL;
	char *err = NULL;
	write_file(dir, "sandbox.yaml", sandbox_yaml);
	write_file(dir, "agent.yaml", agent_yaml);
	if (config_load(dir, &cfg, &err) < 0)
		fail_msg("%s", err);
	return cfg;
}

static char *restart_changes(const struct mai_config *a, const struct mai_config *b)
{
	json_t *keys = config_restart_changes(a, b);
	char *text = json_dumps(keys, JSON_COMPACT);
	json_decref(keys);
	return text;
}

/* A reload names the keys it cannot apply: those marked for a restart whose
 * value changed, of every type (a list by its length and by an item, a
 * path, a number, a boolean, a choice, a size, a duration), and nothing
 * when only keys a reload applies changed. */
static void test_reload_names_the_keys_that_need_a_restart(void **state)
{
	const char *dir = *state;
	struct mai_config *base = load_with(dir, "network:\n  allowed_hosts: [pypi.org, files.pythonhosted.org]\n",
					    "workers: 2\n");
	static const struct {
		const char *sandbox, *agent, *changed;
	} cases[] = {
		{ "network:\n  allowed_hosts: [pypi.org, files.pythonhosted.org]\n", "workers: 2\n", "[]" },
		{ "network:\n  allowed_hosts: [pypi.org, files.pythonhosted.org]\n",
		  "workers: 2\nlog_level: debug\nsettle_delay: 1s\n", "[]" },
		{ "network:\n  allowed_hosts: [pypi.org]\n", "workers: 2\n", "[\"sandbox.network.allowed_hosts\"]" },
		{ "network:\n  allowed_hosts: [pypi.org, example.org]\n", "workers: 2\n",
		  "[\"sandbox.network.allowed_hosts\"]" },
		{ "network:\n  allowed_hosts: [pypi.org, files.pythonhosted.org]\n", "workers: 3\n",
		  "[\"agent.workers\"]" },
		{ "network:\n  allowed_hosts: [pypi.org, files.pythonhosted.org]\n",
		  "workers: 2\ndrop_dir: /srv/other\nrecursive: true\ndrop_mode: mount\n",
		  "[\"agent.drop_dir\",\"agent.recursive\",\"agent.drop_mode\"]" },
		{ "network:\n  allowed_hosts: [pypi.org, files.pythonhosted.org]\n  install_size: 128m\n"
		  "  install_timeout: 60s\n", "workers: 2\n",
		  "[\"sandbox.network.install_timeout\",\"sandbox.network.install_size\"]" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct mai_config *next = load_with(dir, cases[i].sandbox, cases[i].agent);
		_cleanup_free_ char *got = restart_changes(base, next);
		if (strcmp(got, cases[i].changed) != 0)
			fail_msg("case %zu: got %s, expected %s", i, got, cases[i].changed);
		config_free(next);
	}
	config_free(base);
}

static char *load_render(const char *dir, char sha[65])
{
	struct mai_config *cfg = NULL;
	char *err = NULL;

	if (config_load(dir, &cfg, &err) < 0)
		fail_msg("%s", err);
	char *text = config_render(cfg);
	memcpy(sha, cfg->sha256, 65);
	config_free(cfg);
	return text;
}

static void test_shipped_files_load_and_match_the_defaults(void **state)
{
	const char *empty = *state;
	_cleanup_free_ char *shipped = xasprintf("%s/config", source_root());
	char sha1[65], sha2[65], sha_defaults[65];
	_cleanup_free_ char *a = load_render(shipped, sha1);
	_cleanup_free_ char *b = load_render(shipped, sha2);
	_cleanup_free_ char *c = load_render(empty, sha_defaults);

	assert_string_equal(a, b);
	assert_string_equal(sha1, sha2);
	assert_int_equal(strlen(sha1), 64);
	/* the shipped files spell out exactly the defaults of the table */
	assert_string_equal(a, c);
	assert_string_equal(sha1, sha_defaults);

	/* the rendering is YAML again, without duplicate keys: the table keeps
	 * the keys of one section together, as the renderer needs */
	struct yt_node *root = NULL;
	char *err = NULL;
	assert_int_equal(yt_parse_buffer("render", a, strlen(a), &root, &err), 0);
	assert_string_equal(yt_map_get(yt_map_get(yt_map_get(root, "agent"), "docker"),
				       "api_timeout")->value, "30s");
	yt_free(root);
}

static void test_shipped_files_hold_every_key(void **state)
{
	struct yt_node *trees[CONFIG_FILE_COUNT] = { 0 };
	(void)state;

	for (int f = 0; f < CONFIG_FILE_COUNT; f++) {
		_cleanup_free_ char *path = xasprintf("%s/config/%s", source_root(),
						      config_file_name((enum config_file)f));
		char *err = NULL;
		if (yt_parse_file(path, &trees[f], &err) < 0)
			fail_msg("%s", err);
	}
	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		const struct yt_node *n = trees[k->file];
		for (const char *p = k->path; n && *p;) {
			size_t len = strcspn(p, ".");
			_cleanup_free_ char *part = xstrndup(p, len);
			n = yt_map_get(n, part);
			p += len + (p[len] == '.');
		}
		if (!n)
			fail_msg("%s: key %s is missing", config_file_name(k->file), k->path);
	}
	for (int f = 0; f < CONFIG_FILE_COUNT; f++)
		yt_free(trees[f]);
}

static void test_hash_follows_values_not_comments(void **state)
{
	const char *dir = *state;
	char base[65], comment[65], reordered[65], changed[65];
	_cleanup_free_ char *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;

	write_file(dir, "agent.yaml", "workers: 4\nrecursive: true\n");
	t1 = load_render(dir, base);
	write_file(dir, "agent.yaml", "# a comment\nworkers: 4   # four\n\nrecursive: true\n");
	t2 = load_render(dir, comment);
	write_file(dir, "agent.yaml", "recursive: true\nworkers: 4\n");
	t3 = load_render(dir, reordered);
	write_file(dir, "agent.yaml", "workers: 5\nrecursive: true\n");
	t4 = load_render(dir, changed);

	assert_string_equal(base, comment);
	assert_string_equal(base, reordered);
	assert_string_not_equal(base, changed);
	assert_non_null(strstr(t4, "\n  workers: 5\n"));
}

static void test_config_dir_resolution(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *missing = xasprintf("%s/nope", dir);
	char *out = NULL, *err = NULL;

	unsetenv(CONFIG_DIR_ENV);
	assert_int_equal(config_dir_resolve(NULL, &out, &err), 0);
	assert_string_equal(out, "/etc/mai");
	free(out);
	setenv(CONFIG_DIR_ENV, dir, 1);
	assert_int_equal(config_dir_resolve(NULL, &out, &err), 0);
	assert_string_equal(out, dir);
	free(out);
	assert_int_equal(config_dir_resolve("/", &out, &err), 0); /* the option wins */
	assert_string_equal(out, "/");
	free(out);
	setenv(CONFIG_DIR_ENV, missing, 1);
	assert_int_equal(config_dir_resolve(NULL, &out, &err), -ENOENT);
	_cleanup_free_ char *expected = xasprintf("%s: configuration directory (from MAI_CONFIG_DIR): "
						  "No such file or directory; expected a directory "
						  "holding agent.yaml, security.yaml, sandbox.yaml, "
						  "audit.yaml", missing);
	assert_string_equal(err, expected);
	free(err);
	unsetenv(CONFIG_DIR_ENV);
}

/* Runs mai-agent with args; returns its exit status and its output. */
static int run_agent(const char *const *args, char **out, char **errtext)
{
	const char *agent = getenv("MAI_AGENT");
	int outp[2], errp[2], status = 0;
	size_t len = 0;

	assert_non_null(agent);
	assert_int_equal(pipe(outp), 0);
	assert_int_equal(pipe(errp), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[8] = { (char *)agent };
		for (int i = 0; args[i] && i < 6; i++)
			argv[i + 1] = (char *)args[i];
		dup2(outp[1], 1);
		dup2(errp[1], 2);
		execv(agent, argv);
		_exit(127);
	}
	close(outp[1]);
	close(errp[1]);
	/* outputs are small: read stderr after stdout without deadlock risk */
	assert_int_equal(fileio_read_fd(outp[0], 1 << 20, out, &len), 0);
	assert_int_equal(fileio_read_fd(errp[0], 1 << 20, errtext, &len), 0);
	close(outp[0]);
	close(errp[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_config_check_command(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *shipped = xasprintf("%s/config", source_root());
	char *out = NULL, *errtext = NULL, sha[65];

	/* a bad directory: exit 3, nothing on stdout, exactly one error line */
	write_file(dir, "agent.yaml", "workers: 2\nworkers: 3\n");
	write_file(dir, "sandbox.yaml", "trusted:\n  memory: lots\n");
	const char *bad[] = { "config", "check", "--config-dir", dir, NULL };
	assert_int_equal(run_agent(bad, &out, &errtext), 3);
	assert_string_equal(out, "");
	assert_int_equal(count_lines(errtext), 1);
	_cleanup_free_ char *expected = xasprintf("mai-agent: error: %s/agent.yaml:2:1: duplicate "
						  "key 'workers' (first at line 1); expected each "
						  "key once per mapping\n", dir);
	assert_string_equal(errtext, expected);
	free(out);
	free(errtext);

	/* the shipped directory: exit 0, the rendering and its hash */
	_cleanup_free_ char *text = load_render(shipped, sha);
	_cleanup_free_ char *tail = xasprintf("%ssha256: %s\n", text, sha);
	const char *good[] = { "config", "check", "--config-dir", shipped, NULL };
	assert_int_equal(run_agent(good, &out, &errtext), 0);
	assert_string_equal(errtext, "");
	assert_non_null(strstr(out, tail));
	free(out);
	free(errtext);

	const char *keys[] = { "config", "keys", NULL };
	assert_int_equal(run_agent(keys, &out, &errtext), 0);
	assert_non_null(strstr(out, "agent.yaml\n  drop_dir (path, default /var/lib/mai/drop)\n"));
	assert_non_null(strstr(out, "\n  workers (int 1..64, default 2)\n      scripts run at the same time\n"));
	assert_non_null(strstr(out, "\n  trusted.cpus (cpus 0.01..1024.0, default 1.0)\n"));
	assert_non_null(strstr(out, "\n  log_level (enum error|warn|info|debug, default info)\n"));
	free(out);
	free(errtext);

	const char *help[] = { "config", "--help", NULL };
	assert_int_equal(run_agent(help, &out, &errtext), 0);
	assert_non_null(strstr(out, "Usage: mai-agent config check [--config-dir DIR]\n"));
	free(out);
	free(errtext);

	const char *unknown[] = { "config", "chek", NULL };
	assert_int_equal(run_agent(unknown, &out, &errtext), 2);
	assert_string_equal(errtext, "mai-agent: error: config: unknown action 'chek'; expected "
			    "'check', 'keys' or 'seccomp' (see 'mai-agent config --help')\n");
	free(out);
	free(errtext);

	const char *usage[] = { "config", "check", "extra", NULL };
	assert_int_equal(run_agent(usage, &out, &errtext), 2);
	free(out);
	free(errtext);
}

/* A rule's text in security.yaml rendered (config check, the hash in the
 * audit log) so that it reads back as the same strings: quotes,
 * backslashes, line breaks, tabs and control characters escaped, an empty
 * value as null. */
static void test_render_escapes_raw_values(void **state)
{
	const char *dir = *state;
	char sha[65];

	write_file(dir, "security.yaml",
		   "rules:\n"
		   "  - id: CUSTOM1\n"
		   "    message: \"say \\\"hi\\\" \\\\ then\\tgo\\nnext\\x01\"\n"
		   "    note:\n");
	_cleanup_free_ char *text = load_render(dir, sha);
	const char *want = "message: \"say \\\"hi\\\" \\\\ then\\tgo\\nnext\\x01\"\n";
	if (!strstr(text, want) || !strstr(text, "note: ~\n"))
		fail_msg("rendered:\n%s", text);
	struct yt_node *root = NULL;
	char *err = NULL;
	assert_int_equal(yt_parse_buffer("render", text, strlen(text), &root, &err), 0);
	const struct yt_node *rules = yt_map_get(yt_map_get(root, "security"), "rules");
	assert_non_null(rules);
	assert_string_equal(yt_map_get(rules->items[0], "message")->value,
			    "say \"hi\" \\ then\tgo\nnext\x01");
	yt_free(root);
}

/* An empty file (or one of comments only) is every key's default, as a
 * missing one is. */
static void test_empty_files_are_the_defaults(void **state)
{
	const char *dir = *state;
	char sha_empty[65], sha_none[65];
	_cleanup_free_ char *none = load_render(dir, sha_none);

	write_file(dir, "agent.yaml", "");
	write_file(dir, "sandbox.yaml", "# nothing changed\n");
	_cleanup_free_ char *empty = load_render(dir, sha_empty);
	assert_string_equal(empty, none);
	assert_string_equal(sha_empty, sha_none);
}

/* config_path_normalize, lexically: what the key's place (inside or
 * outside the log directory) is decided on. */
static void test_path_normalize(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "/var/lib/mai/./audit//log/", "/var/lib/mai/audit/log" },
		{ "/var/lib/mai/keys/../audit", "/var/lib/mai/audit" },
		{ "/../../etc", "/etc" },
		{ "/", "/" },
		{ "/a/..", "/" },
		{ "a/..", "." },
		{ "./", "." },
		{ "..", ".." },
		{ "../..", "../.." },
		{ "a/../../b", "../b" },
		{ "../a/../../b/./c", "../../b/c" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = config_path_normalize(cases[i].in);
		if (strcmp(n, cases[i].out) != 0)
			fail_msg("'%s' -> '%s', expected '%s'", cases[i].in, n, cases[i].out);
		free(n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_error_class_gives_one_positioned_message,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_values_land_in_the_typed_struct,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_shipped_files_load_and_match_the_defaults,
						testdir_setup, testdir_teardown),
		cmocka_unit_test(test_shipped_files_hold_every_key),
		cmocka_unit_test_setup_teardown(test_hash_follows_values_not_comments,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_config_dir_resolution,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_config_check_command,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_signing_key_beside_the_log_dir,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_reload_names_the_keys_that_need_a_restart,
						testdir_setup, testdir_teardown),
		cmocka_unit_test(test_path_normalize),
		cmocka_unit_test_setup_teardown(test_render_escapes_raw_values, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_empty_files_are_the_defaults, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
