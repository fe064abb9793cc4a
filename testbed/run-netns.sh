#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make run-netns (root): the namespace testbed.  NODES hosts, each in its
# own network namespace with two veth transceivers cabled into the
# switch's namespace (testbed/netns.sh); ocs-emu carries the light in the
# kernel (tc mirred redirects between its ports, through libnl) over
# fibres shaped to RATE; ocsd drives it over TL1; one ocs-agent a host
# sends raw Ethernet on its own interfaces (--transport kernel).  Runs
# ReTri, Bridge, the static ring and Bruck, verifies every block, and tears
# everything down on every way out, as make run does.
#
# usage: run-netns.sh BINDIR [NODES] [BYTES] [RATE]
# LINK_UP=2ms in the environment: links retrain that long after light
# returns (ocs-emu --link-up; ocsd's model gets the same [run] link_up).
# FABRIC=1 in the environment: the fabric variant (run-netns-fabric.sh).
set -u
BIN=${1:-bin}
NODES=${2:-9}
BYTES=${3:-1MiB}
RATE=${4:-1Gbps}
LINK_UP=${LINK_UP:-0}
here=$(dirname "$0")
# FABRIC=1: two switches, a plane each (run-netns-fabric.sh).
[ "${FABRIC:-0}" = 1 ] && exec sh "$here/run-netns-fabric.sh" "$@"

if [ "$(id -u)" != 0 ]; then
	echo "make run-netns: needs root (network namespaces); make run" \
		"runs the same without them" >&2
	exit 2
fi
prefix="ocsrun$$"
what="make run-netns"
demo_cleanup_more() { sh "$here/netns.sh" down "$prefix"; }
. "$here/demo-lib.sh"

sh "$here/netns.sh" up "$prefix" "$NODES" 2 9000 ||
	fail "could not build the namespaces"
ports=$((2 * NODES))
demo_emu "" datapath --tl1 127.0.0.1:0 --ports "$ports" --switch-time 1ms \
	--datapath "netns:$prefix" --rate "$RATE" --capture --link-up "$LINK_UP"
tl1=$(demo_emu_addr "" tl1)

{
	demo_conf_switch "" polatis "$tl1" nopoll
	demo_conf_daemon
	printf '[run]\nbandwidth = %s\nalpha_s = 1ms\nalpha_h = 300us\n' "$RATE"
	printf 'deadline = 30s\nlink_up = %s\n' "$LINK_UP"
	demo_cabling "$ports"
} >"$dir/ocsd.conf"

demo_ocsd

demo_agents "$prefix" --transport kernel --iface t0,t1
demo_agents_idle

echo "make run-netns: $NODES hosts in namespaces $prefix-h*, 2 veth" \
	"transceivers each, fibres at $RATE;"
echo "               ocs-emu switching in the kernel (tc mirred, 1 ms);" \
	"ocsd driving it over TL1"
ctl agents | head -n 4
echo

unlit=0
drops=0
for algo in retri bridge static bruck; do
	demo_run --capture --algo "$algo" --bytes "$BYTES"
	u=$(sed -n 's/^capture: .*unlit-circuit frames: \([0-9]*\).*/\1/p' \
		"$dir/run.out")
	[ -n "$u" ] || fail "no capture of the $algo run"
	unlit=$((unlit + u))
	# Frames the capture's own buffers lost were never looked at.
	d=$(sed -n 's/^capture: .*capture drops: \([0-9]*\).*/\1/p' \
		"$dir/run.out")
	drops=$((drops + ${d:-0}))
done
echo "verified: $total blocks, 0 errors"
echo "unlit-circuit frames: $unlit (libpcap on every switch port;" \
	"capture drops: $drops)"
[ "$drops" -eq 0 ] ||
	echo "warning: the capture dropped $drops frames: unlit ones may" \
		"be among them"
[ "$unlit" -eq 0 ] || fail "frames crossed unlit circuits"
exit 0
