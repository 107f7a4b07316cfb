/* maiaudit's request loop (view_loop.h). Each thread waits on the FUSE
 * device and the stop descriptor together: a request is only read while no
 * stop was asked for, and once read it is answered. A request wakes one
 * waiting thread (EPOLLEXCLUSIVE), not all of them; the device is
 * non-blocking, so a thread that finds the request taken by another goes
 * back to waiting instead of sleeping in read(). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "view_fuse.h" /* sets FUSE_USE_VERSION */
#include "view_loop.h"

struct view_loop {
	struct fuse_session *se;
	int stop_fd;
	atomic_int error; /* the first -errno a thread met, else 0 */
	int ended[2];     /* a pipe: a thread that saw the end wakes the others */
};

/* Ends every thread's wait: the mount went away or the device failed. */
static void end_all(struct view_loop *l, int error)
{
	int none = 0;
	atomic_compare_exchange_strong(&l->error, &none, error);
	if (write(l->ended[1], "x", 1) < 0 && errno != EAGAIN)
		log_warn("cannot wake the view's other threads");
}

/* The thread's own epoll set: the device (exclusive: one waiter woken per
 * request), the stop descriptor and the end pipe (data.u32 1). */
static int wait_set(struct view_loop *l)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event dev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.u32 = 0 };
	struct epoll_event stop = { .events = EPOLLIN, .data.u32 = 1 };
	struct epoll_event ended = stop;
	if (ep < 0)
		return -errno;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fuse_session_fd(l->se), &dev) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, l->stop_fd, &stop) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, l->ended[0], &ended) < 0) {
		int e = -errno;
		close(ep);
		return e;
	}
	return ep;
}

static void *serve(void *arg)
{
	struct view_loop *l = arg;
	struct fuse_buf buf = { 0 };
	int ep = wait_set(l);
	if (ep < 0) {
		end_all(l, ep);
		return NULL;
	}

	for (;;) {
		struct epoll_event ev[2];
		int n = epoll_wait(ep, ev, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			end_all(l, -errno);
			break;
		}
		bool stop = false;
		for (int i = 0; i < n; i++)
			stop |= ev[i].data.u32 == 1;
		if (stop)
			break;
		int r = fuse_session_receive_buf(l->se, &buf);
		if (r == -EAGAIN || r == -EINTR)
			continue; /* another thread took it */
		if (r <= 0) { /* 0: unmounted (libfuse marks the session ended) */
			end_all(l, r);
			break;
		}
		fuse_session_process_buf(l->se, &buf);
	}
	free(buf.mem);
	close(ep);
	return NULL;
}

int view_loop_run(struct fuse_session *se, unsigned n_threads, int stop_fd)
{
	struct view_loop l = { .se = se, .stop_fd = stop_fd };
	int fd = fuse_session_fd(se), flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    pipe2(l.ended, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;

	pthread_t *threads = xcalloc(n_threads, sizeof(*threads));
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	unsigned n = 0;
	while (n < n_threads && pthread_create(&threads[n], NULL, serve, &l) == 0)
		n++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n < n_threads)
		log_warnx("the view serves with %u of its %u threads: no more could start", n,
			  n_threads);
	for (unsigned i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	close(l.ended[0]);
	close(l.ended[1]);
	fcntl(fd, F_SETFL, flags);
	return n ? atomic_load(&l.error) : -EAGAIN;
}
