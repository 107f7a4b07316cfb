#!/bin/sh
# The network allowlist mode end to end with real Docker and no internet
# (issue 9): a tiny wheel built here, a PEP 503 simple index served on
# loopback, the agent's tinyproxy on the internal sandbox network's gateway.
#  - a script with PEP 723 dependencies gets them installed through the
#    proxy, imports the package and prints from it (completed, exit 0), and
#    the wheel's sha256 is in its audit records;
#  - a host not on the allow-list is refused by the proxy (HTTP 403) and a
#    dependency from such a host fails the run with a message saying so;
#  - a direct connection that bypasses the proxy fails: to the host's
#    loopback, to a host service on another port of the network's gateway,
#    to the gateway of an ordinary (not internal) Docker network and to a
#    container on it, the last two reachable from that container (a control
#    the test starts); the proxy port on the gateway is reachable;
#  - a job does not reach another container on the sandbox network (a
#    neighbour the test starts there, which the host reaches);
#  - the agent's packet filter (iptables rules tagged with the network's
#    name) exists while it runs, is left by a crash, replaced (not doubled)
#    at the next start and removed at stop;
#  - without iptables, or without CAP_NET_ADMIN, the agent refuses to start
#    the allowlist mode and says what to do;
#  - a script with dependencies at a level whose network is none is
#    rejected, naming the setting that allows it;
#  - the proxy is restarted when it dies; network and proxy go with the agent.
# Exit 77 when Docker, the pip image or tinyproxy is missing, a failure
# instead when MAI_REQUIRE_REAL=1. MAI_ITEST_KEEP=1 keeps the temporary
# directory (agent_lib.sh).
set -u

. "$(dirname "$0")/agent_lib.sh"

SOCK=/var/run/docker.sock
HTTP_PID=
LISTEN_PID=
CONTROL=
CONTROL_NET=
NEIGHBOUR=
on_exit() {
	for p in $HTTP_PID $LISTEN_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for c in $CONTROL $NEIGHBOUR; do
		curl -s -X DELETE --unix-socket "$SOCK" "http://localhost/containers/$c?force=1" > /dev/null
	done
	[ -z "$CONTROL_NET" ] || curl -s -X DELETE --unix-socket "$SOCK" \
		"http://localhost/networks/$CONTROL_NET" > /dev/null
	# A safety net only: the proxy of the agent killed below outlives it
	# (tinyproxy changes its user, which clears PR_SET_PDEATHSIG); the
	# agent's next start stops it and the crash step checks that.
	for p in $(pgrep -f "tinyproxy -d -c $T/state/proxy/tinyproxy.conf"); do
		kill "$p" 2>/dev/null
	done
}

api() { curl -sf --unix-socket "$SOCK" "http://localhost$1"; }

require_docker "$SOCK"
api /images/mai-sandbox:latest/json > /dev/null 2>&1 ||
	skip "no mai-sandbox:latest image: run packaging/sandbox-image/build.sh"
api /images/mai-sandbox-pip:latest/json > /dev/null 2>&1 ||
	skip "no mai-sandbox-pip:latest image: run packaging/sandbox-image/build.sh --variant pip"
command -v tinyproxy > /dev/null || skip "tinyproxy is not installed: run packaging/install-deps.sh"
command -v iptables > /dev/null || skip "iptables is not installed: run packaging/install-deps.sh"
iptables -w -S INPUT > /dev/null 2>&1 || skip "iptables -S fails: the allowlist mode needs root"
# Checked above: an agent that exits 4 now failed to set up its sandbox.
DOCKER_CHECKED=1

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- a wheel (a zip with a dist-info) and a PEP 503 index of it ---
python3 "$(dirname "$0")/wheel_index.py" "$T/index" || fail "cannot build the wheel index"
WHEEL_SHA=$(cat "$T/index/wheel.sha256")
INDEX_PORT=$(free_port)
python3 -m http.server "$INDEX_PORT" --bind 127.0.0.1 --directory "$T/index" \
	> "$T/index.log" 2>&1 &
