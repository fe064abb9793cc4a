#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# The namespace testbed's cable plant (root).  Every host is a network
# namespace PREFIX-hNN with one veth per transceiver, t0, t1, ...; the
# other ends are the switch's duplex ports p1, p2, ... in one namespace
# PREFIX-sw, transceiver j of host h on port h*T+j+1 (ingress h*T+j+1,
# egress PORTS+h*T+j+1 on a switch of PORTS ports a side, as make run
# cables them).  The switch namespace also holds the veth pair dark /
# darkpeer, where light that no patch carries is sent to die (ocs-emu's
# kernel datapath counts it).
# IPv6 is off on every interface so nothing but the hosts' own frames
# crosses the plant.
#
#   netns.sh up PREFIX HOSTS TRX [MTU]   build it (MTU default 9000)
#   netns.sh fabric PREFIX HOSTS [MTU]   a fabric of two switches, a plane
#                                        each: transceiver t0 of host h on
#                                        PREFIX-sw's p<h+1>, t1 on
#                                        PREFIX_b-sw's p<h+1> (two ocs-emu
#                                        datapaths: netns:PREFIX and
#                                        netns:PREFIX_b; each host is
#                                        PREFIX-hNN, also named PREFIX_b-hNN
#                                        so that the second finds it)
#   netns.sh down PREFIX                 remove every namespace PREFIX-*
#                                        (and a fabric's PREFIX_b-*)
#   netns.sh list                        the prefixes that exist
#
# A half-built plant is removed before up fails; down is idempotent, so
# it also cleans up after a testbed that died without doing so.

set -u
prog="netns.sh"

die() {
	echo "$prog: $*" >&2
	exit 2
}

down() {
	# A fabric's second names first: they are mounts of the hosts.
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		case "$ns" in
		"$1"_b-sw | "$1"_b-h[0-9]*) ip netns del "$ns" 2>/dev/null ;;
		esac
	done
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		case "$ns" in
		"$1"-sw | "$1"-h[0-9]*) ip netns del "$ns" 2>/dev/null ;;
		esac
	done
	return 0
}

quiet_ns() {
	ip netns exec "$1" sh -c '
		sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		sysctl -qw net.ipv6.conf.default.disable_ipv6=1' \
		>/dev/null 2>&1
	ip -n "$1" link set lo up
}

# A switch's namespace $1, with its dark port pair.
switch_ns() {
	ip netns add "$1" && quiet_ns "$1" || return 1
	ip -n "$1" link add dark type veth peer name darkpeer || return 1
	ip -n "$1" link set dark up && ip -n "$1" link set darkpeer up
}

# Switch $1's port p$2 cabled to transceiver t$4 of host namespace $3,
# MTU $5, both ends up.
plug() {
	ip -n "$1" link add "p$2" mtu "$5" type veth \
		peer name "t$4" netns "$3" mtu "$5" || return 1
	ip -n "$1" link set "p$2" up && ip -n "$3" link set "t$4" up
}

up() {
	prefix=$1 hosts=$2 trx=$3 mtu=$4
	sw="$prefix-sw"
	switch_ns "$sw" || return 1
	h=0
	while [ "$h" -lt "$hosts" ]; do
		ns=$(printf '%s-h%02d' "$prefix" "$h")
		ip netns add "$ns" && quiet_ns "$ns" || return 1
		j=0
		while [ "$j" -lt "$trx" ]; do
			plug "$sw" $((h * trx + j + 1)) "$ns" "$j" "$mtu" ||
				return 1
			j=$((j + 1))
		done
		h=$((h + 1))
	done
	return 0
}

