/* The names of every value of the enums that users read: in result.json,
 * status.json, the audit log, SARIF, `verify` and the log. Each name is
 * what a reader (a person, a script parsing JSON, the schemas in
 * schemas/) relies on, so each is checked exactly, with the name a value
 * outside the enum gets. And every free or close function takes NULL, as
 * the cleanup paths that call it unconditionally expect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "approval.h"
#include "approvers.h"
#include "assess.h"
#include "audit.h"
#include "audit_event.h"
#include "audit_reader.h"
#include "blobstore.h"
#include "audit_verify.h"
#include "config_keys.h"
#include "daemon_grant.h"
#include "daemon_intake.h"
#include "daemon_job.h"
#include "daemon_resume.h"
#include "daemon_retry.h"
#include "daemon_sidecars.h"
#include "daemon_status.h"
#include "docker.h"
#include "docker_http.h"
#include "docker_error.h"
#include "dropfs.h"
#include "intake.h"
#include "jobs.h"
#include "log.h"
#include "mountutil.h"
#include "netproxy_conf.h"
#include "names.h"
#include "note_sign.h"
#include "policy.h"
#include "pyanalyze.h"
#include "sandbox_demux.h"
#include "sandbox_container.h"
#include "sandbox_result.h"
#include "sandbox_trust.h"
#include "sandbox_uids.h"
#include "strmap.h"
#include "swarm_nodes.h"
#include "units.h"
#include "writer.h"
#include "yamltree.h"

/* The names the configuration's errors, the log and the mount checks print. */
static void test_base_names(void **state)
{
	assert_string_equal(log_level_to_string(LOG_LEVEL_ERROR), "error");
	assert_string_equal(log_level_to_string(LOG_LEVEL_WARN), "warn");
	assert_string_equal(log_level_to_string(LOG_LEVEL_INFO), "info");
	assert_string_equal(log_level_to_string(LOG_LEVEL_DEBUG), "debug");
	assert_string_equal(log_level_to_string((enum log_level)999), "?");
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_READY), "ready");
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_MISSING), "missing");
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_NOT_DIR), "not a directory");
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_STALE), "stale mount");
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_MOUNTED), "already mounted");
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_ERROR), "error");
	assert_string_equal(mountutil_state_to_string((enum mountutil_state)999), "unknown");
	assert_string_equal(units_error_to_string(UNITS_OK), "is valid");
	assert_string_equal(units_error_to_string(UNITS_EMPTY), "is empty");
	assert_string_equal(units_error_to_string(UNITS_NEGATIVE), "is negative");
	assert_string_equal(units_error_to_string(UNITS_FRACTION), "has a fraction");
	assert_string_equal(units_error_to_string(UNITS_NOT_NUMBER), "does not start with a number");
	assert_string_equal(units_error_to_string(UNITS_BAD_UNIT), "has an unknown unit");
	assert_string_equal(units_error_to_string(UNITS_NO_UNIT), "has no unit");
	assert_string_equal(units_error_to_string(UNITS_OVERFLOW), "is too large");
	assert_string_equal(units_error_to_string((enum units_error)999), "is invalid");
	assert_string_equal(yt_kind_to_string(YT_SCALAR), "a scalar");
	assert_string_equal(yt_kind_to_string(YT_MAPPING), "a mapping");
	assert_string_equal(yt_kind_to_string(YT_SEQUENCE), "a list");
	assert_string_equal(yt_kind_to_string((enum yt_kind)999), "an unknown node");
}

