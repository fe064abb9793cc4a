#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make run-fabric: make run's fabric variant.  Two emulated switches, one
# per transceiver plane, of different dialects: switch A an ocs-emu that
# ocsd drives over Polatis TL1, switch B another driven over CALIENT
# REST; every host's transceiver 0 is cabled to A and transceiver 1 to B,
# and each agent plugs each transceiver into its plane's switch.  Runs an
# All-to-All with ReTri, Bridge and the static ring (a ring across the two
# planes runs as one direction on each: every circuit is one-way on its
# sender's switch), a skewed one (spreadout) and ReTri with its planes
# apart (--planes apart: each released as its own switch settles), every
# block verified;
# then arms a fault on switch B (a batch refused half way) and runs again:
# the run ends naming switch B and what switch A holds, and once the fault
# is cleared both switches are back in sync.  Everything is on this
# machine, without root, and cleaned up on every way out.
#
# usage: run-fabric.sh BINDIR [NODES] [BYTES]

set -u
BIN=${1:-bin}
NODES=${2:-9}
BYTES=${3:-1MiB}
RATE=${OCS_RATE:-100Mbps}

what="make run-fabric"
. "$(dirname "$0")/demo-lib.sh"

ports=$((NODES + 2))
for sw in a b; do
	demo_emu "-$sw" rest --tl1 127.0.0.1:0 --fibre 127.0.0.1:0 \
		--rest 127.0.0.1:0 --ports "$ports" --switch-time 1ms \
		--rate "$RATE"
done
tl1_a=$(demo_emu_addr -a tl1)
fibre_a=$(demo_emu_addr -a fibre)
rest_b=$(demo_emu_addr -b rest)
fibre_b=$(demo_emu_addr -b fibre)

# The model as make run's (its calibration on a 2-core VM); the switches
# move side by side, so a reconfiguration costs one switching time.
{
	demo_conf_switch A polatis "$tl1_a" nopoll
	demo_conf_switch B calient "http://$rest_b" nopoll
	demo_conf_daemon
	printf '[run]\nbandwidth = %s\nalpha_s = 1.5ms\nalpha_h = 0\n' \
		"$(demo_payload_rate "$RATE")"
	printf 'reconf_overhead = 560us\ndeadline = 20s\n'
	printf 'scaleup_bandwidth = 400Mbps\nscaleup_alpha = 20us\n'
	demo_fabric_cabling "$ports"
} >"$dir/ocsd.conf"

demo_ocsd 2

demo_agents "" --fibre "$fibre_a,$fibre_b"
demo_agents_idle

echo "make run-fabric: switch A, ocs-emu on $tl1_a (Polatis TL1), fibres $fibre_a"
echo "                 switch B, ocs-emu on $rest_b (CALIENT REST), fibres $fibre_b"
echo "                 1 ms switching, fibres at $RATE; $NODES agents, .0 on A, .1 on B"
echo
ctl status
echo
for algo in retri bridge static; do
	demo_run --algo "$algo" --bytes "$BYTES"
done
demo_run --algo spreadout --bytes "$BYTES" --matrix "zipf:$NODES:0.8:5"
# FAST with its servers: 3 agents a server, balancing and redistribution
# over local links between them (shaped to scaleup_bandwidth), the stages
# between servers on circuits, GPU k to GPU k.
[ $((NODES % 3)) -eq 0 ] &&
	demo_run --algo fast --bytes "$BYTES" --matrix "zipf:$NODES:0.8:5" \
		--gpus-per-server 3
# Planes apart: each plane released as its own switch settles, the other
# carrying data meanwhile (the report gives each plane's release).
demo_run --algo retri --bytes "$BYTES" --reconfig all --planes apart
grep -q '^planes apart' "$dir/run.out" || fail "the run was not planes apart"

# A fault on one plane mid-run: switch B refuses the next batch half way.
echo "switch B: fault deny-half (its next batch is refused half way)"
ctl -S B fault deny-half >/dev/null || fail "could not arm the fault"
if ctl run --algo retri --bytes "$BYTES" >"$dir/run.out" 2>&1; then
	cat "$dir/run.out"
	fail "the run went on through switch B's fault"
fi
cat "$dir/run.out"
grep -q 'switch B' "$dir/run.out" || fail "the failure did not name switch B"
ctl -S B fault none >/dev/null || fail "could not clear the fault"
ctl map sync >/dev/null || fail "map sync after the fault failed"
echo
ctl -br status
echo "verified: $total blocks, 0 errors"
exit 0
