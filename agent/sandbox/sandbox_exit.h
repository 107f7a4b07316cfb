/* How a sandbox learns that a container's init has ended, and with what
 * status, from the kernel instead of Docker (sandbox_attach.h): a pidfd
 * per container where the kernel reports exit statuses through pidfds
 * (probed: pidfd_exit.h), else one subscription to the kernel's process
 * events (procexit.h), else not at all: Docker says. */
#ifndef MAI_SANDBOX_EXIT_H
#define MAI_SANDBOX_EXIT_H

#include "docker.h"
#include "sandbox_attach.h"
#include "sandbox_options.h"

struct sandbox_exit;      /* the way taken, and the process events' subscription */
struct sandbox_exit_init; /* the watch of one container's init */

/* Takes a way: want is AUTO or a forced one (a forced way that is not
 * available falls back to Docker, logged). d (borrowed) and cgroup_version
 * find a container's init. Never NULL; freed with sandbox_exit_stop(),
 * after every watch is undone. */
struct sandbox_exit *sandbox_exit_start(enum sandbox_exit_source want, struct docker *d,
				       int cgroup_version);
void sandbox_exit_stop(struct sandbox_exit *ex);
/* The way taken: PIDFD, NETLINK or DOCKER, never AUTO. */
enum sandbox_exit_source sandbox_exit_source_get(const struct sandbox_exit *ex);

/* Watches the init of the started container id, or NULL when the way is
 * Docker's or that init cannot be watched (logged): its run waits for
 * Docker. Not for a gVisor container, whose init is no host process. */
struct sandbox_exit_init *sandbox_exit_watch(struct sandbox_exit *ex, const char *id);
/* Undoes and frees a watch; NULL is a no-op. */
void sandbox_exit_unwatch(struct sandbox_exit *ex, struct sandbox_exit_init *init);
/* The pid of a watched init, as this machine's /proc knows it. */
pid_t sandbox_exit_init_pid(const struct sandbox_exit_init *init);

/* Wakes the bootstrap of a watched container that holds after its end
 * markers (sandbox_bootstrap.h) with SIGUSR1: the kernel delivers it at
 * once, where the close of stdin travels through dockerd, containerd and
 * the shim first. Whether it was sent; never without a watch (gVisor,
 * Docker's way), and then the close of stdin ends the hold alone.
 * When sent and w (the pump's view of init, may be NULL) is a pidfd that
 * has not seen the init end, w watches the bootstrap instead: its exit,
 * with the status the init then exits with, is the run's end. */
bool sandbox_exit_release(struct sandbox_exit_init *init, struct sandbox_exit_watch *w);

/* The pump's view of init (fd -1 when init is NULL); valid while init is. */
void sandbox_exit_pump_watch(struct sandbox_exit_init *init, struct sandbox_exit_watch *w);

#endif
