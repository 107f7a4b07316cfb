#include "sandbox_bootstrap.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"

/* Runs inside the container as `python3 -I -u -B -c BOOTSTRAP`: reads from
 * stdin a header line with the length of the file name, the length of a
 * JSON spec of the job's PEP 723 dependencies (0: none) and a nonce, then
 * the name, the spec, then the script (so a pooled container, started
 * before its job is known, learns the name too). With a spec it first
 * installs the dependencies with pip through the proxy into their own
 * tmpfs, with its own time limit, and writes what pip installed (from its
 * --report) as the first line of stdout, before a byte of the script runs:
 * the agent takes that line off (sandbox_deps.c). A failed install ends the
 * run with status 97. Then it compiles the script under its own file name
 * (tracebacks say "foo.py", not "<stdin>"), registers its lines with
 * linecache (so they show the source) and runs it as __main__. The
 * bootstrap's frame is cut from tracebacks.
 * When the interpreter exits normally (after the script's own threads and
 * atexit handlers), the bootstrap writes "\x1eMAI-END <nonce>\n" to stdout
 * and to stderr, through its own copies of both (taken before the script
 * runs, so a script that redirects fd 1 or 2 does not divert it): the agent
 * then knows that each stream is complete without waiting for Docker to
 * close them (sandbox_attach.h), and takes the marker off the output.
 * Processes the script forks do not write it.
 * The script's stdin is /dev/null (it was at its end before); the bootstrap
 * keeps the real one, which the agent holds open, and after the marker
 * waits, at most 2 s, for the agent to close it before the interpreter
 * exits: the agent reads the container's cgroup counters (OOM kills,
 * refused forks) in that pause, while the container cannot have been torn
 * down. A script that closes those descriptors only loses the pause. Where
 * the agent sees the container's processes it ends the pause with SIGUSR1
 * (sandbox_exit_release()), which the bootstrap takes over from the script
 * before it writes the markers: the close of stdin reaches the container
 * through dockerd and the shim, several milliseconds later. The signal also
 * wakes the wait through signal.set_wakeup_fd(): one that comes between the
 * markers' write and the wait (the agent reads them at once; the bootstrap
 * may be descheduled in between) is handled by Python's C handler without
 * interrupting a wait that has not begun, and the interpreter runs its
 * Python handler only later, so the wait went on until the close of stdin
 * (or its 2 s: 7 of 80 warm runs at load 20 when nothing else ended it).
 * Then the bootstrap ends the process at once with the status the
 * interpreter would have exited with (os._exit): the script's threads,
 * atexit handlers and output are done by then, and the interpreter's own
 * teardown (module cleanup, which Python does not promise runs __del__ of
 * what is still alive) took a warm run a few milliseconds that the agent
 * waited for. The status is still the kernel's word to the agent; a script
 * that chooses its own (sys.exit, os._exit) could always do so. */
