/* view_audit_tool: the audit library's own answers, for checking maiaudit
 * against them in test_maiaudit.sh and in the benchmark. Every subcommand
 * goes through the core library (agent/audit*.h), never through the mount.
 *
 *   fill LOG_DIR KEY N [DELAY_US]  grow the log (creating it) by N records, the
 *                                  last the record of the checkpoint it then
 *                                  signs; DELAY_US between appends
 *   verify LOG_DIR PUBKEY          the verify line, as maiaudit's verify
 *   verify-json LOG_DIR PUBKEY     the same as JSON
 *   dump LOG_DIR OUTDIR            every record's JSON into OUTDIR/NNNNNNNNNNNN.json
 *   get LOG_DIR SEQ | head LOG_DIR | checkpoint LOG_DIR | count LOG_DIR
 *   locate LOG_DIR SEQ             "FILE OFFSET LENGTH" of record SEQ as stored
 *   sidecar LOG_DIR KEY OUT SEQ... a .audit sidecar of those records, as the
 *                                  agent writes one for a job
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "audit.h"
#include "audit_reader.h"
#include "audit_verify.h"
#include "fileio.h"
#include "macro.h"

/* Prints and frees err (may be NULL: then strerror of r). */
static int die(const char *what, int r, char *err)
{
	fprintf(stderr, "view_audit_tool: %s: %s\n", what, err ? err : strerror(-r));
	free(err);
	return 1;
}

static int cmd_fill(const char *dir, const char *key, unsigned long long n, unsigned delay_us)
{
	struct audit_options opt = {
		.log_dir = dir,
		.signing_key = key,
		.public_key = NULL,
		.origin = "mai-test/audit",
		.fsync = 0,
		.group_commit_delay_us = 0,
		.checkpoint_interval_s = 3600,
		.diff_max = 65536,
	};
	struct audit_log *log = NULL;
	char *err = NULL;
	/* audit_open makes the signing key when the file does not exist. */
	int r = audit_open(&opt, &log, &err);
	if (r < 0)
		return die("audit_open", r, err);
	/* The log grows by n records in all: the writer records each checkpoint
	 * it signs, so the last job record is at target - 2 and the final
	 * checkpoint's record at target - 1 (closing then signs without one). */
	uint64_t target = audit_size(log) + n;
	for (unsigned long long i = 0; audit_size(log) + 1 < target; i++) {
		json_t *f = json_pack("{s:s, s:I, s:s}", "file", "bench.py", "index", (json_int_t)i,
				      "note", "a record written by view_audit_tool");
		r = audit_append(log, "job_accepted", f, NULL);
		json_decref(f);
		if (r < 0) {
			audit_close(log);
			return die("audit_append", r, NULL);
		}
		if (delay_us)
			usleep(delay_us);
		/* A signed checkpoint now and then, as the agent's timer would. */
		if (delay_us && i % 50 == 49 && audit_size(log) + 2 < target &&
		    (r = audit_checkpoint_now(log)) < 0) {
			audit_close(log);
			return die("audit_checkpoint_now", r, NULL);
		}
	}
	r = audit_checkpoint_now(log);
	audit_close(log);
	return r < 0 ? die("audit_checkpoint_now", r, NULL) : 0;
}

static int cmd_sidecar(const char *dir, const char *key, const char *out, int n, char **seqv)
{
	struct audit_options opt = {
		.log_dir = dir, .signing_key = key, .origin = "mai-test/audit",
		.checkpoint_interval_s = 3600, .diff_max = 65536,
	};
	struct audit_log *log = NULL;
	char *err = NULL;
	uint64_t seqs[64];
	int r = audit_open(&opt, &log, &err);

	if (r < 0)
		return die("audit_open", r, err);
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		seqs[i] = strtoull(seqv[i], NULL, 10);
	r = audit_sidecar_write(log, seqs, (size_t)n, out, NULL);
	audit_close(log);
	return r < 0 ? die("audit_sidecar_write", r, NULL) : 0;
}

static int cmd_verify(const char *dir, const char *pubkey, bool json)
{
	struct audit_verify_report rep;
	memset(&rep, 0, sizeof(rep));
	int r = audit_verify_log(dir, pubkey, &rep);
	if (r < 0 && !rep.reason) {
		audit_verify_report_clear(&rep);
		return die("audit_verify_log", r, NULL);
	}
	if (json) {
		json_t *j = audit_verify_report_json(&rep);
		char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", s);
		free(s);
		json_decref(j);
	} else {
		char *line = audit_verify_report_line(&rep);
		printf("%s\n", line);
		free(line);
	}
	audit_verify_report_clear(&rep);
	return 0;
}

