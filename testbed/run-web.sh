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
demo_emu "" fibre --tl1 127.0.0.1:0 --fibre 127.0.0.1:0 --ports "$ports" \
	--switch-time 1ms --rate 100Mbps
tl1=$(demo_emu_addr "" tl1)
fibre=$(demo_emu_addr "" fibre)
{
	demo_conf_switch "" polatis "$tl1"
	demo_conf_daemon
	printf '[run]\nbandwidth = 97Mbps\nalpha_s = 1.5ms\nalpha_h = 0\n'
	printf 'reconf_overhead = 560us\n'
	demo_cabling "$ports"
} >"$dir/ocsd.conf"
demo_ocsd
demo_agents "" --fibre "$fibre"
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
