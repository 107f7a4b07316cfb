/* A fault-injection seam for the few error paths that the real system
 * cannot be made to produce on demand: EIO from fsync or fdatasync, a
 * rename or a chown refused right after the create before it succeeded, a
 * thread that cannot start. Failures the real system can give are made
 * for real instead (a full tmpfs, RLIMIT_FSIZE, a read-only mount, a
 * removed directory, a file replaced); a test that uses this seam says in
 * a comment why the real thing cannot.
 *
 * The test programs that use it are linked with fault.c and with
 * -Wl,--wrap=NAME for every call fault.c wraps (fault_link_args in
 * tests/unit/meson.build), so the product's calls to NAME go to fault.c's
 * __wrap_NAME: it fails the call when armed for it and otherwise calls the
 * real NAME. Unarmed, it costs one atomic load a call. Calls from inside
 * shared libraries (libc itself, libfuse, OpenSSL) are not seen. */
#ifndef MAI_FAULT_H
#define MAI_FAULT_H

/* Makes the nth call of fn from now on (1: the next one), and the
 * times - 1 calls after it (times 0: every call until fault_clear()), fail
 * with err, returning -1 (or err itself for pthread_create). With match,
 * only calls whose path contains it count: the path argument, the name
 * joined to its directory descriptor's path for the *at calls, the path
 * of the descriptor for the descriptor calls (readlink of /proc/self/fd);
 * a match ending in '$' must end the path.
 * fn must be one of the calls fault.c wraps (the test aborts otherwise).
 * Arming replaces what was armed for fn before. */
void fault_arm(const char *fn, const char *match, unsigned nth, unsigned times, int err);
/* Disarms every call and forgets the counts. */
void fault_clear(void);
/* How many calls of fn failed by injection since fn was armed. */
unsigned fault_hits(const char *fn);

#endif
