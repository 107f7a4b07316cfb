#include "sandbox_selftest.h"

#include <string.h>
#include <sys/utsname.h>

#include "log.h"
#include "macro.h"

/* The probes' own wall-clock limit: a slow start on a busy machine is not a
 * confinement failure. */
#define SELFTEST_TIMEOUT_MS 30000

/* Each line: probe name, a space, "ok" or what was seen instead. */
static const char probe_script[] =
	"import os, socket\n"
	"def probe(name, ok, seen):\n"
	"    print(name, 'ok' if ok else seen)\n"
	"root = [l.split()[3].split(',') for l in open('/proc/self/mounts') if l.split()[1] == '/']\n"
	"probe('root_readonly', bool(root) and 'ro' in root[-1], 'the root is mounted ' + ','.join(root[-1] if root else ['nowhere']))\n"
	"ifs = sorted(n for _, n in socket.if_nameindex())\n"
	"probe('no_network', ifs == ['lo'], 'interfaces ' + ','.join(ifs))\n"
	"st = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
	"caps = [k + '=' + st[k].strip() for k in ('CapEff', 'CapPrm', 'CapBnd') if int(st[k], 16)]\n"
	"probe('no_capabilities', not caps, ' '.join(caps))\n"
	"probe('non_root_user', os.getuid() != 0 and os.getgid() != 0, 'uid %d gid %d' % (os.getuid(), os.getgid()))\n"
	/* The image: no file that exec would run with another uid or gid. */
	"setid = []\n"
	"for d, subdirs, files in os.walk('/'):\n"
	"    if d in ('/proc', '/sys', '/dev'):\n"
	"        subdirs[:] = []\n"
	"        continue\n"
	"    for f in files:\n"
	"        try: m = os.lstat(os.path.join(d, f)).st_mode\n"
	"        except OSError: continue\n"
	"        if m & 0o6000 and m & 0o170000 == 0o100000: setid.append(os.path.join(d, f))\n"
	"probe('no_setuid_files', not setid, '%d setuid or setgid files in the image, such as %s' % (len(setid), ' '.join(setid[:3])))\n";

/* Under runc the script meets the host kernel, confined by no-new-privileges
 * and Docker's seccomp filter. */
static const char host_kernel_probes[] =
	"probe('no_new_privileges', st.get('NoNewPrivs', '').strip() == '1', 'NoNewPrivs ' + st.get('NoNewPrivs', 'absent').strip())\n"
	"probe('seccomp', st.get('Seccomp', '').strip() == '2', 'Seccomp mode ' + st.get('Seccomp', 'absent').strip())\n"
	/* The agent's own profile (sandbox_seccomp.h) is in force: what only
	 * it refuses is refused with EPERM, the filter's answer (a kernel
	 * without the feature would say EAFNOSUPPORT or ENOSYS). */
	"import errno\n"
	"def refused(name, call):\n"
	"    try:\n"
	"        r = call()\n"
	"    except OSError as e:\n"
	"        probe(name, e.errno == errno.EPERM, 'refused with %s, not by the seccomp profile' % errno.errorcode.get(e.errno, e.errno))\n"
	"        return\n"
	"    probe(name, False, 'allowed')\n"
	"    r.close() if hasattr(r, 'close') else os.close(r)\n"
	"refused('no_memfd_exec', lambda: os.memfd_create('probe'))\n"
	"refused('no_vsock', lambda: socket.socket(40, socket.SOCK_STREAM))\n"
	"refused('no_uevent', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15))\n"
	/* io_uring_setup is 425 on every architecture. Without ctypes (the
	 * default image has none) a script has no way to make the call. */
	"try:\n"
	"    import ctypes\n"
	"except ImportError:\n"
	"    ctypes = None\n"
	"if ctypes:\n"
	"    libc = ctypes.CDLL(None, use_errno=True)\n"
	"    params = ctypes.create_string_buffer(120)\n"
	"    rc = libc.syscall(425, 4, params)\n"
	"    e = ctypes.get_errno()\n"
	"    probe('no_io_uring', rc == -1 and e == errno.EPERM, 'io_uring_setup returned %d (errno %d)' % (rc, e))\n"
	"else:\n"
	"    probe('no_io_uring', True, '')\n";
