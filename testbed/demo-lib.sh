# SPDX-License-Identifier: BSD-2-Clause
#
# What the demos (make run, run-fabric, run-netns, web) share, sourced
# by each: a scratch directory, the processes to stop, the traps that run
# the clean-up on every way out, fail and wait_for; ocs-emu started and
# its addresses read; ocsd.conf's common sections; ocsd started on
# $dir/ocsd.conf, the agents started and the wait for them.  The caller
# sets $what (its name in
# messages) and may define demo_cleanup_more (run after the processes
# are stopped, before the directory goes).

dir=$(mktemp -d "${TMPDIR:-/tmp}/ocs-demo.XXXXXX") || exit 1
pids=
cleanup() {
	trap '' HUP INT PIPE TERM # nothing may cut the clean-up short
	for p in $pids; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	command -v demo_cleanup_more >/dev/null && demo_cleanup_more
	rm -rf "$dir"
}
# Every way out runs cleanup: a signal the shell does not trap would end
# it without the EXIT trap (the reader of our output gone, as with
# "make run | head", is SIGPIPE; a closed terminal is SIGHUP).
trap cleanup EXIT
trap 'echo "$what: interrupted" >&2; exit 130' INT
trap 'exit 129' HUP
trap 'exit 141' PIPE
trap 'exit 143' TERM

fail() {
	echo "$what: $*" >&2
	for f in "$dir"/*.log; do
		[ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 8 "$f"; } >&2
	done
	exit 1
}

# Wait up to $2 tenths of a second for command $1 to succeed.
wait_for() {
	i=0
	while ! sh -c "$1" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -ge "$2" ] && return 1
		sleep 0.1
	done
	return 0
}

head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secret"
chmod 600 "$dir/secret"

ctl() { "$BIN/ocsctl" -s "ipc://$dir/ctl.sock" "$@"; }

# ocsd on $dir/ocsd.conf (checked first), until it has reached $1
# switches (1 if not given).
demo_ocsd() {
	"$BIN/ocsd" -n -f "$dir/ocsd.conf" 2>"$dir/check.log" ||
		fail "ocsd rejected the generated configuration"
	"$BIN/ocsd" -d -f "$dir/ocsd.conf" 2>"$dir/ocsd.log" &
	pids="$pids $!"
	wait_for "test \$($BIN/ocsctl -s ipc://$dir/ctl.sock -br status | \
		grep -c connected) -ge ${1:-1}" 50 ||
		fail "ocsd did not reach its switch(es)"
}

# Until every one of the $NODES agents is idle.
demo_agents_idle() {
	wait_for "test \$($BIN/ocsctl -s ipc://$dir/ctl.sock agents | \
		grep -c idle) -eq $NODES" 100 || fail "the agents did not all join"
}

# A fabric's cabling: host h's .0 on switch A and .1 on B, port h + 1,
# egress $1 (the ingress count) further.
demo_fabric_cabling() {
	printf '[cabling]\n'
	h=0
	while [ "$h" -lt "$NODES" ]; do
		printf 'h%02d.0 = A %d %d\n' "$h" $((h + 1)) $((h + 1 + $1))
		printf 'h%02d.1 = B %d %d\n' "$h" $((h + 1)) $((h + 1 + $1))
		h=$((h + 1))
	done
}

# ocs-emu started with the arguments after $2, its output in
# $dir/emu$1.out ($1 "" or "-a", ...), until it has printed its $2 line
# (the last face it opens).
demo_emu() {
	_n=$1 _last=$2
	shift 2
	"$BIN/ocs-emu" "$@" >"$dir/emu$_n.out" 2>"$dir/emu$_n.log" &
	pids="$pids $!"
	wait_for "grep -q '^ocs-emu: $_last ' $dir/emu$_n.out" 50 ||
		fail "ocs-emu$_n did not start"
}

# The address ocs-emu $1 (as in demo_emu) printed for its face $2.
demo_emu_addr() { sed -n "s/^ocs-emu: $2 //p" "$dir/emu$1.out"; }

# A switch section ([switch $1], or [switch] if $1 is empty): driver $2
# at $3, ocs-emu's root user, 1 ms switching; with $4 "nopoll" never
# probed, so that a demo's output is only its runs.
demo_conf_switch() {
	printf '[switch%s]\ndriver = %s\naddress = %s\n' "${1:+ $1}" "$2" "$3"
	printf 'user = root\npassword = root\nswitch_time = 1ms\n'
	[ "${4:-}" = nopoll ] && printf 'poll = 0\n'
	return 0
}

# ocsd's own sections: its control socket, state and the agents' join,
# all in $dir.
demo_conf_daemon() {
	printf '[control]\nlisten = ipc://%s/ctl.sock\n' "$dir"
	printf '[state]\ndir = %s/state\n' "$dir"
	printf '[agents]\nlisten = ipc://%s/agents.sock\n' "$dir"
	printf 'secret_file = %s/secret\nheartbeat = 1s\n' "$dir"
}

# The payload rate of fibres at $1 (100Mbps ...): 97% of it, what
# ocs-sweep --calibrate --local measured of a fibre's rate (framing).
demo_payload_rate() {
	awk -v r="$1" 'BEGIN { sub(/bps$/, "", r); u = 1;
		if (r ~ /G$/) u = 1e9; else if (r ~ /M$/) u = 1e6;
		else if (r ~ /K$/) u = 1e3; sub(/[GMK]$/, "", r);
		printf "%.0fbps", r * u * 0.97 }'
}

# One switch's cabling: host h's .0 at ingress 2h + 1 and .1 at 2h + 2,
# their egress $1 (the ingress count) further.
demo_cabling() {
	printf '[cabling]\n'
	h=0
	while [ "$h" -lt "$NODES" ]; do
		printf 'h%02d.0 = %d %d\n' "$h" $((2 * h + 1)) \
			$((2 * h + 1 + $1))
		printf 'h%02d.1 = %d %d\n' "$h" $((2 * h + 2)) \
			$((2 * h + 2 + $1))
		h=$((h + 1))
	done
}

# The $NODES agents h00 ..., each with the arguments after $1; in the
# network namespace $1-hNN when $1 is not empty.
demo_agents() {
	_ns=$1
	shift
	h=0
	while [ "$h" -lt "$NODES" ]; do
		host=$(printf 'h%02d' "$h")
		# Unquoted: no words at all without a namespace.
		_in=
		[ -n "$_ns" ] && _in="ip netns exec $_ns-$host"
		$_in "$BIN/ocs-agent" --controller "ipc://$dir/agents.sock" \
			--host "$host" --secret-file "$dir/secret" "$@" \
			2>"$dir/agent-$host.log" &
		pids="$pids $!"
		h=$((h + 1))
	done
}

# ocsctl run with these arguments: its report printed (and kept in
# $dir/run.out), its verified blocks added to $total; a run that fails or
# does not verify every block ends the demo.
total=0
demo_run() {
	ctl run "$@" >"$dir/run.out" 2>&1 ||
		{ cat "$dir/run.out"; fail "the run $* failed"; }
	cat "$dir/run.out"
	echo
	v=$(sed -n 's/^verified: \([0-9]*\) blocks, 0 errors$/\1/p' \
		"$dir/run.out")
	[ -n "$v" ] || fail "the run $* did not verify"
	total=$((total + v))
}
