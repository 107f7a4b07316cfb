/* maiaudit MOUNTPOINT: mounts the read-only view of the audit log.
 *
 * Start-up clears a stale mount left by a maiaudit that was killed (the
 * mount point then answers "transport endpoint is not connected"), then
 * mounts read-only through libfuse (fusermount3 for a non-root user). On
 * SIGTERM, SIGINT or SIGHUP the loop ends and the mount is removed. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "macro.h"
#include "mountutil.h"
#include "view_content.h"
#include "view_fuse.h"
/* after view_fuse.h, which sets FUSE_USE_VERSION */
#include <fuse_lowlevel.h>
#include "view_log.h"
#include "view_loop.h"


enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

struct options {
	const char *config_dir;
	const char *mountpoint;
	const char *state_dir;
	const char *drop_dir;
	const char *log_dir;
	const char *pubkey;
	const char *log_file;
	bool foreground;
	bool allow_other;
	bool debug;
};

/* The paths the view serves: command line first, then the configuration. */
struct paths {
	char *mountpoint, *state_dir, *drop_dir, *log_dir, *pubkey;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: maiaudit [MOUNTPOINT] [OPTIONS]\n"
		"\n"
		"Mounts a read-only view of the Mai agent's audit log at MOUNTPOINT\n"
		"(default: mount_point in agent.yaml):\n"
		"  verify, verify.json   the log verified afresh at every open (OK or FAIL)\n"
		"  head, checkpoint      the latest record hash and signed checkpoint\n"
		"  pubkey                the public key the checkpoint is signed with\n"
		"  entries/NNNNNNNNNNNN.json   one file per record\n"
		"  runs/NAME/result.json, runs/NAME/audit   each script's latest sidecars\n"
		"  status.json           the agent's health\n"
		"  metrics               the same and the log's size and checkpoint age in the\n"
		"                        Prometheus text format\n"
		"\n"
		"Options:\n"
		"  --config-dir DIR  the agent's configuration (default $" CONFIG_DIR_ENV ",\n"
		"                    else " CONFIG_DEFAULT_DIR "); it gives the defaults below\n"
		"  --state-dir DIR   the agent's state directory (agent.yaml state_dir)\n"
		"  --drop-dir DIR    the drop directory whose sidecars runs/ shows\n"
		"                    (agent.yaml drop_dir)\n"
		"  --log-dir DIR     the audit log (audit.yaml log_dir, under the state\n"
		"                    directory unless absolute)\n"
		"  --pubkey FILE     the public key (audit.yaml public_key, else\n"
		"                    LOG_DIR/audit.pub or LOG_DIR/pubkey)\n"
		"  -f, --foreground  stay in the foreground\n"
		"  --allow-other     let other users read the view; off by default, and a\n"
		"                    non-root user needs 'user_allow_other' in /etc/fuse.conf\n"
		"  --log-file FILE   append messages to FILE (otherwise stderr, which is\n"
		"                    closed once maiaudit goes to the background)\n"
		"  --debug           log every request at debug level\n"
		"  -h, --help        this text;  -V, --version  the version\n"
		"\n"
		"Unmount with 'fusermount3 -u MOUNTPOINT' or by stopping maiaudit (SIGTERM\n"
		"or Ctrl-C). A mount left behind by a killed maiaudit is cleared at the\n"
		"next start.\n"
		"\n"
		"Exit status: 0 unmounted cleanly; 1 the mount failed; 2 bad arguments or\n"
		"an unusable mount point.\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_CONFIG = 256, OPT_STATE, OPT_DROP, OPT_LOG, OPT_PUBKEY, OPT_ALLOW, OPT_LOGFILE,
	       OPT_DEBUG };
	static const struct option longopts[] = {
		{ "config-dir", required_argument, NULL, OPT_CONFIG },
		{ "state-dir", required_argument, NULL, OPT_STATE },
		{ "drop-dir", required_argument, NULL, OPT_DROP },
		{ "log-dir", required_argument, NULL, OPT_LOG },
		{ "pubkey", required_argument, NULL, OPT_PUBKEY },
		{ "foreground", no_argument, NULL, 'f' },
		{ "allow-other", no_argument, NULL, OPT_ALLOW },
		{ "log-file", required_argument, NULL, OPT_LOGFILE },
		{ "debug", no_argument, NULL, OPT_DEBUG },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "fhV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG: o->config_dir = optarg; break;
		case OPT_STATE: o->state_dir = optarg; break;
		case OPT_DROP: o->drop_dir = optarg; break;
		case OPT_LOG: o->log_dir = optarg; break;
		case OPT_PUBKEY: o->pubkey = optarg; break;
		case 'f': o->foreground = true; break;
		case OPT_ALLOW: o->allow_other = true; break;
		case OPT_LOGFILE: o->log_file = optarg; break;
		case OPT_DEBUG: o->debug = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': printf("maiaudit %s\n", MAI_VERSION); exit(EXIT_OK);
		default:
			fprintf(stderr, "Run 'maiaudit --help' for the options.\n");
			return -EINVAL;
		}
	}
	if (optind + 1 < argc) {
		log_errorx("more than one mount point given; usage: maiaudit [MOUNTPOINT] "
			   "[OPTIONS] (see 'maiaudit --help')");
		return -EINVAL;
	}
	o->mountpoint = optind < argc ? argv[optind] : NULL;
	return 0;
}

