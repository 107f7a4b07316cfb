/* cmocka fixtures: each test gets its own temporary directory in *state,
 * removed with everything in it afterwards. */
#ifndef MAI_TESTDIR_H
#define MAI_TESTDIR_H

int testdir_setup(void **state);
int testdir_teardown(void **state);
/* rm -rf of one directory tree, without following symlinks. 0 or -errno. */
int testdir_remove_tree(const char *path);

#endif
