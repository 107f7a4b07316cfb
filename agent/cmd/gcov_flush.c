/* Coverage builds only (-Db_coverage=true, tests/coverage.sh): 'mai-agent
 * run' writes its line counters out every second. gcov writes them when a
 * process exits normally, so an agent that a test kills with SIGKILL (a
 * crash recovery test, a stale mount, a killed run) would otherwise lose
 * every line it ran, and those lines would be reported as never run. Not
 * part of any other build. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void __gcov_dump(void);
void __gcov_reset(void);

/* Held while the counters are written, and for good from exit() on: gcov
 * writes them itself at the end (a destructor, after the atexit handlers),
 * and two writers at once corrupt the files. */
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;
static pid_t flushing_pid;

static void *flush_loop(void *arg)
{
	(void)arg;
	const struct timespec second = { .tv_sec = 1 };
	for (;;) {
		nanosleep(&second, NULL);
		pthread_mutex_lock(&writing);
		/* Adds this second's counts to the files, then starts them at
		 * zero again, so that nothing is counted twice. */
		__gcov_dump();
		__gcov_reset();
		pthread_mutex_unlock(&writing);
	}
	return NULL;
}

static void flush_stop(void)
{
	/* A child the agent forked has no such thread (and may have been
	 * forked while the lock was held). */
	if (getpid() == flushing_pid)
		pthread_mutex_lock(&writing); /* never unlocked: the thread writes no more */
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
