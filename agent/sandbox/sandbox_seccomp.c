#include "sandbox_seccomp.h"

#include <jansson.h>
#include <string.h>

#include "hash.h"
#include "macro.h"

/* The calls allowed without a condition: Docker 20.10's unconditional
 * allow-list, less io_uring_*, memfd_create, socket and socketcall (socket
 * is allowed below by family), setrlimit and prlimit64 (allowed below to
 * read a limit). Names a libseccomp does not know for an
 * architecture are skipped by the runtime. */
static const char allowed[] =
	"_llseek _newselect "
	"accept accept4 access adjtimex alarm "
	"bind brk "
	"capget capset chdir chmod chown chown32 clock_adjtime clock_adjtime64 clock_getres "
	"clock_getres_time64 clock_gettime clock_gettime64 clock_nanosleep clock_nanosleep_time64 "
	"close close_range connect copy_file_range creat "
	"dup dup2 dup3 "
	"epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait "
	"epoll_wait_old eventfd eventfd2 execve execveat exit exit_group "
	"faccessat faccessat2 fadvise64 fadvise64_64 fallocate fanotify_mark fchdir fchmod "
	"fchmodat fchown fchown32 fchownat fcntl fcntl64 fdatasync fgetxattr flistxattr flock "
	"fork fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs fstatfs64 fsync ftruncate "
	"ftruncate64 futex futex_time64 futex_waitv futimesat "
	"get_robust_list get_thread_area getcpu getcwd getdents getdents64 getegid getegid32 "
	"geteuid geteuid32 getgid getgid32 getgroups getgroups32 getitimer getpeername getpgid "
	"getpgrp getpid getppid getpriority getrandom getresgid getresgid32 getresuid getresuid32 "
	"getrlimit getrusage getsid getsockname getsockopt gettid gettimeofday getuid getuid32 "
	"getxattr "
	"inotify_add_watch inotify_init inotify_init1 inotify_rm_watch io_cancel io_destroy "
	"io_getevents io_pgetevents io_pgetevents_time64 io_setup io_submit ioctl ioprio_get "
	"ioprio_set ipc "
	"kill "
	"landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown lchown32 "
	"lgetxattr link linkat listen listxattr llistxattr lremovexattr lseek lsetxattr lstat "
	"lstat64 "
	"madvise membarrier memfd_secret mincore mkdir mkdirat mknod mknodat mlock mlock2 "
	"mlockall mmap mmap2 mprotect mq_getsetattr mq_notify mq_open mq_timedreceive "
	"mq_timedreceive_time64 mq_timedsend mq_timedsend_time64 mq_unlink mremap msgctl msgget "
	"msgrcv msgsnd msync munlock munlockall munmap "
	"nanosleep newfstatat "
	"open openat openat2 "
	"pause pidfd_open pidfd_send_signal pipe pipe2 poll ppoll ppoll_time64 prctl pread64 "
	"preadv preadv2 process_mrelease pselect6 pselect6_time64 pwrite64 pwritev "
	"pwritev2 "
	"read readahead readlink readlinkat readv recv recvfrom recvmmsg recvmmsg_time64 recvmsg "
	"remap_file_pages removexattr rename renameat renameat2 restart_syscall rmdir rseq "
	"rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn rt_sigsuspend "
	"rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo "
	"sched_get_priority_max sched_get_priority_min sched_getaffinity sched_getattr "
	"sched_getparam sched_getscheduler sched_rr_get_interval sched_rr_get_interval_time64 "
	"sched_setaffinity sched_setattr sched_setparam sched_setscheduler sched_yield seccomp "
	"select semctl semget semop semtimedop semtimedop_time64 send sendfile sendfile64 "
	"sendmmsg sendmsg sendto set_robust_list set_thread_area set_tid_address setfsgid "
	"setfsgid32 setfsuid setfsuid32 setgid setgid32 setgroups setgroups32 setitimer setpgid "
	"setpriority setregid setregid32 setresgid setresgid32 setresuid setresuid32 setreuid "
	"setreuid32 setsid setsockopt setuid setuid32 setxattr shmat shmctl shmdt "
	"shmget shutdown sigaltstack signalfd signalfd4 sigprocmask sigreturn socketpair splice "
	"stat stat64 statfs statfs64 statx symlink symlinkat sync sync_file_range syncfs sysinfo "
	"tee tgkill time timer_create timer_delete timer_getoverrun timer_gettime timer_gettime64 "
	"timer_settime timer_settime64 timerfd_create timerfd_gettime timerfd_gettime64 "
	"timerfd_settime timerfd_settime64 times tkill truncate truncate64 "
	"ugetrlimit umask uname unlink unlinkat utime utimensat utimensat_time64 utimes "
	"vfork vmsplice "
	"wait4 waitid waitpid write writev ";

