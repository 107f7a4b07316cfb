/* Running a helper program to completion and reading what it prints. */
#ifndef MAI_SUBPROCESS_H
#define MAI_SUBPROCESS_H

#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Initialises attr so that the child starts with no signal blocked and
 * every signal at its default action: the agent blocks the signals its loop
 * reads (signalfd), and a child would otherwise inherit that mask and
 * ignore SIGTERM. The caller destroys attr. */
void subprocess_spawnattr_init(posix_spawnattr_t *attr);

/* Runs argv (argv[0] looked up in PATH) with stdin from /dev/null, its
 * stdout (and its stderr too when with_stderr, else /dev/null) read into
 * *out, NUL-terminated, at most max bytes kept, the rest read and dropped;
 * killed at timeout_ms. Returns its exit status (>= 0; 128 + the signal
 * when killed by one) with *out and *out_len set (caller frees *out), or
 * -ENOENT when the program is not found, -ETIMEDOUT, or -errno, with *out
 * NULL. */
int subprocess_capture(char *const argv[], unsigned timeout_ms, size_t max, bool with_stderr,
		       char **out, size_t *out_len);

/* The file posix_spawnp would run for name: name itself when it holds a
 * '/', else the first executable NAME in $PATH's directories. NULL when
 * there is none; caller frees. */
char *subprocess_find_program(const char *name);

/* Starts argv[0] (a path) with fd as its stdin and stdout, stderr on
 * /dev/null, signals as subprocess_spawnattr_init() leaves them. 0 with
 * *pid (the caller reaps it), or -errno. */
int subprocess_start(char *const argv[], int fd, pid_t *pid);

#endif