/* Makes the mount point usable: clears a stale mount, refuses a live one. */
static int prepare_mountpoint(const char *mnt)
{
	_cleanup_free_ char *detail = NULL;
	enum mountutil_state st = mountutil_probe_clear(mnt, "a previous maiaudit", &detail);
	switch (st) {
	case MOUNTUTIL_READY:
		return 0;
	case MOUNTUTIL_MISSING:
		log_errorx("mount point %s does not exist; create it with 'mkdir -p %s'", mnt, mnt);
		return -ENOENT;
	case MOUNTUTIL_NOT_DIR:
		log_errorx("mount point %s is not a directory; give a directory", mnt);
		return -ENOTDIR;
	case MOUNTUTIL_MOUNTED:
		log_errorx("%s; unmount it first with 'fusermount3 -u %s' (or stop the maiaudit "
			   "that serves it)", detail, mnt);
		return -EBUSY;
	case MOUNTUTIL_STALE:
	case MOUNTUTIL_ERROR:
		break;
	}
	log_errorx("mount point %s is not usable: %s", mnt, detail ? detail : "unknown state");
	return -EIO;
}

/* Requests the kernel queued before the loop ended (the release of a
 * directory a reader closed just before the signal): answered before the
 * unmount, so that libfuse frees what it keeps for each open directory. A
 * handle still open then is left to the file system's destroy. */
static void drain_queued(struct fuse_session *se)
{
	struct fuse_buf buf = { 0 };
	struct pollfd pfd = { .fd = fuse_session_fd(se), .events = POLLIN };
	fuse_session_reset(se);
	for (int n = 0; n < 64 && poll(&pfd, 1, 20) == 1 && (pfd.revents & POLLIN); n++) {
		if (fuse_session_receive_buf(se, &buf) <= 0)
			break;
		fuse_session_process_buf(se, &buf);
	}
	free(buf.mem);
}

/* The view's serving threads: a slow verify holds one while the others
 * answer listings and reads. */
enum { VIEW_THREADS = 8 };

/* SIGTERM, SIGINT and SIGHUP end the loop; the handler only wakes it
 * through stop_pipe (view_loop_run() polls its read end). */
static int stop_pipe[2] = { -1, -1 };
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	int saved = errno;
	stop_signal = sig;
	if (write(stop_pipe[1], "x", 1) < 0) {
		/* full: the loop was woken already */
	}
	errno = saved;
}

/* A shell starts a background job with SIGINT ignored: then SIGINT would do
 * nothing and the user would reach for SIGKILL, leaving a stale mount.
 * Stopping on SIGINT and SIGTERM is part of the contract, so both are
 * taken whatever their disposition; SIGHUP only when not ignored (nohup).
 * A reader gone from a pipe is an error of that write, not a signal. */
static int set_stop_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_stop }, hup;
	sigemptyset(&sa.sa_mask);
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0 || sigaction(SIGINT, &sa, NULL) < 0 ||
	    sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGHUP, NULL, &hup) < 0 ||
	    (hup.sa_handler != SIG_IGN && sigaction(SIGHUP, &sa, NULL) < 0))
		return -1;
	return 0;
}

static int serve(const struct options *o, const struct paths *p, const char *mnt,
		 struct view_ctx *ctx, int logfd)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	_cleanup_free_ char *mount_opts = xasprintf(
		"ro,default_permissions,fsname=maiaudit,subtype=maiaudit%s",
		o->allow_other ? ",allow_other" : "");
	if (fuse_opt_add_arg(&args, "maiaudit") < 0 || fuse_opt_add_arg(&args, "-o") < 0 ||
	    fuse_opt_add_arg(&args, mount_opts) < 0 ||
	    (o->debug && fuse_opt_add_arg(&args, "-d") < 0))
		abort(); /* only on allocation failure */

	int ret = EXIT_RUNTIME, r;
	struct fuse *fuse = fuse_new(&args, view_fuse_ops(), sizeof(struct fuse_operations), ctx);
	if (!fuse) {
		log_errorx("cannot set up FUSE (see the message above)");
		goto out_args;
	}
	if (fuse_mount(fuse, mnt) != 0) {
		log_errorx("cannot mount on %s (see the message above); check that /dev/fuse "
			   "exists and that fusermount3 (package fuse3) is installed", mnt);
		goto out_destroy;
	}
	struct fuse_session *se = fuse_get_session(fuse);
	if (set_stop_handlers() < 0) {
		log_error("cannot install the signal handlers; unmounting %s", mnt);
		goto out_unmount;
	}
	if (fuse_daemonize(o->foreground) != 0) {
		log_errorx("cannot go to the background; unmounting %s", mnt);
		goto out_unmount;
	}
	if (logfd >= 0)
		dup2(logfd, STDERR_FILENO); /* fuse_daemonize pointed it at /dev/null */
	log_info("mounted %s read-only (log %s, state %s, drop %s)", mnt,
		 p->log_dir, p->state_dir, p->drop_dir);
	r = view_loop_run(se, VIEW_THREADS, stop_pipe[0]);
	if (stop_signal)
		log_info("stopping on %s: unmounting %s", strsignal(stop_signal), mnt);
	else if (r < 0)
		log_warnx("the FUSE loop ended with an error (%s); unmounting %s", strerror(-r),
			  mnt);
	else
		log_info("the mount went away: stopping (unmounting %s)", mnt);
	drain_queued(se);
	ret = EXIT_OK;
