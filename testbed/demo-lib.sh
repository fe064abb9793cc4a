# SPDX-License-Identifier: BSD-2-Clause
#
# What the demos (make run, run-fabric, run-netns, web) share, sourced
# by each: a scratch directory, the processes to stop, the traps that run
# the clean-up on every way out, fail and wait_for; ocsd started on
# $dir/ocsd.conf and the wait for its agents.  The caller sets $what (its name in
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