HTTP_PID=$!
i=0
until curl -sf "http://127.0.0.1:$INDEX_PORT/simple/" > /dev/null 2>&1 || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done

# --- the agent: trusted (LOW) and untrusted (HIGH let through) may fetch
#     from localhost; standard (MEDIUM) has no network ---
PROXY_PORT=$(free_port)
# root drops and approves probe.py: one account, so self-approval is on.
AGENT_SECURITY_YAML="${AGENT_SECURITY_YAML}allow_self_approval: true
"
write_agent_config "$T/drop" "$T/state" "workers: 2"
cat >> "$T/conf/sandbox.yaml" <<YAML
network:
  allowed_hosts: [localhost]
  index_url: http://localhost:$INDEX_PORT/simple
  proxy_port: $PROXY_PORT
  install_timeout: 60s
trusted:
  network: allowlist
  timeout: 60s
standard:
  timeout: 60s
untrusted:
  network: allowlist
  timeout: 60s
YAML
start_agent
# runtime auto and an allowlist level: gVisor as registered for the agent
# has no network (--network=none), so untrusted runs with runc, said as a
# warning.
if curl -s --unix-socket /var/run/docker.sock http://localhost/info | grep -q '"runsc"'; then
	[ "$(field "$T/state/status.json" runtimes.untrusted)" = runc ] ||
		fail "runtime auto with network: allowlist is not runc: $(cat "$T/state/status.json")"
	field "$T/state/status.json" warnings.0 | grep -q "network: allowlist needs the container's own network" ||
		fail "no warning that auto chose runc for the allowlist level"
fi

# The sandbox network, its bridge and its packet filter are named after the
# agent's instance (its state directory).
HASH=$(python3 -c 'import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())' "$T/state")
NET=mai-net-$(echo "$HASH" | cut -c1-12)
BRIDGE=mai-$(echo "$HASH" | cut -c1-11)
# filter_rules: the iptables rules tagged with the network's name.
filter_rules() { iptables -w -S 2>/dev/null | grep -e "--comment $NET " -e "^-N $NET\$"; }
gateway_of() {
	api "/networks/$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["IPAM"]["Config"][0]["Gateway"])'
}
filter_rules | grep -q -- "-A INPUT -i $BRIDGE -m comment --comment $NET -j $NET" ||
	fail "no INPUT rule for the bridge $BRIDGE tagged $NET while the agent runs: $(filter_rules)"

# --- host services: a listener on the sandbox network's gateway and on the
#     gateway of an ordinary network the test creates (host addresses), and
#     a control container on that network that listens and checks that it
#     reaches the host service ---
CONTROL_NET=mai-test-$(echo "$HASH" | cut -c1-12)
api_post() { # PATH [JSON-FILE]
	curl -sf --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
		--data-binary @"${2:-/dev/null}" "http://localhost$1"
}
printf '{"Name": "%s", "Driver": "bridge", "Labels": {"mai.test": "network %s"}}\n' \
	"$CONTROL_NET" "$T" > "$T/control-net.json"
api_post /networks/create "$T/control-net.json" > /dev/null ||
	fail "the control network $CONTROL_NET could not be created"
GW=$(gateway_of "$NET")
OTHER_GW=$(gateway_of "$CONTROL_NET")
HOST_PORT=$(free_port)
# free_port asks loopback, where the proxy's port (bound on the gateway only)
# is free: the listener must not take it.
while [ "$HOST_PORT" = "$PROXY_PORT" ]; do HOST_PORT=$(free_port); done
python3 - "$HOST_PORT" "$GW" "$OTHER_GW" > "$T/listener.log" 2>&1 <<'PY' &
import selectors, socket, sys
sel = selectors.DefaultSelector()
for addr in sys.argv[2:]:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(sys.argv[1])))
    s.listen(16)
    sel.register(s, selectors.EVENT_READ)
print("listening", flush=True)
while True:
    for key, _ in sel.select():
        c, peer = key.fileobj.accept()
        print("accepted", peer, flush=True)
        c.sendall(b"host service\n")
        c.close()