static int open_reader(const char *dir, struct audit_reader **rd)
{
	char *err = NULL;
	int r = audit_reader_open(dir, rd, &err);
	if (r < 0)
		return die("audit_reader_open", r, err);
	return 0;
}

static int cmd_dump(struct audit_reader *rd, const char *out)
{
	uint64_t n = audit_reader_count(rd);
	for (uint64_t i = audit_reader_first(rd); i < n; i++) {
		char *rec = NULL;
		size_t len = 0;
		int r = audit_reader_get_json(rd, i, &rec, &len);
		if (r < 0)
			return die("audit_reader_get_json", r, NULL);
		_cleanup_free_ char *path = xasprintf("%s/%012llu.json", out, (unsigned long long)i);
		_cleanup_free_ char *text = xasprintf("%s\n", rec);
		free(rec);
		r = fileio_write_atomic(path, text, strlen(text), 0644);
		if (r < 0)
			return die(path, r, NULL);
	}
	return 0;
}

/* Finds the stored bytes of record seq in the segment files of the log. */
static int cmd_locate(struct audit_reader *rd, const char *dir, uint64_t seq)
{
	char *rec = NULL;
	size_t len = 0;
	int r = audit_reader_get(rd, seq, &rec, &len);
	if (r < 0)
		return die("audit_reader_get", r, NULL);
	DIR *d = opendir(dir);
	if (!d)
		return die(dir, -errno, NULL);
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name);
		_cleanup_free_ char *data = NULL;
		size_t n = 0;
		if (fileio_read_path(path, (size_t)1 << 32, &data, &n) < 0)
			continue;
		char *at = memmem(data, n, rec, len);
		if (at) {
			printf("%s %zu %zu\n", path, (size_t)(at - data), len);
			found = 1;
		}
	}
	closedir(d);
	free(rec);
	return found ? 0 : die("locate", -ENOENT, xstrdup("record not found in any file of the log"));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: view_audit_tool fill|verify|verify-json|dump|get|head|"
				"checkpoint|count|locate|sidecar LOG_DIR ...\n");
		return 2;
	}
	const char *cmd = argv[1], *dir = argv[2];
	if (strcmp(cmd, "fill") == 0 && argc >= 5)
		return cmd_fill(dir, argv[3], strtoull(argv[4], NULL, 10),
				argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 0);
	if (strcmp(cmd, "verify") == 0 && argc == 4)
		return cmd_verify(dir, argv[3], false);
	if (strcmp(cmd, "sidecar") == 0 && argc >= 6)
		return cmd_sidecar(dir, argv[3], argv[4], argc - 5, argv + 5);
	if (strcmp(cmd, "verify-json") == 0 && argc == 4)
		return cmd_verify(dir, argv[3], true);

	struct audit_reader *rd = NULL;
	if (open_reader(dir, &rd) != 0)
		return 1;
	int ret = 2;
	if (strcmp(cmd, "dump") == 0 && argc == 4) {
		ret = cmd_dump(rd, argv[3]);
	} else if (strcmp(cmd, "locate") == 0 && argc == 4) {
		ret = cmd_locate(rd, dir, strtoull(argv[3], NULL, 10));
	} else if (strcmp(cmd, "get") == 0 && argc == 4) {
		char *rec = NULL;
		size_t len = 0;
		int r = audit_reader_get_json(rd, strtoull(argv[3], NULL, 10), &rec, &len);
		ret = r < 0 ? die("get", r, NULL) : (printf("%s\n", rec), 0);
		free(rec);
	} else if (strcmp(cmd, "head") == 0) {
		char hex[65];
		int r = audit_reader_head_hex(rd, hex);
		ret = r < 0 ? die("head", r, NULL) : (printf("%s%s", hex, hex[0] ? "\n" : ""), 0);
	} else if (strcmp(cmd, "checkpoint") == 0) {
		char *text = NULL;
		int r = audit_reader_checkpoint(rd, &text);
		if (r < 0) {
			ret = die("checkpoint", r, NULL);
		} else {
			size_t n = strlen(text);
			printf("%s%s", text, n && text[n - 1] == '\n' ? "" : "\n");
			ret = 0;
		}
		free(text);
	} else if (strcmp(cmd, "count") == 0) {
		printf("%llu %llu\n", (unsigned long long)audit_reader_first(rd),
		       (unsigned long long)audit_reader_count(rd));
		ret = 0;
	}
	audit_reader_close(rd);
	if (ret == 2)
		fprintf(stderr, "view_audit_tool: unknown command or wrong arguments: %s\n", cmd);
	return ret;
}
