#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make web: the demo testbed of make run (ocs-emu, ocsd driving it over
# TL1, 9 agents, fibres at 100 Mbps) with ocs-web beside ocsd, its URL
# printed, a collective every few seconds so there is something to watch
# (ReTri, Bridge, the static ring in turn), and a sweep (the ReTri
# paper's model sweeps) and a plan for the Plans and sweeps page.  Runs
# until Ctrl-C; everything is stopped and the scratch directory removed
# on every way out.
#
# usage: run-web.sh BINDIR [NODES]; OCS_WEB_PORT (default 8080, 0: any),
# OCS_WEB_EVERY (seconds between runs, default 5).

set -u
BIN=${1:-bin}
NODES=${2:-9}
PORT=${OCS_WEB_PORT:-8080}
EVERY=${OCS_WEB_EVERY:-5}
what="make web"
. "$(dirname "$0")/demo-lib.sh"

ports=$((2 * NODES + 2))
"$BIN/ocs-emu" --tl1 127.0.0.1:0 --fibre 127.0.0.1:0 --ports "$ports" \
	--switch-time 1ms --rate 100Mbps >"$dir/emu.out" 2>"$dir/emu.log" &
pids="$pids $!"
wait_for "grep -q fibre $dir/emu.out" 50 || fail "ocs-emu did not start"
tl1=$(sed -n 's/^ocs-emu: tl1 //p' "$dir/emu.out")
fibre=$(sed -n 's/^ocs-emu: fibre //p' "$dir/emu.out")
{
	printf '[switch]\ndriver = polatis\naddress = %s\n' "$tl1"
	printf 'user = root\npassword = root\nswitch_time = 1ms\n'
	printf '[control]\nlisten = ipc://%s/ctl.sock\n' "$dir"
	printf '[state]\ndir = %s/state\n' "$dir"
	printf '[agents]\nlisten = ipc://%s/agents.sock\n' "$dir"
	printf 'secret_file = %s/secret\nheartbeat = 1s\n' "$dir"
	printf '[run]\nbandwidth = 97Mbps\nalpha_s = 1.5ms\nalpha_h = 0\n'
	printf 'reconf_overhead = 560us\n[cabling]\n'
	h=0
	while [ "$h" -lt "$NODES" ]; do
		printf 'h%02d.0 = %d %d\n' "$h" $((2 * h + 1)) \
			$((2 * h + 1 + ports))
		printf 'h%02d.1 = %d %d\n' "$h" $((2 * h + 2)) \
			$((2 * h + 2 + ports))
		h=$((h + 1))
	done
} >"$dir/ocsd.conf"
demo_ocsd
h=0
while [ "$h" -lt "$NODES" ]; do
	host=$(printf 'h%02d' "$h")
	"$BIN/ocs-agent" --controller "ipc://$dir/agents.sock" --host "$host" \
		--secret-file "$dir/secret" --fibre "$fibre" \
		2>"$dir/agent-$host.log" &
	pids="$pids $!"
	h=$((h + 1))
done
demo_agents_idle

# Something for the Plans and sweeps page: the paper's model sweeps and
# the plan of ReTri on these hosts.
"$BIN/ocs-sweep" --preset retri-paper --out "$dir/sweep" >"$dir/sweep.log" \
	2>&1 || fail "ocs-sweep failed"
"$BIN/ocs-plan" --algo retri --nodes "$NODES" --json --phases \
	>"$dir/plan-retri.json" || fail "ocs-plan failed"
"$BIN/ocs-plan" --algo bridge --nodes "$NODES" --json --phases \
	>"$dir/plan-bridge.json" || fail "ocs-plan failed"
ctl connect h00.0 h01.0 >/dev/null

"$BIN/ocs-web" -s "ipc://$dir/ctl.sock" -l "127.0.0.1:$PORT" \
	--sweep "$dir/sweep" --plan "$dir/plan-retri.json" \
	--plan "$dir/plan-bridge.json" >"$dir/web.out" 2>"$dir/web.log" &
pids="$pids $!"
wait_for "grep -q '^ocs-web: ' $dir/web.out" 50 ||
	fail "ocs-web did not start (is port $PORT taken? OCS_WEB_PORT=0)"
echo "make web: $NODES agents on ocs-emu, ocsd and ocs-web:"
echo "          open $(sed -n 's/^ocs-web: //p' "$dir/web.out")"
echo "          a collective every $EVERY s; Ctrl-C stops everything"

n=0
while :; do
	set -- retri bridge static
	shift $((n % 3))
	ctl run --algo "$1" --bytes 1MiB >"$dir/run.out" 2>&1 &&
		echo "$(date +%T) $(grep '^run ' "$dir/run.out" | head -n 1)" ||
		echo "$(date +%T) the $1 run failed: $(tail -n 1 "$dir/run.out")"
	n=$((n + 1))
	sleep "$EVERY"
done
