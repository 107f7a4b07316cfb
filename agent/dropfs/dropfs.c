/* The mount's life (dropfs.h "Lifecycle"), its serving threads, and the
 * names it hands to the daemon's loop. */
#include "dropfs_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

#include "log.h"
#include "mountutil.h"

struct dropfs_event {
	char *rel;
	enum names_kind kind;
	bool has_taken;
	struct drop_taken taken;
	struct drop_writer writer;
	struct dropfs_event *next;
};

struct dropfs *dropfs_get(void)
{
	return fuse_get_context()->private_data;
}

/* --- names for the daemon's loop --- */

void dropfs_queue(struct dropfs *fs, const char *rel, enum names_kind kind,
		  struct drop_taken *taken, const struct drop_writer *writer)
{
	struct dropfs_event *e = xcalloc(1, sizeof(*e));
	e->rel = xstrdup(rel);
	e->kind = kind;
	if (taken) {
		e->has_taken = true;
		e->taken = *taken;
		memset(&taken->snap, 0, sizeof(taken->snap));
	}
	if (writer)
		e->writer = *writer;
	uint64_t one = 1;
	pthread_mutex_lock(&fs->queue_lock);
	*fs->queue_tail = e;
	fs->queue_tail = &e->next;
	pthread_mutex_unlock(&fs->queue_lock);
	if (write(fs->queue_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("cannot wake the agent's loop for %s", rel);
}

static void event_free(struct dropfs_event *e)
{
	drop_taken_clear(&e->taken);
	free(e->rel);
	free(e);
}

static int src_process(void *impl)
{
	struct dropfs *fs = impl;
	uint64_t v;
	if (read(fs->queue_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	pthread_mutex_lock(&fs->queue_lock);
	struct dropfs_event *e = fs->queue_head;
	fs->queue_head = NULL;
	fs->queue_tail = &fs->queue_head;
	pthread_mutex_unlock(&fs->queue_lock);
	while (e) {
		struct dropfs_event *next = e->next;
		struct drop_name n = { .rel = e->rel, .kind = e->kind,
				       .taken = e->has_taken ? &e->taken : NULL,
				       .writer = e->writer };
		fs->fn(fs->fn_arg, &n);
		event_free(e);
		e = next;
	}
	return 0;
}

void dropfs_scan(struct dropfs *fs, const char *rel)
{
	_cleanup_free_ char *path = xasprintf("/%s", rel);
	struct dropfs_at at;
	if (dropfs_at_open(fs, path, &at) < 0)
		return;
	int fd = openat(at.dirfd, *at.leaf ? at.leaf : ".",
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dropfs_at_close(&at);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		log_warn("cannot scan %s in the drop directory", *rel ? rel : ".");
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		_cleanup_free_ char *child = *rel ? xasprintf("%s/%s", rel, de->d_name)
						  : xstrdup(de->d_name);
		if (de->d_type == DT_DIR) {
			if (fs->o.recursive && de->d_name[0] != '.')
				dropfs_scan(fs, child);
			continue;
		}
		enum names_kind kind = names_classify(de->d_name, NULL);
		int held_err = 0;
		if (kind == NAMES_SCRIPT && dropfs_note_held(fs, child, &held_err))
			dropfs_complete(fs, child, NULL, NULL,
					held_err > 0 ? held_err : DROPFS_OPEN_AT_STOP);
		else if (kind != NAMES_IGNORED)
			dropfs_queue(fs, child, kind, NULL, NULL);
	}
	closedir(d);
}

/* --- the source operations --- */

static int src_fd(void *impl) { return ((struct dropfs *)impl)->queue_fd; }
static int src_timeout(void *impl) { (void)impl; return -1; }
static bool src_present(void *impl) { return !atomic_load(&((struct dropfs *)impl)->stopping); }

static void src_set_max_size(void *impl, size_t bytes)
{
	atomic_store(&((struct dropfs *)impl)->max_size, bytes);
}

/* The agent wrote or removed rel itself: what the kernel cached of it goes
 * (the name, even as missing, and the size and pages of what it named), and
 * the waiters look again. Never called on a serving thread: the kernel
 * takes the directory's lock for the name, which a request being served
 * may hold. */
static void src_changed(void *impl, const char *rel)
{
	struct dropfs *fs = impl;
	_cleanup_free_ char *path = xasprintf("/%s", rel);
	int r = fs->fuse ? fuse_invalidate_path(fs->fuse, path) : -ENOENT;
	if (r < 0 && r != -ENOENT)
		log_debug("cannot invalidate the kernel's cache of %s: %s", rel, strerror(-r));
	/* Names in the root are the only ones the kernel may remember as
	 * missing (op_init), and the root's node id is known. */
	if (fs->se && !strchr(rel, '/')) {
		r = fuse_lowlevel_notify_inval_entry(fs->se, FUSE_ROOT_ID, rel, strlen(rel));
		if (r < 0 && r != -ENOENT)
			log_debug("cannot invalidate the kernel's entry of %s: %s", rel,
				  strerror(-r));
	}
	dropfs_wait_wake(fs);
}

static bool src_incomplete(void *impl, const char *rel, int *err)
{
	return dropfs_note_held(impl, rel, err);
}

static void stop_serving(struct dropfs *fs);

static void src_free(void *impl)
{
	struct dropfs *fs = impl;
	stop_serving(fs);
	dropfs_handles_free(fs);
	struct dropfs_event *e = fs->queue_head;
	while (e) {
		struct dropfs_event *next = e->next;
		event_free(e);
		e = next;
	}
	strmap_free(fs->files);
	dropfs_notes_free(fs);
	if (fs->queue_fd >= 0)
		close(fs->queue_fd);
	if (fs->root_fd >= 0)
		close(fs->root_fd);
	pthread_mutex_destroy(&fs->queue_lock);
	pthread_mutex_destroy(&fs->files_lock);
	pthread_mutex_destroy(&fs->wait_lock);
	pthread_mutex_destroy(&fs->threads_lock);
	free(fs->threads);
	free(fs->mountpoint);
	free(fs);
}

static const struct drop_source_ops dropfs_source_ops = {
	.fd = src_fd,
	.timeout_ms = src_timeout,
	.process = src_process,
	.present = src_present,
	.set_max_size = src_set_max_size,
	.changed = src_changed,
	.incomplete = src_incomplete,
	.free = src_free,
};

/* --- serving --- */

static void on_usr1(int sig)
{
	(void)sig; /* only to interrupt a blocking call (dropfs_wait.c) */
}

/* One serving thread: SIGUSR1 is open only while it waits for a request
 * (so that stop_serving() can wake it) and while a .wait sleeps. */
static void *serve(void *arg)
{
	struct dropfs *fs = arg;
	struct fuse_buf buf = { .mem = NULL };
	sigset_t all, usr1;
	sigfillset(&all);
	sigdelset(&all, SIGUSR1);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &all, NULL);

	while (!atomic_load(&fs->stopping) && !fuse_session_exited(fs->se)) {
		int r = fuse_session_receive_buf(fs->se, &buf);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r <= 0) {
			if (r < 0 && !atomic_load(&fs->stopping))
				log_warnx("the drop directory's mount stopped serving: %s",
					  strerror(-r));
			break;
		}
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
		fuse_session_process_buf(fs->se, &buf);
		pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	}
	free(buf.mem);
	return NULL;
}

/* Ends the serving threads (each is woken out of its read by SIGUSR1 until
 * it has ended), then unmounts: lazily, so that a shell whose working
 * directory is in the mount does not keep the agent from stopping. */
static void stop_serving(struct dropfs *fs)
{
	atomic_store(&fs->stopping, true);
	dropfs_wait_wake(fs);
	/* None is started once stopping is set (dropfs_serve_more looks under
	 * the lock), so the count read here is the last. */
	pthread_mutex_lock(&fs->threads_lock);
	unsigned n = fs->n_threads;
	pthread_mutex_unlock(&fs->threads_lock);
	for (unsigned i = 0; i < n; i++) {
		for (;;) {
			pthread_kill(fs->threads[i], SIGUSR1);
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += 10 * 1000000L;
			if (t.tv_nsec >= 1000000000L) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000L;
			}
			if (pthread_timedjoin_np(fs->threads[i], NULL, &t) == 0)
				break;
		}
	}
	fs->n_threads = 0;
	if (fs->fuse) {
		fuse_unmount(fs->fuse);
		fuse_destroy(fs->fuse);
		fs->fuse = NULL;
		log_info("unmounted the drop directory %s", fs->mountpoint);
	}
}

/* --- start --- */

/* The mount point must be a directory with nothing live on it; a mount
 * left by a killed agent is cleared. */
static int check_mountpoint(const char *mnt, char **err)
{
	_cleanup_free_ char *detail = NULL;
	enum mountutil_state st = mountutil_probe_clear(mnt, "an agent that was killed", &detail);

	switch (st) {
	case MOUNTUTIL_READY:
		return 0;
	case MOUNTUTIL_MISSING:
		*err = xasprintf("the drop directory %s does not exist (agent.drop_dir in "
				 "agent.yaml)", mnt);
		return -ENOENT;
	case MOUNTUTIL_NOT_DIR:
		*err = xasprintf("the drop directory %s is not a directory (agent.drop_dir in "
				 "agent.yaml)", mnt);
		return -ENOTDIR;
	case MOUNTUTIL_MOUNTED: {
		/* A drop directory that is a file system of its own (a disk, a
		 * tmpfs) is served like any other; only an agent's mount there
		 * means another agent serves it. */
		_cleanup_free_ char *fstype = NULL;
		if (mountutil_find("/proc/self/mountinfo", mnt, &fstype) == 0 &&
		    strcmp(fstype, "fuse.maidrop") != 0)
			return 0;
		*err = xasprintf("%s: another agent serves it; stop that agent (its service, or "
				 "kill its 'mai-agent run'), then start this one", detail);
		return -EBUSY;
	}
	case MOUNTUTIL_STALE:
	case MOUNTUTIL_ERROR:
		break;
	}
	*err = xasprintf("the drop directory %s cannot be mounted on: %s", mnt,
			 detail ? detail : "unknown state");
	return -EIO;
}

/* The process's umask, without changing it (other threads create files). */
static mode_t process_umask(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0)
		if (strncmp(line, "Umask:", 6) == 0)
			return (mode_t)strtoul(line + 6, NULL, 8);
	return 022;
}