const char sandbox_bootstrap[] =
	"import atexit, os, sys, linecache, traceback\n"
	"def mai_install(spec):\n"
	"    import json, subprocess\n"
	"    report = '/tmp/.mai-pip-report.json'\n"
	"    cmd = [sys.executable, '-m', 'pip', 'install', '--no-input', '--disable-pip-version-check',\n"
	"           '--no-cache-dir', '--only-binary', ':all:', '--retries', '1', '--timeout', '15',\n"
	"           '--target', spec['target'], '--report', report, '--index-url', spec['index_url']]\n"
	"    if spec.get('trusted_host'):\n"
	"        cmd += ['--trusted-host', spec['trusted_host']]\n"
	"    cmd += ['--'] + spec['dependencies']\n"
	"    rep = {'ok': False, 'installed': []}\n"
	"    try:\n"
	"        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,\n"
	"                           stderr=subprocess.STDOUT, timeout=spec['timeout'])\n"
	"        out, rep['status'] = p.stdout, p.returncode\n"
	"    except subprocess.TimeoutExpired as e:\n"
	"        out, rep['status'] = e.output or b'', 'timeout'\n"
	"    if rep['status'] == 0:\n"
	"        rep['ok'] = True\n"
	"        for i in json.load(open(report)).get('install', []):\n"
	"            m, d = i.get('metadata', {}), i.get('download_info', {})\n"
	"            a = d.get('archive_info', {})\n"
	"            h = dict(a.get('hashes') or {})\n"
	"            if not h and '=' in a.get('hash', ''):\n"
	"                k, v = a['hash'].split('=', 1)\n"
	"                h[k] = v\n"
	"            rep['installed'].append({'name': m.get('name'), 'version': m.get('version'),\n"
	"                                     'url': d.get('url'), 'hashes': h})\n"
	"    else:\n"
	"        rep['log'] = out.decode('utf-8', 'replace')[-4000:]\n"
	"    sys.stdout.write('\\x1eMAI-DEPS ' + json.dumps(rep) + '\\n')\n"
	"    sys.stdout.flush()\n"
	"    if not rep['ok']:\n"
	"        mai_code[0] = 97\n"
	"        sys.exit(97)\n"
	"    sys.path.insert(0, spec['target'])\n"
	"def mai_end(pid=os.getpid()):\n"
	"    if os.getpid() != pid:\n"
	"        return\n"
	"    for f in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):\n"
	"        try:\n"
	"            f.flush()\n"
	"        except BaseException:\n"
	"            pass\n"
	"    wake = []\n"
	"    try:\n"
	"        import signal\n"
	"        r, w = os.pipe()\n"
	"        os.set_blocking(w, False)\n"
	"        signal.set_wakeup_fd(w)\n"
	"        wake = [r]\n"
	"        signal.signal(signal.SIGUSR1, lambda *a: os._exit(mai_code[0]))\n"
	"        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1])\n"
	"    except BaseException:\n"
	"        pass\n"
	"    held = True\n"
	"    for fd in mai_fds[:2]:\n"
	"        try:\n"
	"            os.write(fd, b'\\x1eMAI-END ' + h[2] + b'\\n')\n"
	"        except BaseException:\n"
	"            held = False\n"
	"    try:\n"
	"        if held:\n"
	"            import select\n"
	"            select.select([mai_fds[2]] + wake, [], [], 2)\n"
	"    except BaseException:\n"
	"        pass\n"
	"    os._exit(mai_code[0])\n"
	"def mai_status(code):\n"
	"    if code is None:\n"
	"        return 0\n"
	"    return code & 0xff if isinstance(code, int) else 1\n"
	"mai_code = [0]\n"
	"mai_fds = [os.dup(1), os.dup(2), -1]\n"
	"h = sys.stdin.buffer.readline().split()\n"
	"atexit.register(mai_end)\n"
	"name = sys.stdin.buffer.read(int(h[0])).decode('utf-8', 'replace')\n"
	"if int(h[1]):\n"
	"    import json\n"
	"    mai_install(json.loads(sys.stdin.buffer.read(int(h[1]))))\n"
	"del mai_install, mai_end\n"
	"src = sys.stdin.buffer.read(int(h[3]))\n"
	"mai_fds[2] = os.dup(0)\n"
	"null = os.open(os.devnull, os.O_RDONLY)\n"
	"os.dup2(null, 0)\n"
	"os.close(null)\n"
	"sys.argv = [name]\n"
	"linecache.cache[name] = (len(src), None, src.decode('utf-8', 'replace').splitlines(True), name)\n"
	"g = {'__name__': '__main__', '__file__': name, '__builtins__': __builtins__}\n"
	"try:\n"
	"    exec(compile(src, name, 'exec'), g)\n"
	"except SystemExit as e:\n"
	"    mai_code[0] = mai_status(e.code)\n"
	"    raise\n"
	"except BaseException as e:\n"
	"    traceback.print_exception(type(e), e, e.__traceback__.tb_next)\n"
	"    sys.stderr.flush()\n"
	"    mai_code[0] = 1\n"
	"    sys.exit(1)\n";

/* A fresh nonce (hex) and the end marker the bootstrap writes with it. The
 * nonce keeps a script from ending its output with the marker by chance;
 * nothing rests on its secrecy (the exit status is the kernel's), so the
 * clock stands in should the kernel's randomness fail. */
void sandbox_end_marker(char nonce[SANDBOX_NONCE_LEN + 1], char marker[SANDBOX_MARKER_MAX + 1])
{
	static atomic_uint count;
	uint8_t b[SANDBOX_NONCE_LEN / 2];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		struct timespec ts;
		uint64_t v[2];
		clock_gettime(CLOCK_REALTIME, &ts);
		v[0] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		v[1] = (uint64_t)getpid() << 32 | atomic_fetch_add(&count, 1);
		memcpy(b, v, sizeof(b));
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(nonce + 2 * i, 3, "%02x", b[i]);
	snprintf(marker, SANDBOX_MARKER_MAX + 1, "\x1eMAI-END %s\n", nonce);
}

/* stdin of the bootstrap: "<length of name> <length of spec> <nonce>
 * <length of code>\n" name spec code. */
uint8_t *sandbox_job_input(const struct sandbox_job *job, const char *spec, const char *nonce,
			   size_t *len)
{
	const char *name = job->file_name ? job->file_name : "script.py";
	size_t nl = strlen(name), sl = spec ? strlen(spec) : 0;
	char head[128];
	int h = snprintf(head, sizeof(head), "%zu %zu %s %zu\n", nl, sl, nonce, job->len);
	uint8_t *buf = xmalloc((size_t)h + nl + sl + job->len + 1);
	uint8_t *w = buf;

	memcpy(w, head, (size_t)h);
	w += h;
	memcpy(w, name, nl);
	w += nl;
	if (sl)
		memcpy(w, spec, sl);
	w += sl;
	if (job->len)
		memcpy(w, job->code, job->len);
	*len = (size_t)h + nl + sl + job->len;
	return buf;
}
