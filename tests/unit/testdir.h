/* cmocka fixtures: each test gets its own temporary directory in *state,
 * removed with everything in it afterwards. */
#ifndef MAI_TESTDIR_H
#define MAI_TESTDIR_H

int testdir_setup(void **state);
int testdir_teardown(void **state);
/* rm -rf of one directory tree, without following symlinks. 0 or -errno. */
int testdir_remove_tree(const char *path);
/* Waits until the clock that stamps files (CLOCK_REALTIME_COARSE, at most
 * a tick behind) has passed this moment: a file written afterwards is
 * stamped later than anything done before the call. What a person who
 * reads a held result and then writes an answer does by being slow. */
void testdir_tick(void);

#endif