/* The names of config/security.yaml's types and of the assessment's scales, as result.json and SARIF give them. */
static void test_config_assess_names(void **state)
{
	assert_string_equal(config_type_to_string(CONFIG_STRING), "string");
	assert_string_equal(config_type_to_string(CONFIG_PATH), "path");
	assert_string_equal(config_type_to_string(CONFIG_BOOL), "bool");
	assert_string_equal(config_type_to_string(CONFIG_INT), "int");
	assert_string_equal(config_type_to_string(CONFIG_SIZE), "size");
	assert_string_equal(config_type_to_string(CONFIG_DURATION), "duration");
	assert_string_equal(config_type_to_string(CONFIG_ENUM), "enum");
	assert_string_equal(config_type_to_string(CONFIG_CPUS), "cpus");
	assert_string_equal(config_type_to_string(CONFIG_STRING_LIST), "list of strings");
	assert_string_equal(config_type_to_string(CONFIG_RAW), "list");
	assert_string_equal(config_type_to_string((enum config_type)999), "?");
	assert_string_equal(assess_severity_to_string(ASSESS_SEV_LOW), "LOW");
	assert_string_equal(assess_severity_to_string(ASSESS_SEV_MEDIUM), "MEDIUM");
	assert_string_equal(assess_severity_to_string(ASSESS_SEV_HIGH), "HIGH");
	assert_string_equal(assess_severity_to_string(ASSESS_SEV_CRITICAL), "CRITICAL");
	assert_string_equal(assess_severity_to_string((enum assess_severity)999), "?");
	assert_null(assess_weighed_to_string(ASSESS_WEIGHED_NONE));
	assert_string_equal(assess_weighed_to_string(ASSESS_WEIGHED_EVIDENCE), "evidence");
	assert_string_equal(assess_weighed_to_string(ASSESS_WEIGHED_NATIVE), "native");
	assert_null(assess_weighed_to_string((enum assess_weighed)999));
	assert_null(assess_origin_to_string(ASSESS_ORIGIN_NONE));
	assert_string_equal(assess_origin_to_string(ASSESS_ORIGIN_LITERAL), "literal");
	assert_string_equal(assess_origin_to_string(ASSESS_ORIGIN_UNRESOLVED), "unresolved");
	assert_string_equal(assess_origin_to_string(ASSESS_ORIGIN_OUTSIDE), "outside");
	assert_null(assess_origin_to_string((enum assess_origin)999));
	assert_string_equal(pya_origin_to_string(PYA_ORIGIN_NONE), "none");
	assert_string_equal(pya_origin_to_string(PYA_ORIGIN_LITERAL), "literal");
	assert_string_equal(pya_origin_to_string(PYA_ORIGIN_UNRESOLVED), "unresolved");
	assert_string_equal(pya_origin_to_string(PYA_ORIGIN_OUTSIDE), "outside");
	assert_string_equal(pya_origin_to_string((enum pya_origin)999), "?");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_TYPED), "typed");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_DATA), "data");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_NET), "network");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_SECRET), "secret");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_HOST), "host");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_SYSTEM), "system");
	assert_string_equal(pya_taint_to_string(PYA_TAINT_CREDENTIAL), "credential");
	assert_null(pya_taint_to_string(1u << 30));
}

/* The reasons the drop directory gives in result.json and the log. */
static void test_drop_names(void **state)
{
	assert_string_equal(approvers_verdict_to_string(APPROVERS_OK), "ok");
	assert_string_equal(approvers_verdict_to_string(APPROVERS_NOT_APPROVER), "not_approver");
	assert_string_equal(approvers_verdict_to_string(APPROVERS_SELF), "self_approval");
	assert_string_equal(approvers_verdict_to_string((enum approvers_verdict)999), "unknown");
	assert_string_equal(intake_status_to_string(INTAKE_OK), "ok");
	assert_string_equal(intake_status_to_string(INTAKE_SYMLINK), "symlink");
	assert_string_equal(intake_status_to_string(INTAKE_NOT_REGULAR), "not_regular");
	assert_string_equal(intake_status_to_string(INTAKE_HARD_LINK), "hard_link");
	assert_string_equal(intake_status_to_string(INTAKE_TOO_LARGE), "too_large");
	assert_string_equal(intake_status_to_string(INTAKE_VANISHED), "vanished");
	assert_string_equal(intake_status_to_string(INTAKE_UNSTABLE), "unstable");
	assert_string_equal(intake_status_to_string(INTAKE_BAD_NAME), "bad_name");
	assert_string_equal(intake_status_to_string(INTAKE_IO_ERROR), "io_error");
	assert_string_equal(intake_status_to_string(INTAKE_INCOMPLETE), "incomplete");
	assert_string_equal(intake_status_to_string((enum intake_status)999), "unknown");
	assert_string_equal(names_kind_to_string(NAMES_SCRIPT), "script");
	assert_string_equal(names_kind_to_string(NAMES_APPROVE), "approve");
	assert_string_equal(names_kind_to_string(NAMES_OVERRIDE), "override");
	assert_string_equal(names_kind_to_string(NAMES_RERUN), "rerun");
	assert_string_equal(names_kind_to_string(NAMES_BAD_NAME), "bad_name");
	assert_string_equal(names_kind_to_string(NAMES_IGNORED), "ignored");
	assert_string_equal(names_kind_to_string((enum names_kind)999), "unknown");
	assert_string_equal(names_reason_to_string(NAMES_REASON_NONE), "not ignored");
	assert_string_equal(names_reason_to_string(NAMES_REASON_EMPTY), "empty name");
	assert_string_equal(names_reason_to_string(NAMES_REASON_HIDDEN), "hidden file");
	assert_string_equal(names_reason_to_string(NAMES_REASON_VIM_PROBE), "vim write probe (4913)");
	assert_string_equal(names_reason_to_string(NAMES_REASON_VIM_SWAP), "vim swap file");
	assert_string_equal(names_reason_to_string(NAMES_REASON_BACKUP), "editor backup file (~)");
	assert_string_equal(names_reason_to_string(NAMES_REASON_EMACS_LOCK), "emacs lock file (.#)");
	assert_string_equal(names_reason_to_string(NAMES_REASON_EMACS_AUTOSAVE),
			    "emacs auto-save file (#...#)");
	assert_string_equal(names_reason_to_string(NAMES_REASON_SIDECAR), "the agent's own sidecar");
	assert_string_equal(names_reason_to_string(NAMES_REASON_TEMPORARY),
			    "temporary file of an atomic write");
	assert_string_equal(names_reason_to_string(NAMES_REASON_NOT_PYTHON), "not a .py file");
	assert_string_equal(names_reason_to_string((enum names_reason)999), "unknown reason");
	assert_string_equal(drop_writer_from_to_string(DROP_WRITER_OWNER), "file_owner");
	assert_string_equal(drop_writer_from_to_string(DROP_WRITER_REQUEST), "request");
	assert_string_equal(drop_writer_from_to_string((enum drop_writer_from)999), "unknown");
	assert_string_equal(dropfs_refusal_why_to_string(DROPFS_AGENT_FILE),
			    "the agent's own file (its sidecars are written only by it)");
	assert_string_equal(dropfs_refusal_why_to_string(DROPFS_NOT_APPROVER), "may not answer");
	assert_string_equal(dropfs_refusal_why_to_string(DROPFS_NO_SUBDIRS),
			    "no subdirectories (agent.recursive is false)");
	assert_string_equal(dropfs_refusal_why_to_string(DROPFS_HARD_LINK),
			    "no hard links in the drop directory");
	assert_string_equal(dropfs_refusal_why_to_string(DROPFS_SPECIAL_FILE),
			    "only regular files, directories and symbolic links");
	assert_string_equal(dropfs_refusal_why_to_string((enum dropfs_refusal_why)999), "refused");
}