static int start_serving(struct dropfs *fs, char **err)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	if (fuse_opt_add_arg(&args, "mai-agent") < 0 || fuse_opt_add_arg(&args, "-o") < 0 ||
	    fuse_opt_add_arg(&args, "allow_other,default_permissions,fsname=maidrop,"
			     "subtype=maidrop") < 0)
		abort();
	/* A no-op handler, installed before libfuse looks (it keeps one that is
	 * there): SIGUSR1 only interrupts a blocking call of a serving thread. */
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);

	fs->fuse = fuse_new(&args, dropfs_operations(), sizeof(struct fuse_operations), fs);
	fuse_opt_free_args(&args);
	if (!fs->fuse) {
		*err = xstrdup("cannot set up FUSE for the drop directory (see the message above)");
		return -EIO;
	}
	if (fuse_mount(fs->fuse, fs->mountpoint) != 0) {
		fuse_destroy(fs->fuse);
		fs->fuse = NULL;
		*err = xasprintf("cannot mount the drop directory on %s (see the message above); "
				 "mount mode needs root, /dev/fuse and the fuse3 package",
				 fs->mountpoint);
		return -EIO;
	}
	fs->se = fuse_get_session(fs->fuse);
	for (unsigned i = 0; i < DROPFS_THREADS; i++) {
		int r = dropfs_serve_more(fs, 0);
		if (r < 0) {
			*err = xasprintf("cannot start the drop directory's threads: %s", strerror(-r));
			return r;
		}
	}
	return 0;
}

