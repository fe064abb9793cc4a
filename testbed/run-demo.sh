#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make run: an emulated optical circuit switch (ocs-emu, 1 ms switching
# time, carrying light between its ports), the controller ocsd driving it
# over TL1, and 9 host agents joined with a generated shared secret, all on
# this machine without root.  Runs an All-to-All of 1 MiB per node with
# ReTri (reconfigurations placed by R* for the switch's delay), then Bridge
# and the static ring for comparison, then an AllReduce synthesised by ten
# on the ring of the hosts (int32 sums); prints each run's per-phase report
# and the verification total.  Everything is shut down and the scratch
# directory removed on every way out: the end, a failure, Ctrl-C, a
# hang-up, a reader that went away (| head).  The fibres run at
# OCS_RATE (default 100Mbps); OCS_MODEL=FILE gives ocsd a calibrated model
# (ocs-sweep --calibrate --local --out FILE).
#
# usage: run-demo.sh BINDIR [NODES] [BYTES]
# OCS_DRIVER=calient drives the switch over its CALIENT REST face instead,
# OCS_DRIVER=calient-tl1 over its CALIENT TL1 face, with the cabling
# written in the switch's port names (1.1.1 ...); OCS_DRIVER=polatis-ssh
# drives the Polatis TL1 face over SSH (transport = ssh), and
# OCS_DRIVER=polatis-netconf its NETCONF face (the optical-switch module).

set -u
BIN=${1:-bin}
NODES=${2:-9}
BYTES=${3:-1MiB}
DRIVER=${OCS_DRIVER:-polatis}
RATE=${OCS_RATE:-100Mbps}
case "$DRIVER" in
polatis | polatis-ssh | polatis-netconf | calient | calient-tl1) ;;
*) echo "make run: OCS_DRIVER=$DRIVER: expected polatis, polatis-ssh," \
	"polatis-netconf, calient or calient-tl1" >&2; exit 2 ;;
esac

what="make run"
. "$(dirname "$0")/demo-lib.sh"

ports=$((2 * NODES + 2))
demo_emu "" netconf --tl1 127.0.0.1:0 --fibre 127.0.0.1:0 \
	--rest 127.0.0.1:0 --tl1-calient 127.0.0.1:0 --tl1-ssh 127.0.0.1:0 \
	--netconf 127.0.0.1:0 --ports "$ports" --switch-time 1ms --rate "$RATE"
tl1=$(demo_emu_addr "" tl1)
fibre=$(demo_emu_addr "" fibre)
rest=$(demo_emu_addr "" rest)
address=$tl1
face="TL1"
if [ "$DRIVER" = calient ]; then
	address=http://$rest
	face="CALIENT REST"
elif [ "$DRIVER" = calient-tl1 ]; then
	address=$(demo_emu_addr "" tl1-calient)
	face="CALIENT TL1"
elif [ "$DRIVER" = polatis-ssh ]; then
	address=$(demo_emu_addr "" tl1-ssh)
	face="TL1 over SSH"
elif [ "$DRIVER" = polatis-netconf ]; then
	address=$(demo_emu_addr "" netconf)
	face="NETCONF"
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

# The fibres run at $RATE (ocs-emu's metered relay), so the data time is
# the rate's, not this machine's CPU's.  The model: ocs-sweep --calibrate
# --local on a 2-core VM measured 97 Mbps of payload a 100 Mbps fibre
# (framing), 1.5 ms a phase (barrier, wake-ups) and 0.56 ms a
# reconfiguration beyond the switching time; ocsd adds the agents'
# store-and-forward of multi-hop frames itself.  Another rate scales the
# bandwidth alike; calibrate for another machine (OCS_MODEL=FILE).
{
	demo_conf_switch "" "${DRIVER%-ssh}" "$address" nopoll
	if [ "$DRIVER" = polatis-ssh ]; then printf 'transport = ssh\n'; fi
	demo_conf_daemon
	if [ -n "${OCS_MODEL:-}" ]; then
		printf '[run]\nmodel = %s\n' "$(realpath "$OCS_MODEL")"
	else
		printf '[run]\nbandwidth = %s\nalpha_s = 1.5ms\nalpha_h = 0\n' \
			"$(demo_payload_rate "$RATE")"
		printf 'reconf_overhead = 560us\n'
	fi
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

demo_ocsd

demo_agents "" --fibre "$fibre"
demo_agents_idle

echo "make run: ocs-emu on $tl1 (TL1), $rest (REST) and $fibre (fibres),"
echo "          1 ms switching, fibres at $RATE; ocsd driving it over $face;"
echo "          $NODES agents joined"
echo

for algo in retri bridge static; do
	demo_run --algo "$algo" --bytes "$BYTES"
done
# A synthesised AllReduce (ten on the ring of the hosts): int32 sums,
# every element checked; the output per node a multiple of 4 bytes a node.
demo_run --algo ten --collective allreduce --bytes "$((NODES * 128))KiB"
echo "verified: $total blocks, 0 errors"
exit 0
