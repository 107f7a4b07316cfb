/* maiaudit's request loop: a few threads answer the kernel's requests
 * until the view is told to stop or is unmounted from outside. Unlike
 * libfuse's fuse_loop_mt() (3.14, Debian 12), which drops a request one of
 * its threads had read when the session ended (the release of a directory
 * a reader just closed: libfuse's record of that directory then leaked at
 * exit), a thread here takes no request once told to stop and answers every
 * request it took. What is still queued is left for the caller. */
#ifndef MAI_VIEW_LOOP_H
#define MAI_VIEW_LOOP_H

#include <fuse_lowlevel.h>

/* Serves se with n_threads threads until stop_fd (an eventfd or a pipe's
 * read end, never read here) becomes readable or the mount goes away. The
 * session's device is made non-blocking. The calling thread only waits;
 * signals are blocked in the serving threads, so that a handler that
 * writes to stop_fd runs on the caller's. Returns 0, or -errno when the
 * device failed or no thread could start. */
int view_loop_run(struct fuse_session *se, unsigned n_threads, int stop_fd);

#endif
