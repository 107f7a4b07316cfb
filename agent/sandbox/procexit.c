#include "procexit.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"
#include "monoclock.h"

#define RCVBUF_BYTES (4 << 20)
#define ACK_WAIT_MS 1000

enum watch_state { WATCH_PENDING, WATCH_ENDED, WATCH_LOST };

struct procexit_watch {
	struct procexit *owner;
	pid_t pid;
	int efd;
	enum watch_state state; /* with status and next: under the owner's lock */
	int status;
	struct procexit_watch *next;
};

struct procexit {
	int nl;
	int stop_efd;
	pthread_t thread;
	pthread_mutex_t lock;
	struct procexit_watch *watches;
};

/* One connector message to the process events: listen or ignore. */
static int send_op(int nl, enum proc_cn_mcast_op op)
{
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;

	memset(&msg, 0, sizeof(msg));
	msg.nl.nlmsg_len = sizeof(msg);
	msg.nl.nlmsg_type = NLMSG_DONE;
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(op);
	msg.op = op;
	return send(nl, &msg, sizeof(msg), 0) == (ssize_t)sizeof(msg) ? 0 : -errno;
}

/* Calls fn for each process event in one datagram. The event sits after a
 * 36-byte header: it is copied out to meet its own alignment. */
static void each_event(const uint8_t *buf, size_t len,
		       void (*fn)(void *arg, const struct proc_event *ev), void *arg)
{
	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		const struct cn_msg *cn = NLMSG_DATA(h);
		struct proc_event ev;
		if (h->nlmsg_type != NLMSG_DONE ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(ev)) ||
		    cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
			continue;
		memcpy(&ev, cn->data, sizeof(ev));
		fn(arg, &ev);
	}
}

static void notify(struct procexit_watch *w, enum watch_state state, int status)
{
	uint64_t one = 1;

	w->state = state;
	w->status = status;
	if (write(w->efd, &one, sizeof(one)) < 0) {
		/* An eventfd write fails only on overflow: it is readable. */
	}
}

static void on_event(void *arg, const struct proc_event *ev)
{
	struct procexit *p = arg;

	/* A thread-group leader's exit is the process's. */
	if (ev->what != PROC_EVENT_EXIT ||
	    ev->event_data.exit.process_pid != ev->event_data.exit.process_tgid)
		return;
	pthread_mutex_lock(&p->lock);
	for (struct procexit_watch *w = p->watches; w; w = w->next) {
		if (w->state == WATCH_PENDING && w->pid == ev->event_data.exit.process_pid)
			notify(w, WATCH_ENDED, (int)ev->event_data.exit.exit_code);
	}
	pthread_mutex_unlock(&p->lock);
}

static void lose_all(struct procexit *p)
{
	pthread_mutex_lock(&p->lock);
	for (struct procexit_watch *w = p->watches; w; w = w->next) {
		if (w->state == WATCH_PENDING)
			notify(w, WATCH_LOST, 0);
	}
	pthread_mutex_unlock(&p->lock);
}

static void *reader(void *arg)
{
	struct procexit *p = arg;
	uint8_t buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		struct pollfd fds[2] = { { .fd = p->nl, .events = POLLIN },
					 { .fd = p->stop_efd, .events = POLLIN } };
		ssize_t n;

		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		if (!(fds[0].revents & POLLIN))
			continue;
		n = recv(p->nl, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			each_event(buf, (size_t)n, on_event, p);
		else if (n < 0 && errno == ENOBUFS)
			lose_all(p); /* events were dropped: any watch may have missed its own */
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
	}
	lose_all(p);
	return NULL;
}

struct ack {
	bool seen;
	uint32_t err;
};

static void on_ack(void *arg, const struct proc_event *ev)
{
	struct ack *a = arg;

	if (ev->what == PROC_EVENT_NONE) {
		a->seen = true;
		a->err = ev->event_data.ack.err;
	}
}

/* The kernel acknowledges a listen request with an event that carries its
 * error (EPERM without CAP_NET_ADMIN in the host's namespaces). */
static int wait_ack(int nl)
{
	uint8_t buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	int64_t until = monoclock_ms() + ACK_WAIT_MS;
	struct ack a = { 0 };

	while (!a.seen) {
		struct pollfd pfd = { .fd = nl, .events = POLLIN };
		int64_t left = until - monoclock_ms();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		n = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ENOBUFS)
			return -errno;
		if (n > 0)
			each_event(buf, (size_t)n, on_ack, &a);
	}
	return a.err ? -(int)a.err : 0;
}

int procexit_open(struct procexit **out, char **err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct procexit *p = xcalloc(1, sizeof(*p));
	int size = RCVBUF_BYTES, r;

	*out = NULL;
	p->stop_efd = -1;
	p->nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (p->nl < 0) {
		r = -errno;
		*err = xasprintf("no netlink connector socket: %s", strerror(-r));
		goto fail;
	}
	/* Root may go past the system's default; a short buffer only means
	 * lost events, which fall back to Docker. */
	if (setsockopt(p->nl, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(p->nl, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(p->nl, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		*err = xasprintf("cannot join the process events group: %s", strerror(-r));
		goto fail;
	}
	if ((r = send_op(p->nl, PROC_CN_MCAST_LISTEN)) < 0 || (r = wait_ack(p->nl)) < 0) {
		*err = xasprintf("the kernel refused process events: %s", strerror(-r));
		goto fail;
	}
	p->stop_efd = eventfd(0, EFD_CLOEXEC);
	pthread_mutex_init(&p->lock, NULL);
	if (p->stop_efd < 0 || pthread_create(&p->thread, NULL, reader, p) != 0) {
		r = -EAGAIN;
		*err = xstrdup("cannot start the process events thread");
		pthread_mutex_destroy(&p->lock);
		send_op(p->nl, PROC_CN_MCAST_IGNORE);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	if (p->nl >= 0)
		close(p->nl);
	if (p->stop_efd >= 0)
		close(p->stop_efd);
	free(p);
	return r;
}

void procexit_close(struct procexit *p)
{
	uint64_t one = 1;

	if (!p)
		return;
	if (write(p->stop_efd, &one, sizeof(one)) == sizeof(one))
		pthread_join(p->thread, NULL);
	/* The kernel stops making events once nobody listens. */
	send_op(p->nl, PROC_CN_MCAST_IGNORE);
	close(p->nl);
	close(p->stop_efd);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct procexit_watch *procexit_watch(struct procexit *p, pid_t pid)
{
	struct procexit_watch *w = xcalloc(1, sizeof(*w));

	w->owner = p;
	w->pid = pid;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		free(w);
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	w->next = p->watches;
	p->watches = w;
	pthread_mutex_unlock(&p->lock);
	return w;
}

int procexit_watch_fd(const struct procexit_watch *w) { return w->efd; }

int procexit_watch_status(struct procexit_watch *w, int *status)
{
	int r = 0;

	pthread_mutex_lock(&w->owner->lock);
	if (w->state == WATCH_PENDING)
		r = -EAGAIN;
	else if (w->state == WATCH_LOST)
		r = -ENOBUFS;
	else
		*status = w->status;
	pthread_mutex_unlock(&w->owner->lock);
	return r;
}

void procexit_unwatch(struct procexit *p, struct procexit_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&p->lock);
	for (struct procexit_watch **pp = &p->watches; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	close(w->efd);
	free(w);
}
