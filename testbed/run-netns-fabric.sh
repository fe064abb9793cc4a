#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make run-netns FABRIC=1 (root): the namespace testbed as a fabric.  Two
# switches, a plane each, both carrying light in the kernel: NODES hosts
# in their own network namespaces, each host's transceiver t0 a veth into
# switch A's namespace and t1 one into switch B's (testbed/netns.sh
# fabric), and one ocs-emu kernel datapath a switch.  ocsd drives switch
# A over Polatis TL1 and switch B over CALIENT REST; one ocs-agent a host
# sends raw Ethernet on t0 and t1 (--transport kernel).  Runs ReTri and
# Bridge (a ring across the planes: each circuit one-way on its sender's
# switch), then ReTri with its planes apart (each plane released as its
# own switch settles), every block verified, and tears everything down
# on every way out.
#
# usage: run-netns-fabric.sh BINDIR [NODES] [BYTES] [RATE]
set -u
BIN=${1:-bin}
NODES=${2:-9}
BYTES=${3:-1MiB}
RATE=${4:-1Gbps}
here=$(dirname "$0")

if [ "$(id -u)" != 0 ]; then
	echo "make run-netns FABRIC=1: needs root (network namespaces);" \
		"make run-fabric runs the same on ocs-emu's relay" >&2
	exit 2
fi
prefix="ocsfab$$"
what="make run-netns FABRIC=1"
demo_cleanup_more() { sh "$here/netns.sh" down "$prefix"; }
. "$here/demo-lib.sh"

sh "$here/netns.sh" fabric "$prefix" "$NODES" 9000 ||
	fail "could not build the namespaces"
ports=$NODES
# Switch A's datapath is netns:PREFIX, switch B's netns:PREFIX_b.
for sw in a b; do
	dp=$prefix
	[ "$sw" = b ] && dp="${prefix}_b"
	demo_emu "-$sw" rest --tl1 127.0.0.1:0 --rest 127.0.0.1:0 \
		--ports "$ports" --switch-time 1ms --datapath "netns:$dp" \
		--rate "$RATE"
done
tl1_a=$(demo_emu_addr -a tl1)
rest_b=$(demo_emu_addr -b rest)

{
	demo_conf_switch A polatis "$tl1_a" nopoll
	demo_conf_switch B calient "http://$rest_b" nopoll
	demo_conf_daemon
	printf '[run]\nbandwidth = %s\nalpha_s = 1ms\nalpha_h = 300us\n' "$RATE"
	printf 'deadline = 30s\n'
	demo_fabric_cabling "$ports"
} >"$dir/ocsd.conf"

demo_ocsd 2

demo_agents "$prefix" --transport kernel --iface t0,t1
demo_agents_idle

echo "$what: $NODES hosts in namespaces $prefix-h*, t0 on switch A" \
	"($prefix-sw), t1 on switch B (${prefix}_b-sw)"
echo "    switch A: ocs-emu's kernel datapath over Polatis TL1 ($tl1_a)"
echo "    switch B: ocs-emu's kernel datapath over CALIENT REST ($rest_b)"
echo "    1 ms switching, fibres at $RATE"
echo
ctl -br status
echo
for algo in retri bridge; do
	demo_run --algo "$algo" --bytes "$BYTES"
done
demo_run --algo retri --bytes "$BYTES" --reconfig all --planes apart
grep -q '^planes apart' "$dir/run.out" || fail "the run was not planes apart"
echo "verified: $total blocks, 0 errors"
exit 0