# A fabric (netns.sh fabric): two switch namespaces, transceiver j of
# every host on switch j's port h+1; PREFIX_b-hNN names the same
# namespace as PREFIX-hNN (a bind mount, as ip netns makes its names).
fabric() {
	prefix=$1 hosts=$2 mtu=$3
	switch_ns "$prefix-sw" && switch_ns "${prefix}_b-sw" || return 1
	h=0
	while [ "$h" -lt "$hosts" ]; do
		ns=$(printf '%s-h%02d' "$prefix" "$h")
		alias=$(printf '%s_b-h%02d' "$prefix" "$h")
		ip netns add "$ns" && quiet_ns "$ns" || return 1
		touch "/run/netns/$alias" &&
			mount --bind "/run/netns/$ns" "/run/netns/$alias" ||
			return 1
		j=0
		for sw in "$prefix-sw" "${prefix}_b-sw"; do
			plug "$sw" $((h + 1)) "$ns" "$j" "$mtu" || return 1
			j=$((j + 1))
		done
		h=$((h + 1))
	done
	return 0
}

[ $# -ge 1 ] || die "usage: netns.sh up PREFIX HOSTS TRX [MTU] | fabric PREFIX HOSTS [MTU] | down PREFIX | list"
cmd=$1
shift
case "$cmd" in
up | down | fabric)
	[ $# -ge 1 ] || die "$cmd: PREFIX missing"
	case "$1" in
	*[!A-Za-z0-9_]* | "") die "PREFIX \"$1\": letters, digits and _" ;;
	esac
	[ ${#1} -le 20 ] || die "PREFIX \"$1\": 20 characters at most"
	# ocs-emu takes 20: a fabric's plane B is PREFIX_b.
	[ "$cmd" != fabric ] || [ ${#1} -le 18 ] ||
		die "PREFIX \"$1\": 18 characters at most for a fabric"
	;;
esac
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
case "$cmd" in
up)
	[ $# -ge 3 ] || die "up: PREFIX HOSTS TRX [MTU]"
	case "$2" in *[!0-9]* | "") die "HOSTS \"$2\": a number" ;; esac
	case "$3" in *[!0-9]* | "") die "TRX \"$3\": a number" ;; esac
	[ "$2" -ge 2 ] && [ "$2" -le 100 ] || die "HOSTS \"$2\": 2..100"
	[ "$3" -ge 1 ] && [ "$3" -le 8 ] || die "TRX \"$3\": 1..8"
	mtu=${4:-9000}
	case "$mtu" in *[!0-9]* | "") die "MTU \"$mtu\": a number" ;; esac
	[ "$mtu" -ge 1280 ] && [ "$mtu" -le 65535 ] ||
		die "MTU \"$mtu\": 1280..65535"
	ip netns list 2>/dev/null | grep -q "^$1-" &&
		die "prefix \"$1\" is in use (netns.sh down $1 removes it)"
	if ! up "$1" "$2" "$3" "$mtu"; then
		down "$1"
		echo "$prog: could not build testbed $1; removed" >&2
		exit 1
	fi
	;;
fabric)
	[ $# -ge 2 ] || die "fabric: PREFIX HOSTS [MTU]"
	case "$2" in *[!0-9]* | "") die "HOSTS \"$2\": a number" ;; esac
	[ "$2" -ge 2 ] && [ "$2" -le 100 ] || die "HOSTS \"$2\": 2..100"
	mtu=${3:-9000}
	case "$mtu" in *[!0-9]* | "") die "MTU \"$mtu\": a number" ;; esac
	[ "$mtu" -ge 1280 ] && [ "$mtu" -le 65535 ] ||
		die "MTU \"$mtu\": 1280..65535"
	ip netns list 2>/dev/null | grep -q "^$1\(_b\)\{0,1\}-" &&
		die "prefix \"$1\" is in use (netns.sh down $1 removes it)"
	mkdir -p /run/netns || die "cannot make /run/netns"
	if ! fabric "$1" "$2" "$mtu"; then
		down "$1"
		echo "$prog: could not build fabric testbed $1; removed" >&2
		exit 1
	fi
	;;
down) down "$1" ;;
list)
	ip netns list 2>/dev/null | awk '{ print $1 }' |
		sed -n 's/-sw$//p'
	;;
*) die "unknown command \"$cmd\"" ;;
esac
exit 0
