/* Coverage builds only (-Db_coverage=true, tests/coverage.sh): writes the
 * program's line counters out every second. gcov writes them when a
 * process exits normally, so an agent that a test kills with SIGKILL (a
 * crash recovery test, a stale mount, a killed run) would otherwise lose
 * every line it ran, and those lines would be reported as never run. Not
 * part of any other build. */
#include <pthread.h>
#include <signal.h>
#include <time.h>

void __gcov_dump(void);
void __gcov_reset(void);

static void *flush_loop(void *arg)
{
	(void)arg;
	const struct timespec second = { .tv_sec = 1 };
	for (;;) {
		nanosleep(&second, NULL);
		/* Adds this second's counts to the files, then starts them at
		 * zero again, so that nothing is counted twice. */
		__gcov_dump();
		__gcov_reset();
	}
	return NULL;
}

__attribute__((constructor)) static void gcov_flush_start(void)
{
	pthread_t t;
	pthread_attr_t a;
	sigset_t all, old;

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
