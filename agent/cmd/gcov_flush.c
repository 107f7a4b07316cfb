/* Coverage builds only (-Db_coverage=true, tests/coverage.sh): 'mai-agent
 * run' has its line counters written out every second. gcov writes them
 * when a process exits normally, so an agent that a test kills with
 * SIGKILL (a crash recovery test, a stale mount, a killed run) would
 * otherwise lose every line it ran, and those lines would be reported as
 * never run. Not part of any other build.
 *
 * A forked child writes them and exits: it holds a copy of the counters
 * taken at one moment, while the agent's threads go on counting. (Writing
 * them from the agent itself, then setting them to zero, raced the
 * threads: some counts came out negative and gcovr refused the files.)
 * Each copy adds what was counted so far to the files, so lines are
 * counted more than once: the figures are of lines run or not, never of
 * how often. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void __gcov_dump(void);

/* Held while a child writes, and for good from exit() on: gcov writes the
 * agent's own counters at the end (a destructor, after the atexit
 * handlers). */
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;
static pid_t flushing_pid;

static void *flush_loop(void *arg)
{
	(void)arg;
	const struct timespec second = { .tv_sec = 1 };
	for (;;) {
		nanosleep(&second, NULL);
		pthread_mutex_lock(&writing);
		pid_t pid = fork();
		if (pid == 0) {
			__gcov_dump();
			_exit(0);
		}
		if (pid > 0)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		pthread_mutex_unlock(&writing);
	}
	return NULL;
}

static void flush_stop(void)
{
	/* A child the agent forked has no such thread. */
	if (getpid() == flushing_pid)
		pthread_mutex_lock(&writing); /* never unlocked: no more copies */
}

/* glibc passes main's arguments to constructors. Only the agent itself (a
 * long-running 'run'): the other commands end normally within seconds. */
__attribute__((constructor)) static void gcov_flush_start(int argc, char **argv)
{
	pthread_t t;
	pthread_attr_t a;
	sigset_t all, old;

	if (argc < 2 || strcmp(argv[1], "run") != 0)
		return;
	flushing_pid = getpid();
	atexit(flush_stop);
	/* The thread takes no signal: the agent's signal handling (signalfd,
	 * sigwait) must see every one. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &a, flush_loop, NULL);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