/* The Docker errors, the sandbox's verdicts and the ends of an attach, as status.json, result.json and the log give them. */
static void test_engine_names(void **state)
{
	assert_string_equal(docker_error_to_string(DOCKER_OK), "ok");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_UNREACHABLE), "unreachable");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_TIMEOUT), "timeout");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_PROTOCOL), "protocol");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_TOO_LARGE), "reply_too_large");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_NOT_FOUND), "not_found");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_IMAGE_NOT_FOUND), "image_not_found");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_CONFLICT), "conflict");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_BAD_REQUEST), "bad_request");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_SERVER), "server");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_RUNTIME_MISSING), "runtime_missing");
	assert_string_equal(docker_error_to_string(DOCKER_ERR_IO), "io");
	assert_string_equal(docker_error_to_string((enum docker_error)999), "unknown");
	assert_string_equal(sandbox_attach_end_to_string(SANDBOX_ATTACH_EOF), "eof");
	assert_string_equal(sandbox_attach_end_to_string(SANDBOX_ATTACH_DEADLINE), "deadline");
	assert_string_equal(sandbox_attach_end_to_string(SANDBOX_ATTACH_CANCELLED), "cancelled");
	assert_string_equal(sandbox_attach_end_to_string(SANDBOX_ATTACH_OUTPUT_LIMIT), "output_limit");
	assert_string_equal(sandbox_attach_end_to_string(SANDBOX_ATTACH_ERROR), "error");
	assert_string_equal(sandbox_attach_end_to_string(SANDBOX_ATTACH_EXITED), "exited");
	assert_string_equal(sandbox_attach_end_to_string((enum sandbox_attach_end)999), "unknown");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_EXITED), "exited");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_TIMEOUT), "timeout");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_OOM_KILLED), "oom_killed");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_OUTPUT_LIMIT), "output_limit");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_PIDS_LIMIT), "pids_limit");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_SANDBOX_ERROR), "sandbox_error");
	assert_string_equal(sandbox_verdict_to_string((enum sandbox_verdict)999), "unknown");
}

