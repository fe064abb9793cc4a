#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The README's examples, run as they are: every ```sh block, in order,
# each in a scratch directory with bin/ pointing at the programs, under
# bash -e, in a fresh network and PID namespace (its fixed ports cannot
# meet anyone else's, and whatever it leaves running dies with it).
#
# usage: readme.sh README BINDIR
# Prints "readme N passed N failed" (or a skip) and what failed.

set -u
readme=$1
bindir=$(cd "$2" && pwd) || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ocs-readme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ "$(id -u)" != 0 ] &&
	! unshare -r -n -p -f --mount-proc true 2>/dev/null; then
	echo "readme: skipped: needs root or user namespaces (to run each"
	echo "readme 0 passed 0 failed (skipped)"
	exit 0
fi
root=
[ "$(id -u)" = 0 ] || root=-r

awk -v d="$tmp" '
	/^```sh$/ { n++; f = sprintf("%s/block%02d.sh", d, n); inb = 1; next }
	/^```/ && inb { inb = 0; close(f); next }
	inb { print > f }
' "$readme"

pass=0
fail=0
for b in "$tmp"/block*.sh; do
	[ -e "$b" ] || continue
	n=$(basename "$b" .sh)
	mkdir "$tmp/$n.d"
	ln -s "$bindir" "$tmp/$n.d/bin"
	{
		echo 'set -e'
		echo 'ip link set lo up'
		echo "cd '$tmp/$n.d'"
		cat "$b"
	} >"$tmp/$n.run"
	# A block that hangs is a failure too.
	if timeout 120 unshare $root -n -p -f --mount-proc bash "$tmp/$n.run" \
		>"$tmp/$n.log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "    | readme $n (exit $?):"
		sed 's/^/    |   /' "$b" | head -n 3
		echo "    |   ..."
		sed 's/^/    | > /' "$tmp/$n.log" | tail -n 20
	fi
done
echo "readme $pass passed $fail failed"
[ "$fail" -eq 0 ]
