#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make run: an emulated optical circuit switch (ocs-emu, 1 ms switching
# time, carrying light between its ports), the controller ocsd driving it
# over TL1, and 9 host agents joined with a generated shared secret, all on
# this machine without root.  Runs an All-to-All of 1 MiB per node with
# ReTri (reconfigurations placed by R* for the switch's delay), then Bridge
# and the static ring for comparison; prints each run's per-phase report
# and the verification total.  Everything is shut down and the scratch
# directory removed on every way out: the end, a failure, Ctrl-C, a
# hang-up, a reader that went away (| head).
#
# usage: run-demo.sh BINDIR [NODES] [BYTES]
# OCS_DRIVER=calient drives the switch over its CALIENT REST face instead,
# OCS_DRIVER=calient-tl1 over its CALIENT TL1 face, with the cabling
# written in the switch's port names (1.1.1 ...).

set -u
BIN=${1:-bin}
NODES=${2:-9}
BYTES=${3:-1MiB}
DRIVER=${OCS_DRIVER:-polatis}
case "$DRIVER" in
polatis | calient | calient-tl1) ;;
*) echo "make run: OCS_DRIVER=$DRIVER: expected polatis, calient or" \
	"calient-tl1" >&2; exit 2 ;;
esac

what="make run"
. "$(dirname "$0")/demo-lib.sh"

ports=$((2 * NODES + 2))
"$BIN/ocs-emu" --tl1 127.0.0.1:0 --fibre 127.0.0.1:0 --rest 127.0.0.1:0 \
	--tl1-calient 127.0.0.1:0 --ports "$ports" --switch-time 1ms \
	>"$dir/emu.out" 2>"$dir/emu.log" &
pids="$pids $!"
wait_for "grep -q tl1-calient $dir/emu.out" 50 || fail "ocs-emu did not start"
tl1=$(sed -n 's/^ocs-emu: tl1 //p' "$dir/emu.out")
fibre=$(sed -n 's/^ocs-emu: fibre //p' "$dir/emu.out")
rest=$(sed -n 's/^ocs-emu: rest //p' "$dir/emu.out")
address=$tl1
face="TL1"
if [ "$DRIVER" = calient ]; then
	address=http://$rest
	face="CALIENT REST"
elif [ "$DRIVER" = calient-tl1 ]; then
	address=$(sed -n 's/^ocs-emu: tl1-calient //p' "$dir/emu.out")
	face="CALIENT TL1"
fi

# A transceiver's TX into ingress $1, RX from egress $2: by number, or by
# the CALIENT port names (16 a module on ocs-emu) with the TL1 driver.
cable() {
	if [ "$DRIVER" = calient-tl1 ]; then
		printf '1.%d.%d 1.%d.%d' $((($1 - 1) / 16 + 1)) \
			$((($1 - 1) % 16 + 1)) $((($2 - ports - 1) / 16 + 1)) \
			$((($2 - ports - 1) % 16 + 1))
	else
		printf '%d %d' "$1" "$2"
	fi
}

# The model's link parameters: this machine's loopback relay, roughly
# (make bench measures them); the switch's delay is its own.
{
	printf '[switch]\ndriver = %s\naddress = %s\n' "$DRIVER" "$address"
	printf 'user = root\npassword = root\nswitch_time = 1ms\npoll = 0\n'
	printf '[control]\nlisten = ipc://%s/ctl.sock\n' "$dir"
	printf '[state]\ndir = %s/state\n' "$dir"
	printf '[agents]\nlisten = ipc://%s/agents.sock\n' "$dir"
	printf 'events = ipc://%s/events.sock\n' "$dir"
	printf 'secret_file = %s/secret\nheartbeat = 1s\n' "$dir"
	printf '[run]\nbandwidth = 2Gbps\nalpha_s = 1ms\nalpha_h = 300us\n'
	printf 'deadline = 20s\n'
	printf '[cabling]\n'
	h=0
	while [ "$h" -lt "$NODES" ]; do
		printf 'h%02d.0 = %s\n' "$h" \
			"$(cable $((2 * h + 1)) $((2 * h + 1 + ports)))"
		printf 'h%02d.1 = %s\n' "$h" \
			"$(cable $((2 * h + 2)) $((2 * h + 2 + ports)))"
		h=$((h + 1))
	done
} >"$dir/ocsd.conf"

ctl() { "$BIN/ocsctl" -s "ipc://$dir/ctl.sock" "$@"; }

"$BIN/ocsd" -n -f "$dir/ocsd.conf" 2>"$dir/check.log" ||
	fail "ocsd rejected the generated configuration"
"$BIN/ocsd" -d -f "$dir/ocsd.conf" 2>"$dir/ocsd.log" &
pids="$pids $!"
wait_for "$BIN/ocsctl -s ipc://$dir/ctl.sock status | grep -q ': connected'" \
	50 || fail "ocsd did not reach the switch"

h=0
while [ "$h" -lt "$NODES" ]; do
	host=$(printf 'h%02d' "$h")
	"$BIN/ocs-agent" --controller "ipc://$dir/agents.sock" --host "$host" \
		--secret-file "$dir/secret" --fibre "$fibre" \
		2>"$dir/agent-$host.log" &
	pids="$pids $!"
	h=$((h + 1))
done
wait_for "test \$($BIN/ocsctl -s ipc://$dir/ctl.sock agents | grep -c idle) \
	-eq $NODES" 100 || fail "the agents did not all join"

echo "make run: ocs-emu on $tl1 (TL1), $rest (REST) and $fibre (fibres),"
echo "          1 ms switching; ocsd driving it over $face; $NODES agents joined"
echo

total=0
for algo in retri bridge static; do
	ctl run --algo "$algo" --bytes "$BYTES" >"$dir/run.out" 2>&1 ||
		{ cat "$dir/run.out"; fail "the $algo run failed"; }
	cat "$dir/run.out"
	echo
	v=$(sed -n 's/^verified: \([0-9]*\) blocks, 0 errors$/\1/p' \
		"$dir/run.out")
	[ -n "$v" ] || fail "the $algo run did not verify"
	total=$((total + v))
done
echo "verified: $total blocks, 0 errors"
exit 0