/* The audit log's health and history and the job queue's answers, as status.json, `verify` and the log give them. */
static void test_audit_daemon_names(void **state)
{
	assert_string_equal(audit_health_to_string(AUDIT_HEALTH_OK), "ok");
	assert_string_equal(audit_health_to_string(AUDIT_HEALTH_UNWRITABLE), "unwritable");
	assert_string_equal(audit_health_to_string(AUDIT_HEALTH_BROKEN), "broken");
	assert_string_equal(audit_health_to_string(AUDIT_HEALTH_TAMPERED), "tampered");
	assert_string_equal(audit_health_to_string((enum audit_health)999), "unknown");
	assert_string_equal(audit_script_history_to_string(AUDIT_SCRIPT_NEW), "new");
	assert_string_equal(audit_script_history_to_string(AUDIT_SCRIPT_UNCHANGED), "unchanged");
	assert_string_equal(audit_script_history_to_string(AUDIT_SCRIPT_CHANGED), "changed");
	assert_string_equal(audit_script_history_to_string(AUDIT_SCRIPT_UNKNOWN), "unknown");
	assert_string_equal(audit_script_history_to_string((enum audit_script_history)999), "unknown");
	assert_string_equal(audit_checkpoint_status_to_string(AUDIT_CKPT_OK), "ok");
	assert_string_equal(audit_checkpoint_status_to_string(AUDIT_CKPT_MISSING), "missing");
	assert_string_equal(audit_checkpoint_status_to_string(AUDIT_CKPT_BAD_SIGNATURE),
			    "bad-signature");
	assert_string_equal(audit_checkpoint_status_to_string(AUDIT_CKPT_MISMATCH), "mismatch");
	assert_string_equal(audit_checkpoint_status_to_string(AUDIT_CKPT_STALE), "stale");
	assert_string_equal(audit_checkpoint_status_to_string((enum audit_checkpoint_status)999), "unknown");
	assert_string_equal(jobs_submit_result_to_string(JOBS_QUEUED), "queued");
	assert_string_equal(jobs_submit_result_to_string(JOBS_REPLACED), "replaced");
	assert_string_equal(jobs_submit_result_to_string(JOBS_AFTER_RUNNING), "after_running");
	assert_string_equal(jobs_submit_result_to_string(JOBS_DUPLICATE), "duplicate");
	assert_string_equal(jobs_submit_result_to_string(JOBS_ALREADY_FINAL), "already_final");
	assert_string_equal(jobs_submit_result_to_string(JOBS_STOPPED), "stopped");
	assert_string_equal(jobs_submit_result_to_string(JOBS_OVER_CAP), "over_cap");
	assert_string_equal(jobs_submit_result_to_string((enum jobs_submit_result)999), "unknown");
	assert_string_equal(policy_action_to_string(POLICY_RUN), "run");
	assert_string_equal(policy_action_to_string(POLICY_HOLD), "hold");
	assert_string_equal(policy_action_to_string(POLICY_BLOCK), "block");
	assert_string_equal(policy_action_to_string(POLICY_REJECT), "reject");
	assert_string_equal(policy_action_to_string((enum policy_action)999), "unknown");
}

/* Every free, close and clear function of a public type takes NULL (or an
 * empty value) and does nothing: error paths free what they may not have
 * made. */
static void test_free_null(void **state)
{
	struct intake_snapshot snap = { 0 };
	struct approval answer = { 0 };

	audit_close(NULL);
	audit_reader_close(NULL);
	blobstore_free(NULL);
	note_verifier_free(NULL);
	strmap_free(NULL);
	yt_free(NULL);
	daemon_grants_free(NULL);
	daemon_intake_free(NULL);
	daemon_job_free(NULL);
	daemon_resumes_free(NULL);
	daemon_retries_free(NULL);
	daemon_sidecars_free(NULL);
	daemon_status_free(NULL);
	jobs_free(NULL);
	docker_free(NULL);
	docker_stream_close(NULL);
	sandbox_uids_free(NULL);
	sandbox_trust_free(NULL);
	swarm_nodes_free(NULL);
	sandbox_containers_free(NULL);
	intake_snapshot_clear(NULL);
	intake_snapshot_clear(&snap);
	approval_clear(NULL);
	approval_clear(&answer);
	sandbox_pip_free(NULL);
	daemon_intake_item_clear(NULL);
	/* a container that never got an id gives no uid back */
	struct sandbox_uids *u = sandbox_uids_new(100, 100);
	uint32_t uid;
	assert_int_equal(sandbox_uids_take(u, &uid), 0);
	sandbox_uids_removed(u, NULL);
	assert_int_equal(sandbox_uids_take(u, &uid), -EAGAIN);
	sandbox_uids_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_names),
		cmocka_unit_test(test_config_assess_names),
		cmocka_unit_test(test_drop_names),
		cmocka_unit_test(test_engine_names),
		cmocka_unit_test(test_audit_daemon_names),
		cmocka_unit_test(test_free_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
