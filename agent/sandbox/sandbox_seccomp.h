/* The seccomp profile every container is created with (HostConfig
 * SecurityOpt "seccomp=<json>"), the agent's own: built here from a table,
 * not read from a file, so that no install can lose or swap it.
 *
 * It starts from the allow-list of Docker 20.10's default profile (the
 * calls a capability-less container may make) and takes away what the
 * hostile tests found open there and what a Python script has no use for:
 *  - io_uring_setup, io_uring_enter, io_uring_register: the kernel
 *    subsystem with the most recent privilege escalations;
 *  - memfd_create: a memfd is an executable file outside the noexec /tmp
 *    and /dev/shm (execve of it ran a binary the image does not have);
 *    python3 and its standard library never create one;
 *  - socket() of any family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK
 *    with NETLINK_ROUTE (what getaddrinfo and if_nameindex use): no
 *    AF_VSOCK (it does not pass through the network namespace: on a VM it
 *    reaches the hypervisor side), no NETLINK_KOBJECT_UEVENT (the host's
 *    device events), none of the rarely used families (AF_ALG, AF_TIPC,
 *    AF_RDS, ...); socketcall, the 32-bit multiplexer that would hide the
 *    family from the filter, is not allowed at all;
 *  - ptrace and modify_ldt (Docker allows both; a script needs neither);
 *  - setrlimit, and prlimit64 but to read a limit: the limits the agent
 *    set stay as set. RLIMIT_CORE is 1, the value at which the kernel
 *    aborts a core dump to a core_pattern pipe (sandbox_core.h); a run
 *    that could lower it to 0 would have its crashes start the host's
 *    helper again.
 * userfaultfd, keyctl, add_key, request_key, bpf, perf_event_open, unshare,
 * setns, mount and the rest that Docker allows only with a capability stay
 * out: the containers have none. clone is allowed without namespace flags,
 * clone3 answers ENOSYS (glibc then uses clone), personality only with the
 * values Docker allows.
 *
 * The profile lists the native architecture alone: a call through a 32-bit
 * ABI (int 0x80 on x86-64, x32, arm on aarch64) is not allowed at all and
 * kills its caller. Listing x86 with the same table would not keep the same
 * denials: libseccomp cannot look at socketcall's arguments (they are in
 * memory), so socket()'s family filter would not hold there. */
#ifndef MAI_SANDBOX_SECCOMP_H
#define MAI_SANDBOX_SECCOMP_H

#include <stddef.h>

/* The profile as compact JSON (caller frees). */
char *sandbox_seccomp_profile(void);

/* The profile's name and version, as 'mai-agent config check' and the
 * results show it: "mai-1". */
#define SANDBOX_SECCOMP_NAME "mai-1"

/* One line for people: the name, how many calls it allows and what it
 * takes away from Docker's default (caller frees). */
char *sandbox_seccomp_describe(void);

#endif
