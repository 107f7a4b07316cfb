# Sourced by the Swarm tests (swarm.sh) and bench_swarm.sh: a real
# three-node Docker Swarm on this machine, made and unmade by the test.
#
# Each node is its own dockerd (with its own containerd) in a network
# namespace the test creates, entered with nsenter --net (not ip netns
# exec, which remounts /sys and hides the cgroups), with its own data root,
# exec root, socket, pidfile and cgroup parent. The nodes reach one another
# through veth pairs on a bridge inside a fourth namespace (the hub), so
# nothing is added to the host's own namespace, and nothing of theirs has a
# route out. The shared engine is never touched.
#
#   node 1: the manager, label mai.trust=trusted   (runc), hostname maisw-n1
#   node 2: a worker,    label mai.trust=standard  (runc)
#   node 3: a worker,    label mai.trust=untrusted (runsc as dockerd's
#           default runtime)
# Every node has no-new-privileges set daemon-wide and the agent's own
# seccomp profile ('mai-agent config seccomp') as its default (API 1.41 can
# ask for neither per service), as docs/SCALING.md prepares nodes.
# SW_RUNSC_NODE=0 leaves node 3 on runc too (the benchmark's nodes). The
# nodes also have the pip image (MAI_SANDBOX_PIP_IMAGE), which the hostile
# set and network: allowlist levels run in (the manager's engine is asked
# for it too), and the filtering proxy's image (build.sh --variant proxy).
#
# The data roots are kept under /var/cache/mai/swarm (images loaded once,
# not at every run) while this run holds its lock; a run that finds the
# lock taken (another run of the suite at the same time) uses data roots in
# its temporary directory and loads the images itself. The swarm itself is
# made afresh each time (the old swarm state is removed before a node
# starts).
#
# Node 1 also listens on tcp://192.168.213.11:2376 with mutual TLS
# (--tlsverify), with a CA, server and client certificates made here with
# openssl; a fifth namespace, the client (192.168.213.20), reaches it, so
# that an agent run there (sw_in_client) uses it as a remote engine.
#
# Needs: root, ip, nsenter, unshare, dockerd, openssl, the cached sandbox
# root filesystems (packaging/sandbox-image/build.sh, also --variant pip
# and --variant proxy),
# $AGENT (the mai-agent binary). Sets SW_SOCK1..3 (the
# nodes' sockets), SW_NODE_ID1..3, SW_TLS (the directory with ca.pem,
# cert.pem and key.pem of the client). swarm_down undoes everything (call
# it from on_exit).

SW_SUF=$$$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
SW_SUF=$(printf '%s' "$SW_SUF" | tail -c 7)
SW_RUN=/run/maisw-$SW_SUF   # exec roots, sockets, pidfiles: short paths
SW_SHM=/dev/shm/maisw-$SW_SUF # the nodes' state of this run (swarm_up)
SW_CACHE=/var/cache/mai/swarm
SW_NET=192.168.213
SW_PIDS=
SW_DATA=

sw_ns() { echo "maisw$SW_SUF-$1"; }

# sw_docker N ARGS...: the docker CLI against node N (the test's own tool;
# the agent never runs it).
sw_docker() {
	n=$1
	shift
	docker -H "unix://$SW_RUN/n$n.sock" "$@"
}

# sw_tls DIR: a CA, a server certificate for node 1's address and a client
# certificate (ca.pem, cert.pem, key.pem as the Docker client names them),
# and another CA that signed neither (other-ca.pem). ECDSA P-256 keys: four
# RSA 2048 keys took seconds of CPU on a loaded machine.
sw_tls() {
	d=$1
	k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1'
	mkdir -p "$d" && cd "$d" || return 1
	{
		openssl req -x509 $k -nodes -days 1 -subj /CN=mai-test-ca \
			-keyout ca-key.pem -out ca.pem &&
		openssl req $k -nodes -subj /CN=maisw-n1 -keyout server-key.pem \
			-out server.csr &&
		printf 'subjectAltName=IP:%s.11\nextendedKeyUsage=serverAuth\n' "$SW_NET" > server.ext &&
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
			-days 1 -extfile server.ext -out server.pem &&
		openssl req $k -nodes -subj /CN=mai-agent -keyout key.pem -out client.csr &&
		printf 'extendedKeyUsage=clientAuth\n' > client.ext &&
		openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
			-days 1 -extfile client.ext -out cert.pem &&
		openssl req -x509 $k -nodes -days 1 -subj /CN=another-ca \
			-keyout other-ca-key.pem -out other-ca.pem
	} > tls.log 2>&1
	rc=$?
	cd - > /dev/null
	return $rc
}