out_unmount:
	fuse_unmount(fuse);
out_destroy:
	fuse_destroy(fuse);
out_args:
	fuse_opt_free_args(&args);
	return ret;
}


static void paths_clear(struct paths *p)
{
	free(p->mountpoint);
	free(p->state_dir);
	free(p->drop_dir);
	free(p->log_dir);
	free(p->pubkey);
}

/* Paths in audit.yaml come resolved against the configured state
 * directory; follow --state-dir (new_state) when they were under it. */
static char *rebase(const char *path, const char *cfg_state, const char *new_state)
{
	size_t n = strlen(cfg_state);
	if (new_state && strncmp(path, cfg_state, n) == 0 && path[n] == '/')
		return xasprintf("%s%s", new_state, path + n);
	return xstrdup(path);
}

static int resolve_paths(const struct options *o, struct paths *p)
{
	_cleanup_free_ char *dir = NULL, *err = NULL;
	struct mai_config *cfg = NULL;
	if (config_dir_resolve(o->config_dir, &dir, &err) < 0 ||
	    config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return -EINVAL;
	}
	const struct config_agent *a = &cfg->agent;
	p->mountpoint = xstrdup(o->mountpoint ? o->mountpoint : a->mount_point);
	p->state_dir = xstrdup(o->state_dir ? o->state_dir : a->state_dir);
	p->drop_dir = xstrdup(o->drop_dir ? o->drop_dir : a->drop_dir);
	p->log_dir = o->log_dir ? xstrdup(o->log_dir) : rebase(cfg->audit.log_dir, a->state_dir,
								 o->state_dir);
	/* The default key is the one published next to the log, whichever
	 * name the writer used: NULL lets the view look (view_log_new). */
	_cleanup_free_ char *default_key = xasprintf("%s/audit.pub", cfg->audit.log_dir);
	const char *key = cfg->audit.public_key;
	if (o->pubkey)
		p->pubkey = xstrdup(o->pubkey);
	else if (key && key[0] && strcmp(key, default_key) != 0 && !o->log_dir)
		p->pubkey = rebase(key, a->state_dir, o->state_dir);
	config_free(cfg);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	log_init("maiaudit", LOG_LEVEL_INFO);
	/* Started by 'mai-agent run --mount' with its standard error: a
	 * reader of that which went away must not end the view unmounted. */
	signal(SIGPIPE, SIG_IGN);
	if (parse_args(argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (o.debug)
		log_set_level(LOG_LEVEL_DEBUG);

	_cleanup_close_ int logfd = -1;
	if (o.log_file) {
		logfd = open(o.log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
		if (logfd < 0) {
			log_error("cannot open the log file %s (--log-file)", o.log_file);
			return EXIT_USAGE;
		}
		dup2(logfd, STDERR_FILENO);
		log_set_timestamps(true);
	}

	struct paths p = { 0 };
	if (resolve_paths(&o, &p) < 0)
		return EXIT_USAGE;
	int ret = EXIT_USAGE;
	char *mnt = NULL;
	int r = mountutil_canonical(p.mountpoint, &mnt);
	if (r < 0) {
		log_errorx("mount point %s: its parent directory is not usable: %s; create it "
			   "or give another MOUNTPOINT", p.mountpoint, strerror(-r));
		goto out;
	}
	if (prepare_mountpoint(mnt) < 0)
		goto out;

	struct stat st;
	if (stat(p.log_dir, &st) < 0)
		log_warnx("no audit log at %s yet (%s): verify says FAIL until the agent creates "
			  "it; check --state-dir or --log-dir", p.log_dir, strerror(errno));

	struct view_ctx *ctx = view_ctx_new(view_log_new(p.log_dir, p.pubkey), p.state_dir,
					    p.drop_dir);
	ret = serve(&o, &p, mnt, ctx, logfd);
	view_ctx_free(ctx);
out:
	free(mnt);
	paths_clear(&p);
	return ret;
}