int dropfs_serve_more(struct dropfs *fs, unsigned busy)
{
	int r = 0;
	pthread_mutex_lock(&fs->threads_lock);
	if (atomic_load(&fs->stopping)) {
		r = -ECANCELED;
	} else {
		/* Two readers that came at once may each ask with the count the
		 * other's thread already covers: so up to the count, not one. */
		while (r == 0 && fs->n_threads < DROPFS_THREADS + busy) {
			if (fs->n_threads == fs->cap_threads) {
				fs->cap_threads = fs->cap_threads ? 2 * fs->cap_threads : DROPFS_THREADS;
				fs->threads = xrealloc(fs->threads,
						       fs->cap_threads * sizeof(*fs->threads));
			}
			r = -pthread_create(&fs->threads[fs->n_threads], NULL, serve, fs);
			if (r == 0)
				fs->n_threads++;
		}
	}
	pthread_mutex_unlock(&fs->threads_lock);
	return r;
}

int dropfs_new(const struct dropfs_options *o, drop_source_fn fn, void *arg,
	       struct drop_source **out, char **err)
{
	struct dropfs *fs = xcalloc(1, sizeof(*fs));
	_cleanup_free_ char *agent_dir = NULL;
	int r;

	fs->o = *o;
	fs->o.dir = fs->o.dir_mode = fs->o.dir_group = fs->o.notes_dir = NULL;
	fs->fn = fn;
	fs->fn_arg = arg;
	fs->root_fd = fs->queue_fd = -1;
	fs->queue_tail = &fs->queue_head;
	fs->files = strmap_new(NULL);
	atomic_store(&fs->max_size, o->max_file_size);
	pthread_mutex_init(&fs->queue_lock, NULL);
	pthread_mutex_init(&fs->files_lock, NULL);
	pthread_mutex_init(&fs->wait_lock, NULL);
	pthread_mutex_init(&fs->root_lock, NULL);
	pthread_mutex_init(&fs->threads_lock, NULL);
	fs->umask = process_umask();

