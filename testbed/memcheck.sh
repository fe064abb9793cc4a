#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make memcheck: the make run demo (smaller payload) with ocs-emu, ocsd,
# every ocs-agent and ocsctl under valgrind's memcheck.  Fails on any
# error or leak valgrind reports, or if the demo itself fails.
#
# usage: memcheck.sh BINDIR

set -u
BIN=$(cd "${1:-bin}" && pwd) || exit 1
dir=$(mktemp -d "${TMPDIR:-/tmp}/ocs-memcheck.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/bin" "$dir/log"

for p in ocs-emu ocsd ocs-agent ocsctl; do
	cat >"$dir/bin/$p" <<-WRAP
	#!/bin/sh
	exec valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \\
		--errors-for-leak-kinds=definite,indirect \\
		--log-file="$dir/log/$p.%p" "$BIN/$p" "\$@"
	WRAP
	chmod +x "$dir/bin/$p"
done

# Every dialect: Polatis TL1 (polatis driver), the same over SSH
# (polatis-ssh), NETCONF (polatis-netconf), CALIENT REST (calient) and
# CALIENT TL1 (calient-tl1).
rc=0
for drv in polatis polatis-ssh polatis-netconf calient calient-tl1; do
	OCS_DRIVER=$drv sh "$(dirname "$0")/run-demo.sh" "$dir/bin" 9 \
		256KiB >"$dir/demo.out" 2>&1
	rc=$?
	tail -n 1 "$dir/demo.out"
	[ "$rc" -eq 0 ] || break
done
n=$(ls "$dir/log" | wc -l)
bad=0
for f in "$dir/log"/*; do
	if [ -s "$f" ]; then
		echo "--- $(basename "$f")"
		cat "$f"
		bad=1
	fi
done
if [ "$rc" -ne 0 ]; then
	echo "memcheck: the demo failed (exit $rc):"
	tail -n 20 "$dir/demo.out"
	exit 1
fi
[ "$bad" -eq 0 ] || { echo "memcheck: valgrind reported errors"; exit 1; }
echo "memcheck: $n processes under valgrind, no errors, no leaks"
