/* The fixture of the dropfs tests (test_dropfs.c, test_dropfs_wait.c): a
 * real FUSE mount of agent/dropfs over a temporary directory, the names it
 * reports as they reach the daemon (drop_source_process() on the test's
 * thread), the refusals it logs, and helpers to write and read through it,
 * also as another user. */
#ifndef MAI_DROPFS_FIXTURE_H
#define MAI_DROPFS_FIXTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "dropfs.h"

#define NOBODY 65534
#define MAX_GOT 64

struct got {
	char *rel;
	enum names_kind kind;
	bool taken;
	enum intake_status status;
	char *data;
	struct drop_writer writer;
};

struct fx {
	char *root, *mnt;
	int backing; /* the directory under the mount, opened before it */
	struct drop_source *src;
	struct got got[MAX_GOT];
	unsigned n;
	pthread_mutex_t lock; /* refusals and the hook come from the mount's threads */
	struct dropfs_refusal refused[16];
	char refused_rel[16][64], refused_script[16][64], refused_sha[16][65];
	struct drop_writer refused_caller[16];
	unsigned n_refused;
	/* the snapshot hook (test_no_torn_snapshot) */
	const char *hold;       /* rel whose snapshot waits */
	pthread_cond_t cond;
	bool in_snapshot, release;
};

/* The names callback of the fixture's mount: records each name in the
 * struct fx at arg. */
void on_name(void *arg, struct drop_name *n);
/* Reports what the mount queued, for up to ms (0: what is there now). */
void pump(struct fx *f, int ms);
/* Waits until n names have come (at most 5 s). */
void want_names(struct fx *f, unsigned n);
/* f's mount point/name; caller frees. */
char *at(struct fx *f, const char *name);
/* Writes name through the mount (open, write, close). */
void put(struct fx *f, const char *name, const char *text);
/* A whole file, NUL terminated; caller frees. */
char *slurp(const char *path);
/* cmocka set-ups: a mount over a fresh directory (recursive: its
 * subdirectories watched too), and its teardown. */
int mount_fx(void **state, bool recursive);
int setup(void **state);
int setup_recursive(void **state);
int teardown(void **state);
/* Runs fn(arg) in a child as uid:gid, returns its exit status. */
int as_user(uid_t uid, gid_t gid, int (*fn)(void *), void *arg);
/* This process's name, as /proc shows it. */
const char *comm(void);
/* 0 when the tests can run (root, /dev/fuse), else the exit status:
 * 77 (skip), or 1 with MAI_REQUIRE_REAL=1. */
int fx_require_fuse(void);

#endif
