#include "swarm_supervisor.h"

#include <stdio.h>
#include <string.h>

#include "macro.h"

const char swarm_supervisor[] =
	"import os, signal, sys\n"
	/* The container's init: a signal from inside (a script's kill(-1),
	 * kill(1, SIGKILL)) does not reach it, as docker-init locally. No
	 * handler of its own: SIGINT's goes back to the default. */
	"signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
	"with open('" SWARM_JOB_FILE "', 'rb') as f:\n"
	"    job = f.read()\n"
	"limit = int(sys.argv.pop(1))\n"
	"prog = sys.argv.pop(1)\n"
	/* The program's stdin a pipe, as a local run's attach stream: no
	 * descriptor of the job's file is left to the script. */
	"r, w = os.pipe()\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    signal.signal(signal.SIGINT, signal.default_int_handler)\n"
	"    os.dup2(r, 0)\n"
	"    os.close(r)\n"
	"    os.close(w)\n"
	"    g = {'__name__': '__main__', '__builtins__': __builtins__}\n"
	"    exec(compile(prog, '<mai>', 'exec'), g)\n"
	"    sys.exit(0)\n"
	"os.close(r)\n"
	/* The run's time limit, kept on its node: at it, every process of
	 * the container but this one is killed. The agent's clock is the
	 * manager's view of the task, which a busy node reports late. Armed
	 * in the parent only, before the job is written (a script that never
	 * reads it would block the write). */
	"timed_out = 0\n"
	"def expire(*a):\n"
	"    global timed_out\n"
	"    timed_out = 1\n"
	"    try:\n"
	"        os.kill(-1, signal.SIGKILL)\n"
	"    except OSError:\n"
	"        pass\n"
	"if limit > 0:\n"
	"    signal.signal(signal.SIGALRM, expire)\n"
	"    signal.setitimer(signal.ITIMER_REAL, limit / 1000)\n"
	"try:\n"
	"    while job:\n"
	"        job = job[os.write(w, job):]\n"
	"except OSError:\n"
	"    pass\n"
	"os.close(w)\n"
	"del job\n"
	/* As init, it reaps every orphan until the program itself ends. */
	"while True:\n"
	"    try:\n"
	"        p, st = os.waitpid(-1, 0)\n"
	"        if p == pid:\n"
	"            break\n"
	"    except InterruptedError:\n"
	"        pass\n"
	"signal.setitimer(signal.ITIMER_REAL, 0)\n"
	"def rd(p):\n"
	"    try:\n"
	"        with open(p) as f:\n"
	"            return f.read()\n"
	"    except OSError:\n"
	"        return ''\n"
	"def field(text, key):\n"
	"    for l in text.splitlines():\n"
	"        w = l.split()\n"
	"        if len(w) == 2 and w[0] == key and w[1].isdigit():\n"
	"            return int(w[1])\n"
	"    return -1\n"
	"def num(text):\n"
	"    w = text.split()\n"
	"    return int(w[0]) if w and w[0].isdigit() else -1\n"
	"c = '/sys/fs/cgroup/'\n"
	"if os.path.exists(c + 'memory/memory.oom_control'):\n"
	"    n = (field(rd(c + 'memory/memory.oom_control'), 'oom_kill'),\n"
	"         field(rd(c + 'pids/pids.events'), 'max'),\n"
	"         num(rd(c + 'memory/memory.max_usage_in_bytes')),\n"
	"         num(rd(c + 'cpuacct/cpuacct.usage')),\n"
	"         num(rd(c + 'pids/pids.peak')))\n"
	"else:\n"
	"    cpu = field(rd(c + 'cpu.stat'), 'usage_usec')\n"
	"    n = (field(rd(c + 'memory.events'), 'oom_kill'),\n"
	"         field(rd(c + 'pids.events'), 'max'),\n"
	"         num(rd(c + 'memory.peak')),\n"
	"         cpu * 1000 if cpu >= 0 else -1,\n"
	"         num(rd(c + 'pids.peak')))\n"
	"os.write(2, ('\\x1eMAI-CG %d %d %d %d %d %d\\n' % (n + (timed_out,))).encode())\n"
	"os._exit(os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))\n";

int swarm_supervisor_counters(const char *payload, size_t n, int64_t counters[SWARM_COUNTERS_N])
{
	size_t plen = strlen(SWARM_COUNTERS);
	long long v[SWARM_COUNTERS_N];

	if (n <= plen || memcmp(payload, SWARM_COUNTERS, plen) != 0)
		return -1;
	_cleanup_free_ char *line = xstrndup(payload + plen, n - plen);
	if (sscanf(line, "%lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5]) != SWARM_COUNTERS_N)
		return 0;
	for (int i = 0; i < SWARM_COUNTERS_N; i++)
		counters[i] = v[i] >= 0 ? v[i] : -1;
	return 1;
}