# sw_in_client CMD...: CMD in the client namespace (192.168.213.20), which
# reaches the nodes only through the hub.
sw_in_client() {
	nsenter --net="/run/netns/$(sw_ns c)" "$@"
}

sw_wait_ping() {
	i=0
	until curl -sf --unix-socket "$SW_RUN/n$1.sock" http://localhost/_ping > /dev/null 2>&1; do
		[ $i -ge 600 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# sw_sweep_stale: the swarms of runs that were killed before their
# swarm_down (a test's timeout): their owner process is gone.
sw_sweep_stale() {
	for d in /run/maisw-*; do
		[ -d "$d" ] || continue
		owner=$(cat "$d/owner" 2>/dev/null)
		[ -n "$owner" ] && kill -0 "$owner" 2>/dev/null && continue
		(
			SW_SUF=${d#/run/maisw-}
			SW_RUN=$d
			SW_DATA=$(cat "$d/data" 2>/dev/null || echo /nonexistent)
			swarm_down
		)
	done
}

swarm_up() {
	BUILD_SH=${MAI_SOURCE_ROOT:?}/packaging/sandbox-image/build.sh
	command -v dockerd > /dev/null || return 1
	sw_sweep_stale
	mkdir -p "$SW_RUN" "$SW_CACHE"
	echo $$ > "$SW_RUN/owner"
	# The cache's lock, held on fd 8 for this whole run.
	exec 8> "$SW_CACHE/lock"
	if flock -n 8; then
		SW_DATA=$SW_CACHE
	else
		SW_DATA=$T/swarm-data
	fi
	echo "$SW_DATA" > "$SW_RUN/data"
	SW_TLS=$SW_RUN/tls
	sw_tls "$SW_TLS" || { cat "$SW_TLS/tls.log" >&2; return 1; }
	"$AGENT" config seccomp > "$SW_RUN/seccomp.json" || return 1
	ip netns add "$(sw_ns h)" || return 1
	ip -n "$(sw_ns h)" link add br0 type bridge
	ip -n "$(sw_ns h)" link set br0 up
	ip netns add "$(sw_ns c)" || return 1
	ip link add "msw${SW_SUF}ac" type veth peer name "msw${SW_SUF}bc" || return 1
	ip link set "msw${SW_SUF}ac" netns "$(sw_ns c)"
	ip link set "msw${SW_SUF}bc" netns "$(sw_ns h)"
	ip -n "$(sw_ns c)" link set "msw${SW_SUF}ac" name eth0
	ip -n "$(sw_ns c)" addr add "$SW_NET.20/24" dev eth0
	ip -n "$(sw_ns c)" link set eth0 up
	ip -n "$(sw_ns c)" link set lo up
	ip -n "$(sw_ns h)" link set "msw${SW_SUF}bc" master br0 up
	for n in 1 2 3; do
		ns=$(sw_ns "$n")
		ip netns add "$ns" || return 1
		ip link add "msw${SW_SUF}a$n" type veth peer name "msw${SW_SUF}b$n" || return 1
		ip link set "msw${SW_SUF}a$n" netns "$ns"
		ip link set "msw${SW_SUF}b$n" netns "$(sw_ns h)"
		ip -n "$ns" link set "msw${SW_SUF}a$n" name eth0
		ip -n "$ns" addr add "$SW_NET.1$n/24" dev eth0
		ip -n "$ns" link set eth0 up
		ip -n "$ns" link set lo up
		ip -n "$(sw_ns h)" link set "msw${SW_SUF}b$n" master br0 up
		mkdir -p "$SW_DATA/n$n"
		# A fresh swarm each time: the old one's state would name nodes
		# and addresses of another run. What a node writes at every run
		# (the raft log, the networks' and containers' state and logs,
		# each synced to disk) goes to memory when /dev/shm is a tmpfs:
		# only the images stay in the data root.
		rm -rf "$SW_DATA/n$n/swarm" "$SW_DATA/n$n/network" "$SW_DATA/n$n/containers"
		if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
			for d in swarm network containers; do
				mkdir -p "$SW_SHM/n$n/$d"
				ln -s "$SW_SHM/n$n/$d" "$SW_DATA/n$n/$d"
			done
		fi
		if [ "$n" = 3 ] && [ "${SW_RUNSC_NODE:-1}" = 1 ]; then
			printf '{"no-new-privileges": true, "seccomp-profile": "%s", "default-runtime": "runsc", "runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--network=none"]}}}\n' \
				"$SW_RUN/seccomp.json" "$(command -v runsc)" > "$SW_RUN/n$n.json"
		else
			printf '{"no-new-privileges": true, "seccomp-profile": "%s"}\n' \
				"$SW_RUN/seccomp.json" > "$SW_RUN/n$n.json"
		fi
		tcp=
		[ "$n" = 1 ] && tcp="--host tcp://$SW_NET.11:2376 --tlsverify --tlscacert $SW_TLS/ca.pem --tlscert $SW_TLS/server.pem --tlskey $SW_TLS/server-key.pem"
		# Its own UTS namespace too: each node has its own hostname,
		# which results and audit records name.
		# DOCKER_SERVICE_PREFER_OFFLINE_IMAGE: a task uses the node's own
		# image and never asks a registry for a newer one
		# (docs/SCALING.md, node preparation).
		DOCKER_SERVICE_PREFER_OFFLINE_IMAGE=1 \
			unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' sh "maisw-n$n" \
			nsenter --net="/run/netns/$ns" dockerd --config-file "$SW_RUN/n$n.json" \
			--host "unix://$SW_RUN/n$n.sock" --data-root "$SW_DATA/n$n" \
			--exec-root "$SW_RUN/e$n" --pidfile "$SW_RUN/n$n.pid" \
			--cgroup-parent "/maisw-$SW_SUF-n$n" --log-level ${SW_LOGLEVEL:-warn} \
			--shutdown-timeout=1 $tcp > "$SW_RUN/n$n.log" 2>&1 &
		SW_PIDS="$SW_PIDS $!"
	done
	for n in 1 2 3; do
		sw_wait_ping "$n" || { tail -20 "$SW_RUN/n$n.log" >&2; return 1; }
	done
	# The images, without a registry: from the cached root filesystem
	# tarball (nothing to do when the node's data root has them). (The
	# containers an earlier run's nodes left are gone with their state.)
	bpids=
	for n in 1 2 3; do
		{
				DOCKER_SOCKET="$SW_RUN/n$n.sock" "$BUILD_SH" &&
				DOCKER_SOCKET="$SW_RUN/n$n.sock" "$BUILD_SH" --variant pip &&
				DOCKER_SOCKET="$SW_RUN/n$n.sock" "$BUILD_SH" --variant proxy
		} > "$SW_RUN/build$n.log" 2>&1 &
		bpids="$bpids $!"
	done
	for p in $bpids; do
		wait "$p"
	done
	for n in 1 2 3; do
		sw_docker "$n" image inspect mai-sandbox:latest > /dev/null 2>&1 &&
			sw_docker "$n" image inspect mai-sandbox-pip:latest > /dev/null 2>&1 &&
			sw_docker "$n" image inspect mai-sandbox-proxy:latest > /dev/null 2>&1 ||
			{ cat "$SW_RUN/build$n.log" >&2; return 1; }
	done
	# The default heartbeat (5 s): a node is seen down after missing it
	# for a few periods, and a node's dockerd on a loaded machine can be
	# that late with a shorter one (with 1 s, runs were lost to nodes that
	# were only slow). The failure checks shorten it (sw_fast_heartbeat).
	sw_docker 1 swarm init --advertise-addr "$SW_NET.11" --listen-addr "$SW_NET.11:2377" \
		> /dev/null ||
		return 1
	token=$(sw_docker 1 swarm join-token -q worker) || return 1
	for n in 2 3; do
		sw_docker "$n" swarm join --advertise-addr "$SW_NET.1$n" --listen-addr "$SW_NET.1$n:2377" \
			--token "$token" "$SW_NET.11:2377" > /dev/null || return 1
	done
	for n in 1 2 3; do
		eval "SW_NODE_ID$n=\$(sw_docker $n info --format '{{.Swarm.NodeID}}')"
	done
	sw_docker 1 node update --label-add mai.trust=trusted "$SW_NODE_ID1" > /dev/null &&
		sw_docker 1 node update --label-add mai.trust=standard "$SW_NODE_ID2" > /dev/null &&
		sw_docker 1 node update --label-add mai.trust=untrusted "$SW_NODE_ID3" > /dev/null ||
		return 1
	# Until the manager sees all three ready.
	i=0
	while [ "$(sw_docker 1 node ls --format '{{.Status}}' | grep -c Ready)" -lt 3 ]; do
		[ $i -ge 300 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	SW_SOCK1=$SW_RUN/n1.sock
	SW_SOCK2=$SW_RUN/n2.sock
	SW_SOCK3=$SW_RUN/n3.sock
}

# sw_fast_heartbeat: a heartbeat of 1 s from now on, so that a node that
# dies is seen down in seconds. Each node has it from its next heartbeat
# (within 5 s); one that dies before is seen down a few periods of 5 s
# later instead.
sw_fast_heartbeat() {
	sw_docker 1 swarm update --dispatcher-heartbeat 1s > /dev/null
}

# sw_node_stop N [SIGNAL]: stops node N's dockerd (and its containerd) and
# waits for it.
sw_node_stop() {
	pid=$(cat "$SW_RUN/n$1.pid" 2>/dev/null) || return 0
	cpid=$(cat "$SW_RUN/e$1/containerd/containerd.pid" 2>/dev/null)
	kill "-${2:-TERM}" "$pid" $cpid 2>/dev/null
	# Until it has ended: a dockerd this shell started stays a zombie
	# until the shell waits for it, which a subshell cannot.
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ] &&
		[ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL "$pid" 2>/dev/null
	rm -f "$SW_RUN/n$1.pid"
}

# The processes that outlive a dockerd (containerd-shims, their
# containers) name its exec root on their command line or sit in its
# cgroup parent.
sw_leftover_pids() {
	for p in /proc/[0-9]*; do
		cmd=$({ tr '\0' ' ' < "$p/cmdline"; } 2>/dev/null) || continue
		case "$cmd" in
		*"$SW_RUN/"*) echo "${p#/proc/}" ;;
		esac
	done
	for c in /sys/fs/cgroup/*/maisw-"$SW_SUF"-n* /sys/fs/cgroup/maisw-"$SW_SUF"-n*; do
		[ -d "$c" ] && find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null
	done
}

swarm_down() {
	[ -n "$SW_SUF" ] || return 0
	# All three at once, with SIGKILL: a manager's dockerd took up to 10 s
	# to leave on SIGTERM, and nothing of the swarm is kept (its state is
	# removed below; the images in a cached data root are written before
	# any run, and the containers left are pruned at the next start).
	stops=
	for n in 1 2 3; do
		sw_node_stop "$n" KILL &
		stops="$stops $!"
	done
	for p in $stops; do
		wait "$p"
	done
	for p in $SW_PIDS; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	i=0
	while [ -n "$(sw_leftover_pids)" ] && [ $i -lt 5 ]; do
		sw_leftover_pids | xargs -r kill -KILL 2>/dev/null
		sleep 0.2
		i=$((i + 1))
	done
	# Mounts under the run and data roots and the state in memory (overlay,
	# netns, shm), deepest first.
	awk -v r="$SW_RUN/" -v d="$SW_DATA/" -v m="/dev/shm/maisw-$SW_SUF/" \
		'index($2, r) == 1 || index($2, m) == 1 || (d != "/" && index($2, d) == 1) { print $2 }' \
		/proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
	for c in /sys/fs/cgroup/*/maisw-"$SW_SUF"-n* /sys/fs/cgroup/maisw-"$SW_SUF"-n*; do
		[ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	for n in c h 1 2 3; do
		ip netns del "$(sw_ns "$n")" 2>/dev/null
	done
	rm -rf "$SW_RUN" "/dev/shm/maisw-$SW_SUF"
	[ "$SW_DATA" = "$SW_CACHE" ] && rm -rf "$SW_DATA"/n?/swarm "$SW_DATA"/n?/network "$SW_DATA"/n?/containers
	exec 8>&-
	SW_SUF=
}