/* What is taken from Docker's default, for sandbox_seccomp_describe(). */
static const char removed[] =
	"io_uring_setup io_uring_enter io_uring_register memfd_create ptrace "
	"modify_ldt setrlimit, prlimit64 that sets a limit, socket() but AF_UNIX, AF_INET, "
	"AF_INET6, AF_NETLINK/NETLINK_ROUTE, every 32-bit call (int 0x80, x32)";

#define AF_UNIX_ 1
#define AF_INET_ 2
#define AF_INET6_ 10
#define AF_NETLINK_ 16
#define NETLINK_ROUTE_ 0
/* CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
 * CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET */
#define CLONE_NAMESPACE_FLAGS 0x7E020000
#define ENOSYS_ 38

static json_t *arg_cmp(int index, json_int_t value, const char *op)
{
	return json_pack("{s:i, s:I, s:s}", "index", index, "value", value, "op", op);
}

static json_t *rule(const char *name, json_t *args)
{
	return json_pack("{s:[s], s:s, s:o}", "names", name, "action", "SCMP_ACT_ALLOW", "args",
			 args ? args : json_array());
}

static json_t *names_array(const char *list)
{
	json_t *a = json_array();

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " ");
		if (n)
			json_array_append_new(a, json_stringn(p, n));
		p += n + (p[n] == ' ');
	}
	return a;
}

static json_t *architectures(void)
{
#if defined(__x86_64__)
	return json_pack("[s]", "SCMP_ARCH_X86_64");
#elif defined(__aarch64__)
	return json_pack("[s]", "SCMP_ARCH_AARCH64");
#else
	return json_array(); /* the native one */
#endif
}

static void add_arch_rules(json_t *rules)
{
#if defined(__x86_64__)
	json_array_append_new(rules, rule("arch_prctl", NULL));
#elif defined(__aarch64__)
	static const char *const arm[] = { "arm_fadvise64_64", "arm_sync_file_range",
					   "sync_file_range2", "breakpoint", "cacheflush",
					   "set_tls" };
	for (size_t i = 0; i < ARRAY_SIZE(arm); i++)
		json_array_append_new(rules, rule(arm[i], NULL));
#else
	(void)rules;
#endif
}

char *sandbox_seccomp_profile(void)
{
	static const json_int_t families[] = { AF_UNIX_, AF_INET_, AF_INET6_ };
	/* Docker's: Linux's default, UNAME26, ADDR_NO_RANDOMIZE, both, and the
	 * query. */
	static const json_int_t personas[] = { 0x0, 0x8, 0x20000, 0x20008, 0xffffffff };
	json_t *rules = json_array();
	json_t *p;
	char *s;

	json_array_append_new(rules, json_pack("{s:o, s:s}", "names", names_array(allowed),
					       "action", "SCMP_ACT_ALLOW"));
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		json_array_append_new(rules, rule("socket", json_pack("[o]", arg_cmp(0, families[i],
									       "SCMP_CMP_EQ"))));
	json_array_append_new(rules, rule("socket", json_pack("[o, o]",
							      arg_cmp(0, AF_NETLINK_, "SCMP_CMP_EQ"),
							      arg_cmp(2, NETLINK_ROUTE_,
								      "SCMP_CMP_EQ"))));
	for (size_t i = 0; i < ARRAY_SIZE(personas); i++)
		json_array_append_new(rules, rule("personality",
						  json_pack("[o]", arg_cmp(0, personas[i],
									   "SCMP_CMP_EQ"))));
	json_array_append_new(rules, rule("clone", json_pack("[{s:i, s:I, s:I, s:s}]", "index", 0,
							     "value",
							     (json_int_t)CLONE_NAMESPACE_FLAGS,
							     "valueTwo", (json_int_t)0, "op",
							     "SCMP_CMP_MASKED_EQ")));
	/* Reading a limit (glibc's getrlimit) but not setting one. */
	json_array_append_new(rules, rule("prlimit64", json_pack("[o]", arg_cmp(2, 0,
									  "SCMP_CMP_EQ"))));
	json_array_append_new(rules, json_pack("{s:[s], s:s, s:i}", "names", "clone3", "action",
					       "SCMP_ACT_ERRNO", "errnoRet", ENOSYS_));
	add_arch_rules(rules);
	p = json_pack("{s:s, s:o, s:o}", "defaultAction", "SCMP_ACT_ERRNO", "architectures",
		      architectures(), "syscalls", rules);
	if (!p)
		abort(); /* a json_pack format error is a programming error */
	s = json_dumps(p, JSON_COMPACT);
	json_decref(p);
	if (!s)
		abort();
	return s;
}

char *sandbox_seccomp_describe(void)
{
	_cleanup_free_ char *json = sandbox_seccomp_profile();
	json_t *names = names_array(allowed);
	char hex[65];
	size_t n = json_array_size(names);

	json_decref(names);
	hash_sha256_hex(json, strlen(json), hex);
	return xasprintf("%s (the agent's own, sha256 %.16s): %zu calls allowed as Docker 20.10's "
			 "default allows them, socket by family, clone without namespaces; "
			 "taken away: %s", SANDBOX_SECCOMP_NAME, hex, n, removed);
}