	r = mountutil_canonical(o->dir, &fs->mountpoint);
	if (r < 0) {
		*err = xasprintf("cannot resolve the drop directory %s: %s (agent.drop_dir in "
				 "agent.yaml)", o->dir, strerror(-r));
		goto fail;
	}
	if ((r = check_mountpoint(fs->mountpoint, err)) < 0)
		goto fail;
	fs->root_fd = open(fs->mountpoint, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fs->queue_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fs->root_fd < 0 || fs->queue_fd < 0) {
		r = -errno;
		*err = xasprintf("cannot open the drop directory %s: %s", fs->mountpoint,
				 strerror(-r));
		goto fail;
	}
	/* Before the first request: a script noted as being written by a
	 * killed agent is held from its first sight (the scan below). */
	if ((o->notes_dir && (r = dropfs_notes_load(fs, o->notes_dir, err)) < 0) ||
	    (r = dropfs_root_prepare(fs, o->dir_mode, o->dir_group, err)) < 0 ||
	    (r = start_serving(fs, err)) < 0)
		goto fail;
	/* What arrived while the agent was down, now that the mount holds. */
	dropfs_scan(fs, "");
	log_info("mounted the drop directory %s (mount mode: the agent sees every close and "
		 "writer)%s", fs->mountpoint, o->recursive ? ", subdirectories allowed" : "");
	agent_dir = xasprintf("/proc/self/fd/%d/.", fs->root_fd);
	*out = drop_source_new(&dropfs_source_ops, fs, agent_dir);
	return 0;
fail:
	src_free(fs);
	return r;
}