static const char *const host_kernel_names[] = { "no_new_privileges", "seccomp", "no_memfd_exec",
						 "no_vsock", "no_uevent", "no_io_uring" };

/* The io_uring call alone, for an image that has ctypes (the default one has
 * none: there the probe above cannot make it). */
static const char io_uring_script[] =
	"import ctypes, errno\n"
	"libc = ctypes.CDLL(None, use_errno=True)\n"
	"params = ctypes.create_string_buffer(120)\n"
	"rc = libc.syscall(425, 4, params)\n"
	"e = ctypes.get_errno()\n"
	"print('no_io_uring', 'ok' if rc == -1 and e == errno.EPERM else\n"
	"      'io_uring_setup returned %d (errno %d)' % (rc, e))\n";
static const char *const io_uring_names[] = { "no_io_uring" };

/* Under runsc it meets gVisor's kernel instead (which keeps its own seccomp
 * filter on the host side and has no NoNewPrivs to show): the probe checks
 * that the kernel answering is not the host's. Its format takes the host's
 * release. */
static const char gvisor_kernel_probe[] =
	"probe('gvisor_kernel', os.uname().release != '%s', 'the host kernel %s answers')\n";
static const char *const gvisor_kernel_names[] = { "gvisor_kernel" };

static const char *const common_names[] = {
	"root_readonly", "no_network", "no_capabilities", "non_root_user", "no_setuid_files",
};

static const char memory_script[] =
	"chunks = []\n"
	"while True:\n"
	"    chunks.append(bytearray(64 << 20))\n";

static int check_probes(const struct sandbox_result *r, const char *const *probes, size_t n,
			char **err)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *want = xasprintf("%s ok\n", probes[i]);
		const char *line = r->out.data ? strstr(r->out.data, probes[i]) : NULL;
		const char *seen, *nl;

		if (line && strncmp(line, want, strlen(want)) == 0)
			continue;
		/* What the probe saw: the rest of its line after the name. */
		seen = line ? line + strlen(probes[i]) + (line[strlen(probes[i])] == ' ') : NULL;
		nl = seen ? strchr(seen, '\n') : NULL;
		*err = xasprintf("sandbox self-test failed: probe %s: %.*s; confinement is weaker "
				 "than configured, so no job runs: check dockerd's security options "
				 "and config/sandbox.yaml", probes[i],
				 seen ? (int)(nl ? nl - seen : 120) : 40,
				 seen ? seen : "no answer (see the probe's stderr)");
		return -EPERM;
	}
	return 0;
}

/* The probes at trust level t, which runs under gVisor when gvisor is set. */
static int run_probes(const struct sandbox_runner *runner, enum trust t, bool gvisor, char **err)
{
	struct utsname host;
	_cleanup_free_ char *script = NULL;
	struct sandbox_job job = { .job_id = "self-test", .file_name = "selftest.py", .trust = t };
	/* The probes check the no-network confinement of the none levels; an
	 * allowlist level's network is checked by its own tests. */
	const struct sandbox_run_mode mode = { .min_timeout_ms = SELFTEST_TIMEOUT_MS,
					       .no_network = true };
	struct sandbox_result r;
	int rc;

	if (gvisor) {
		if (uname(&host) < 0 || strchr(host.release, '\'')) {
			*err = xasprintf("sandbox self-test failed: cannot read the host's kernel "
					 "release to tell gVisor's kernel from it");
			return -EPERM;
		}
		_cleanup_free_ char *kernel = xasprintf(gvisor_kernel_probe, host.release, host.release);
		script = xasprintf("%s%s", probe_script, kernel);
	} else {
		script = xasprintf("%s%s", probe_script, host_kernel_probes);
	}
	job.code = (const uint8_t *)script;
	job.len = strlen(script);
	if (runner->run(runner->ctx, &job, &mode, &r) < 0 ||
	    r.verdict != SANDBOX_VERDICT_EXITED || r.exit_code) {
		*err = xasprintf("sandbox self-test failed: the probe did not run cleanly (%s: %s; "
				 "stderr: %.200s)", sandbox_verdict_to_string(r.verdict),
				 r.message ? r.message : "exit 0", r.err.data ? r.err.data : "");
		sandbox_result_clear(&r);
		return -EPERM;
	}
	rc = check_probes(&r, common_names, ARRAY_SIZE(common_names), err);
	if (rc == 0 && gvisor)
		rc = check_probes(&r, gvisor_kernel_names, ARRAY_SIZE(gvisor_kernel_names), err);
	else if (rc == 0)
		rc = check_probes(&r, host_kernel_names, ARRAY_SIZE(host_kernel_names), err);
	sandbox_result_clear(&r);
	return rc;
}

