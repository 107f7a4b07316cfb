#!/usr/bin/env bash
# Makes sure a Docker engine answers on its Unix socket. Idempotent:
#  - installs docker.io when dockerd is missing (apt-get, as root);
#  - when no engine answers GET /_ping, starts dockerd in the background (no
#    systemd on these machines), its output going to a log file and never to
#    this script's stdout/stderr (a CI runner would wait on the open pipe);
#  - records the pid of a dockerd it started in the pid file, so that the
#    caller can stop exactly that one afterwards;
#  - waits for /_ping with a timeout and names the log file on failure;
#  - registers gVisor's runsc (when installed) as the Docker runtime "runsc"
#    in /etc/docker/daemon.json, with its own network stack off
#    (--network=none), and makes a running dockerd reload it (SIGHUP).
#
# Usage: ensure-docker.sh [--pid-file FILE]
#        ensure-docker.sh --stop-if-started [--pid-file FILE]
# Environment: DOCKER_SOCKET (default /var/run/docker.sock),
#              MAI_DOCKERD_LOG (default /var/log/mai/dockerd.log),
#              MAI_DOCKER_WAIT (seconds, default 60).
set -euo pipefail

socket=${DOCKER_SOCKET:-/var/run/docker.sock}
log=${MAI_DOCKERD_LOG:-/var/log/mai/dockerd.log}
wait_s=${MAI_DOCKER_WAIT:-60}
pid_file=/run/mai/dockerd.pid
mode=ensure

while [ $# -gt 0 ]; do
	case $1 in
	--pid-file) pid_file=$2; shift 2 ;;
	--stop-if-started) mode=stop; shift ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ensure-docker.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
done

ping() {
	[ -S "$socket" ] &&
	[ "$(curl -s --max-time 3 --unix-socket "$socket" http://docker/_ping 2>/dev/null)" = OK ]
}

# Adds runsc to daemon.json's "runtimes", keeping every other setting; prints
# "changed" when the file was written.
register_runsc() {
	command -v runsc >/dev/null || return 0
	[ "$(id -u)" -eq 0 ] || return 0
	mkdir -p /etc/docker
	python3 - "$(command -v runsc)" /etc/docker/daemon.json <<'PY'
import json, os, sys
path, conf = sys.argv[1], sys.argv[2]
try:
    with open(conf) as f:
        cfg = json.load(f)
except FileNotFoundError:
    cfg = {}
except ValueError as e:
    sys.exit("ensure-docker.sh: %s is not valid JSON (%s); fix or remove it" % (conf, e))
want = {"path": path, "runtimeArgs": ["--network=none"]}
if cfg.get("runtimes", {}).get("runsc") != want:
    cfg.setdefault("runtimes", {})["runsc"] = want
    tmp = conf + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    os.replace(tmp, conf)
    print("changed")
PY
}

if [ "$mode" = stop ]; then
	[ -s "$pid_file" ] || exit 0
	pid=$(cat "$pid_file")
	rm -f "$pid_file"
	# Only a dockerd that this script started, and only if it still is one.
	if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
		echo "ensure-docker.sh: stopping the dockerd it started (pid $pid)"
		kill -TERM "$pid"
		for _ in $(seq 1 40); do
			kill -0 "$pid" 2>/dev/null || exit 0
			sleep 0.5
		done
		echo "ensure-docker.sh: dockerd (pid $pid) did not stop in 20 s; sending SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	exit 0
fi

runsc_changed=$(register_runsc)
if ping; then
	echo "ensure-docker.sh: Docker answers at unix://$socket"
	if [ "$runsc_changed" = changed ]; then
		# dockerd rereads its runtimes on SIGHUP; running containers are untouched.
		echo "ensure-docker.sh: registered the gVisor runtime runsc in /etc/docker/daemon.json; reloading dockerd"
		pkill -HUP -x dockerd || true
		sleep 1
	fi
	exit 0
fi

if ! command -v dockerd >/dev/null; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "ensure-docker.sh: dockerd is missing; run as root to install docker.io" >&2
		exit 1
	fi
	echo "ensure-docker.sh: installing docker.io"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -q
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends docker.io
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "ensure-docker.sh: no Docker engine answers at unix://$socket and starting dockerd needs root" >&2
	exit 1
fi

mkdir -p "$(dirname "$log")" "$(dirname "$pid_file")"
echo "ensure-docker.sh: no engine answers at unix://$socket; starting dockerd (log: $log)"
# setsid: dockerd must not receive the terminal's or the CI job's signals, and
# its standard streams go to the log file only.
setsid dockerd --host "unix://$socket" </dev/null >>"$log" 2>&1 &
pid=$!
echo "$pid" > "$pid_file"

for _ in $(seq 1 $((wait_s * 2))); do
	if ping; then
		echo "ensure-docker.sh: Docker is up (dockerd pid $pid)"
		exit 0
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		rm -f "$pid_file"
		echo "ensure-docker.sh: dockerd exited during start-up; see $log (last lines below)" >&2
		tail -n 15 "$log" >&2 || true
		exit 1
	fi
	sleep 0.5
done
echo "ensure-docker.sh: dockerd (pid $pid) did not answer /_ping at unix://$socket within ${wait_s} s; see $log" >&2
exit 1