PY
LISTEN_PID=$!
i=0
until grep -q listening "$T/listener.log" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q listening "$T/listener.log" || fail "the host service did not start: $(cat "$T/listener.log")"
# listener_container NETWORK PRELUDE: a container on NETWORK that runs the
# python PRELUDE (with socket imported), then accepts connections on port
# 8000. Sets CID (empty when it could not be created) and CIP (its address;
# empty when it did not start).
listener_container() {
	CID=
	CIP=
	cat > "$T/container.json" <<JSON
{"Image": "mai-sandbox:latest", "Labels": {"mai.test": "network $T"},
 "Cmd": ["python3", "-c", "import socket\n$2s = socket.socket()\ns.bind(('0.0.0.0', 8000))\ns.listen(16)\nwhile True:\n    s.accept()[0].close()\n"],
 "HostConfig": {"NetworkMode": "$1"}}
JSON
	CID=$(api_post /containers/create "$T/container.json" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["Id"])')
	[ -n "$CID" ] && api_post "/containers/$CID/start" > /dev/null || return 0
	CIP=$(api "/containers/$CID/json" | python3 -c 'import json,sys
print(json.load(sys.stdin)["NetworkSettings"]["Networks"][sys.argv[1]]["IPAddress"])' "$1")
}
listener_container "$CONTROL_NET" "try:\n    print('control:', socket.create_connection(('$OTHER_GW', $HOST_PORT), timeout=5).recv(64), flush=True)\nexcept OSError as e:\n    print('control: failed', e, flush=True)\n"
CONTROL=$CID
CONTROL_IP=$CIP
if [ -z "$CONTROL_IP" ]; then
	fail "the control container on $CONTROL_NET could not be created or started"
else
	i=0
	until api "/containers/$CONTROL/logs?stdout=1" | grep -q "control:" || [ $i -ge 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	api "/containers/$CONTROL/logs?stdout=1" | grep -q "control: b'host service" ||
		fail "a normal container does not reach the host service at $OTHER_GW:$HOST_PORT (the check below would prove nothing): $(api "/containers/$CONTROL/logs?stdout=1&stderr=1")"
	python3 -c 'import socket,sys; socket.create_connection((sys.argv[1], 8000), timeout=5)' \
		"$CONTROL_IP" 2>/dev/null || fail "the control container's listener at $CONTROL_IP:8000 does not answer"
fi

# A neighbour on the sandbox network itself, listening; the host reaches it,
# a job must not (inter-container traffic is off on that network).
listener_container "$NET" ""
NEIGHBOUR=$CID
NEIGHBOUR_IP=$CIP
if [ -z "$NEIGHBOUR_IP" ]; then
	fail "the neighbour container on $NET could not be created or started"
else
	i=0
	until python3 -c 'import socket,sys; socket.create_connection((sys.argv[1], 8000), timeout=1)' \
		"$NEIGHBOUR_IP" 2>/dev/null || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -lt 100 ] || fail "the neighbour's listener at $NEIGHBOUR_IP:8000 does not answer the host (the check below would prove nothing)"
fi

drop() { # NAME: the script comes on stdin
	cat > "$T/$1.tmp"
	mv "$T/$1.tmp" "$T/drop/$1"
}

# --- dependencies installed through the proxy, imported by the script ---
drop deps_ok.py <<'PY'
# /// script
# dependencies = ["maipkg-hello==1.0"]
# ///
import maipkg_hello
print(maipkg_hello.GREETING)
PY
R=$T/drop/deps_ok.result.json
if wait_final "$R"; then
	[ "$(field "$R" state)" = completed ] || fail "deps_ok.py: state $(field "$R" state): $(field "$R" message)"
	[ "$(field "$R" exit_code)" = 0 ] || fail "deps_ok.py: exit $(field "$R" exit_code): $(field "$R" message) $(field "$R" execution.stderr.text)"
	grep -q "hello from a wheel" "$R" || fail "deps_ok.py: the package's greeting is not in its stdout"
	[ "$(field "$R" assessment.inline_metadata.dependencies.0)" = "maipkg-hello==1.0" ] ||
		fail "deps_ok.py: the assessment does not show its dependency"
	[ "$(field "$R" execution.dependencies.installed.0.name)" = maipkg-hello ] ||
		fail "deps_ok.py: execution.dependencies does not name maipkg-hello"
	[ "$(field "$R" execution.dependencies.installed.0.hashes.sha256)" = "$WHEEL_SHA" ] ||
		fail "deps_ok.py: the installed wheel's sha256 is not recorded"
	grep -q "$WHEEL_SHA" "$T/drop/deps_ok.audit" 2>/dev/null ||
		fail "deps_ok.py: the wheel's sha256 is not in its audit records (deps_ok.audit)"
fi
grep -q "GET /simple/maipkg-hello/" "$T/index.log" || fail "the index saw no request for maipkg-hello"

# --- a host not on the list: refused by the proxy, and a direct
#     connection without the proxy has no route ---
drop probe.py <<PY
import concurrent.futures, os, socket, urllib.request, urllib.error
exec(os.environ.get("MAI_PROBE_EXTRA", ""))
try:
    urllib.request.urlopen("http://127.0.0.1:$INDEX_PORT/simple/", timeout=20)
    print("unlisted: fetched")
except urllib.error.HTTPError as e:
    print("unlisted: refused", e.code)
except OSError as e:
    print("unlisted: error", e)
def direct(target):
    name, host, port = target
    try:
        socket.create_connection((host, port), timeout=3).close()
        return "direct %s: connected" % name
    except OSError as e:
        return "direct %s: failed" % name
# Side by side: a dropped connection waits out its 3 s.
with concurrent.futures.ThreadPoolExecutor(6) as pool:
    for line in pool.map(direct, (("loopback", "127.0.0.1", $INDEX_PORT),
                                  ("gateway", "$GW", $HOST_PORT),
                                  ("other gateway", "$OTHER_GW", $HOST_PORT),
                                  ("control container", "$CONTROL_IP", 8000),
                                  ("neighbour", "$NEIGHBOUR_IP", 8000),
                                  ("proxy port", "$GW", $PROXY_PORT))):
        print(line)
print("proxy:", os.environ.get("HTTP_PROXY", "none"))
PY
R=$T/drop/probe.result.json
# It runs code from the environment (MAI101): HIGH, so it waits for a user's approval
# and then runs untrusted, whose network is the allowlist; its sockets and URLs alone
# would be contained at standard (network: none) and run there.
wait_final "$R"
"$AGENT" approve --yes --reason "network probe of the test" "$T/drop/probe.py" > /dev/null 2>&1 ||
	fail "approving probe.py failed (state $(field "$R" state))"
if wait_field "$R" state completed 120; then
	out=$(field "$R" execution.stdout.text)
	echo "$out" | grep -q "unlisted: refused 403" || fail "probe.py: an unlisted host was not refused with 403: $out"
	echo "$out" | grep -q "direct loopback: failed" || fail "probe.py: the host's loopback index answered directly: $out"
	echo "$out" | grep -q "direct gateway: failed" ||
		fail "probe.py: a host service on the gateway $GW:$HOST_PORT answered directly: $out"
	echo "$out" | grep -q "direct other gateway: failed" ||
		fail "probe.py: a host service on $CONTROL_NET's gateway $OTHER_GW:$HOST_PORT answered directly: $out"
	echo "$out" | grep -q "direct control container: failed" ||
		fail "probe.py: a container on $CONTROL_NET ($CONTROL_IP:8000) answered directly: $out"
	echo "$out" | grep -q "direct neighbour: failed" ||
		fail "probe.py: a container on the sandbox network ($NEIGHBOUR_IP:8000) answered: $out"
	echo "$out" | grep -q "direct proxy port: connected" ||
		fail "probe.py: the proxy port $GW:$PROXY_PORT was not reachable: $out"
	[ "$(grep -c accepted "$T/listener.log")" = 1 ] ||
		fail "the host service saw a connection other than the control container's: $(cat "$T/listener.log")"
	echo "$out" | grep -q "proxy: http://.*:$PROXY_PORT" || fail "probe.py: HTTP_PROXY is not the agent's proxy: $out"
fi
grep -qi "filtered" "$T/state/proxy/tinyproxy.log" || fail "the proxy's log does not report the refused host"
[ "$(stat -c %a "$T/state/proxy/tinyproxy.log")" = 600 ] ||
	fail "the proxy's log (what every user's runs fetched) is $(stat -c %a "$T/state/proxy/tinyproxy.log"), not 600"
# The neighbour goes before the agent stops: the network cannot go with it.
curl -s -X DELETE --unix-socket "$SOCK" "http://localhost/containers/$NEIGHBOUR?force=1" > /dev/null
NEIGHBOUR=

# --- a dependency from an unlisted host fails the run, and says so ---
drop deps_refused.py <<PY
# /// script
# dependencies = ["maipkg-hello @ http://127.0.0.1:$INDEX_PORT/files/maipkg_hello-1.0-py3-none-any.whl"]
# ///
print("must not run")
PY
R=$T/drop/deps_refused.result.json
if wait_final "$R"; then
	[ "$(field "$R" exit_code)" = 97 ] || fail "deps_refused.py: exit $(field "$R" exit_code), expected 97 (install failed)"
	field "$R" message | grep -q "network.allowed_hosts" || fail "deps_refused.py: the message does not name network.allowed_hosts: $(field "$R" message)"
	grep -q "must not run" "$R" && fail "deps_refused.py: the script ran although its dependency was refused"
fi

# --- dependencies at a level whose network is none: rejected ---
drop deps_none.py <<'PY'
# /// script
# dependencies = ["maipkg-hello"]
# ///
import marshal, pickle
print(pickle.loads(marshal.loads(marshal.dumps(pickle.dumps(1)))))
PY
R=$T/drop/deps_none.result.json
if wait_final "$R"; then
	[ "$(field "$R" state)" = rejected ] || fail "deps_none.py: state $(field "$R" state), expected rejected"
	[ "$(field "$R" reason)" = network_required ] || fail "deps_none.py: reason $(field "$R" reason)"
	field "$R" message | grep -q "network: allowlist under standard: in config/sandbox.yaml" ||
		fail "deps_none.py: the message does not say how to allow it: $(field "$R" message)"
fi

# --- malformed TOML: rejected by tomllib's word ---
drop bad_toml.py <<'PY'
# /// script
# dependencies = ["a",
# ///
print(1)
PY
R=$T/drop/bad_toml.result.json
if wait_final "$R"; then
	[ "$(field "$R" reason)" = bad_metadata ] || fail "bad_toml.py: reason $(field "$R" reason), expected bad_metadata"
fi

# --- the proxy is restarted when it dies ---
PROXY_PID=$(pgrep -f "tinyproxy -d -c $T/state/proxy/tinyproxy.conf" | head -1)
if [ -z "$PROXY_PID" ]; then
	fail "no tinyproxy process with this test's configuration"
else
	kill -KILL "$PROXY_PID"
	i=0
	until grep -q "restarting it" "$T/agent.log" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "restarting it" "$T/agent.log" || fail "the agent did not restart the killed proxy"
	sleep 2
	sed 's/deps_ok/deps_again/' "$T/drop/deps_ok.py" | drop deps_again.py
	R=$T/drop/deps_again.result.json
	if wait_final "$R"; then
		[ "$(field "$R" exit_code)" = 0 ] || fail "after the proxy restart: exit $(field "$R" exit_code): $(field "$R" message)"
	fi
fi

# --- agent stop: proxy, network and packet filter go ---
api "/networks/$NET" > /dev/null 2>&1 || fail "the sandbox network $NET does not exist while the agent runs"
stop_agent
api "/networks/$NET" > /dev/null 2>&1 && fail "the sandbox network $NET is still there after the agent stopped"
pgrep -f "tinyproxy -d -c $T/state/proxy/tinyproxy.conf" > /dev/null && fail "tinyproxy still runs after the agent stopped"
[ -z "$(filter_rules)" ] || fail "iptables rules tagged $NET are left after the agent stopped: $(filter_rules)"
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"

# --- a crash leaves the filter and the proxy; the next start replaces
#     both, once ---
proxies() { pgrep -f "tinyproxy -d -c $T/state/proxy/tinyproxy.conf" | wc -l; }
start_agent
kill -KILL "$PID"
wait "$PID" 2>/dev/null
PID=
filter_rules | grep -q -- "-A INPUT -i $BRIDGE" || fail "no filter left after a crash (nothing to check below)"
[ "$(proxies)" = 1 ] || fail "after a crash $(proxies) tinyproxy processes run, expected the one left (nothing to check below)"
LEFT_PID=$(pgrep -f "tinyproxy -d -c $T/state/proxy/tinyproxy.conf")
start_agent
[ "$(proxies)" = 1 ] || fail "after a crash and a restart $(proxies) tinyproxy processes run with this test's configuration, expected 1"
kill -0 "$LEFT_PID" 2>/dev/null && fail "the proxy left by the crashed agent (pid $LEFT_PID) still runs after the restart"
grep -q "stopping the filtering proxy (pid $LEFT_PID) that an earlier agent left" "$T/agent.log" ||
	fail "the restarted agent does not say it stopped the proxy pid $LEFT_PID"
n=$(iptables -w -S INPUT 2>/dev/null | grep -c -- "--comment $NET ")
[ "$n" = 1 ] || fail "after a crash and a restart INPUT has $n rules tagged $NET, expected 1"
n=$(iptables -w -S "$NET" 2>/dev/null | grep -c -- "--comment $NET ")
[ "$n" = 3 ] || fail "after a crash and a restart the chain $NET has $n rules, expected 3"
stop_agent
[ -z "$(filter_rules)" ] || fail "iptables rules tagged $NET are left after the second stop: $(filter_rules)"
[ "$(proxies)" = 0 ] || fail "$(proxies) tinyproxy processes still run after the second stop"
[ ! -e "$T/state/proxy/tinyproxy.pid" ] || fail "the proxy's pid file is left after the agent stopped"

# --- no iptables, or no right to use it: the allowlist mode refuses to
#     start (iptables missing is made real with a PATH without it) ---
# refuses WHAT COMMAND...: the agent must exit non-zero, saying WHAT.
refuses() {
	what=$1
	shift
	timeout 120 "$@" run --log-file "$T/refused.log" > "$T/refused.out" 2>&1 &&
		fail "the agent started without a usable iptables ($*)"
	cat "$T/refused.log" "$T/refused.out" 2>/dev/null | grep -q "$what" ||
		fail "the refusal does not say '$what': $(tail -n 5 "$T/refused.out")"
	cat "$T/refused.log" "$T/refused.out" 2>/dev/null | grep -q "or set network: none" ||
		fail "the refusal does not say what to do: $(tail -n 5 "$T/refused.out")"
	api "/networks/$NET" > /dev/null 2>&1 && fail "the network $NET is left after a refused start ($*)"
	rm -f "$T/refused.log" "$T/refused.out"
}
mkdir -p "$T/bin-without-iptables"
ln -s "$(command -v tinyproxy)" "$T/bin-without-iptables/tinyproxy"
refuses "iptables is not installed" env PATH="$T/bin-without-iptables" "$AGENT"
if command -v setpriv > /dev/null; then
	refuses "Permission denied" setpriv --bounding-set -net_admin "$AGENT"
else
	skip_part "a start without CAP_NET_ADMIN: setpriv (util-linux) is missing"
fi

if [ $fails -ne 0 ]; then
	echo "--- proxy log (tail) ---" >&2
	tail -n 20 "$T/state/proxy/tinyproxy.log" >&2 2>/dev/null
fi
lib_finish network