/* The io_uring call at level t in image (which has ctypes). */
static int run_io_uring_probe(const struct sandbox_runner *runner, enum trust t, const char *image,
			      char **err)
{
	struct sandbox_job job = { .job_id = "self-test", .file_name = "selftest_io_uring.py",
				   .trust = t, .code = (const uint8_t *)io_uring_script,
				   .len = sizeof(io_uring_script) - 1 };
	const struct sandbox_run_mode mode = { .min_timeout_ms = SELFTEST_TIMEOUT_MS,
					       .no_network = true, .image = image };
	struct sandbox_result r;
	int rc;

	if (runner->run(runner->ctx, &job, &mode, &r) < 0 || r.verdict != SANDBOX_VERDICT_EXITED ||
	    r.exit_code) {
		*err = xasprintf("sandbox self-test failed: the io_uring probe in %s did not run "
				 "cleanly (%s: %s; stderr: %.200s)", image,
				 sandbox_verdict_to_string(r.verdict), r.message ? r.message : "exit 0",
				 r.err.data ? r.err.data : "");
		sandbox_result_clear(&r);
		return -EPERM;
	}
	rc = check_probes(&r, io_uring_names, ARRAY_SIZE(io_uring_names), err);
	sandbox_result_clear(&r);
	return rc;
}

int sandbox_selftest_run(const struct sandbox_runner *runner, bool gvisor, int runc_level,
			 const char *ctypes_image, char **err)
{
	struct sandbox_job job = {
		.job_id = "self-test", .file_name = "selftest.py", .trust = TRUST_UNTRUSTED,
	};
	const struct sandbox_run_mode mode = { .min_timeout_ms = SELFTEST_TIMEOUT_MS,
					       .no_network = true };
	struct sandbox_result r;
	int rc = run_probes(runner, TRUST_UNTRUSTED, gvisor, err);

	/* The host kernel's confinement (seccomp profile, uid) where a level
	 * meets it. */
	if (rc == 0 && gvisor && runc_level >= 0)
		rc = run_probes(runner, (enum trust)runc_level, false, err);
	/* Where the host kernel answers a level, the call itself is made. */
	int host_level = gvisor ? runc_level : TRUST_UNTRUSTED;
	if (rc == 0 && ctypes_image && host_level >= 0)
		rc = run_io_uring_probe(runner, (enum trust)host_level, ctypes_image, err);
	if (rc < 0)
		return rc;

	job.file_name = "selftest_memory.py";
	job.code = (const uint8_t *)memory_script;
	job.len = sizeof(memory_script) - 1;
	runner->run(runner->ctx, &job, &mode, &r);
	if (r.verdict != SANDBOX_VERDICT_OOM_KILLED) {
		*err = xasprintf("sandbox self-test failed: probe memory_limit: a script allocating "
				 "without end ended with '%s' instead of oom_killed (limit %lld MiB); "
				 "check that dockerd supports memory limits (MemoryLimit in "
				 "docker info)", sandbox_verdict_to_string(r.verdict),
				 (long long)(r.limits.memory_bytes >> 20));
		sandbox_result_clear(&r);
		return -EPERM;
	}
	sandbox_result_clear(&r);
	static const char host[] = "no-new-privileges, the agent's seccomp profile (no io_uring, "
				   "memfd, vsock, uevent)";
	log_info("sandbox self-test passed: root read-only, no network, no capabilities, %s%s%s, "
		 "non-root user, no setuid file, memory limit enforced; io_uring %s",
		 gvisor ? "gVisor's kernel (runsc)" : host,
		 gvisor && runc_level >= 0 ? "; under runc " : "",
		 gvisor && runc_level >= 0 ? host : "",
		 ctypes_image && host_level >= 0 ? "refused to a call made through ctypes"
						 : "not reachable: the image has no ctypes, and no "
						   "image with ctypes (the pip image) is there to "
						   "make the call in");
	return 0;
}
