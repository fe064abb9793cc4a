#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run test binaries (cmocka, TAP output) and the golden-file tests, and end
# with one line "N passed, N failed"; exit non-zero on any failure.  A
# binary that dies without reporting counts as one failure.
#
# Environment: OCS_BIN (programs), OCS_GOLDEN (golden dir), OCS_INSTALL
# (also check make install; MAKE, BUILD and SAN say how), OCS_README (run
# that file's sh blocks), OCS_REAP (run each test under it), OCS_TEST_LOAD
# (that many busy loops run beside the tests: a loaded machine, where
# timing assumptions show; `make test-loaded` runs the suite so 10 times).

pass=0
fail=0
tmp=$(mktemp -d) || exit 1
busy=
trap 'rm -rf "$tmp"; [ -z "$busy" ] || kill $busy 2>/dev/null' EXIT
trap 'exit 130' INT TERM
i=0
while [ "$i" -lt "${OCS_TEST_LOAD:-0}" ]; do
	sh -c 'while :; do :; done' &
	busy="$busy $!"
	i=$((i + 1))
done
[ -z "$busy" ] || echo "(with ${OCS_TEST_LOAD} busy loops beside the tests)"

for t in "$@"; do
	name=$(basename "$t")
	start=$(date +%s)
	# Under reap (when given): a test that leaves a process of ours
	# running fails, and the process is named and killed.
	CMOCKA_MESSAGE_OUTPUT=TAP ${OCS_REAP:-} "$t" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq 125 ] && [ -n "${OCS_REAP:-}" ]; then
		echo "not ok - left processes behind" >>"$tmp/out"
	fi
	p=$(grep -c '^ok ' "$tmp/out")
	# cmocka writes a skipped test as "not ok N # SKIP": not a failure
	# (a test that skips says why, e.g. data that is not on this machine).
	f=$(grep '^not ok ' "$tmp/out" | grep -vc '# SKIP')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	s=$(grep '^not ok ' "$tmp/out" | grep -c '# SKIP')
	printf '%-28s %4d passed %3d failed %4ds%s\n' "$name" "$p" "$f" \
		$(($(date +%s) - start)) \
		"$([ "$s" -eq 0 ] || echo " ($s skipped)")"
	if [ "$f" -ne 0 ]; then
		# What failed and why (TAP's "not ok" and its "#" lines)
		# first: a chatty test's log would bury it.
		grep -v '# SKIP' "$tmp/out" | grep -A8 '^not ok ' |
			grep -v '^ok ' |
			sed 's/^/    | /' | head -n 40
		echo "    | ... the end of its output:"
		sed 's/^/    | /' "$tmp/out" | grep -v '^    | ok ' | tail -n 30
	fi
done

# Golden tests: <case>.args holds ocs-plan's arguments, <case>.out the
# exact expected stdout.
if [ -n "$OCS_GOLDEN" ] && [ -d "$OCS_GOLDEN" ]; then
	p=0
	f=0
	for a in "$OCS_GOLDEN"/*/*.args; do
		[ -e "$a" ] || continue
		want=${a%.args}.out
		# shellcheck disable=SC2046
		"$OCS_BIN"/ocs-plan $(cat "$a") >"$tmp/got" 2>"$tmp/err"
		if [ $? -eq 0 ] && diff -u "$want" "$tmp/got" >"$tmp/diff"; then
			p=$((p + 1))
		else
			f=$((f + 1))
			echo "    | golden ${a#"$OCS_GOLDEN"/}: output differs"
			sed 's/^/    | /' "$tmp/err" "$tmp/diff" | head -n 40
		fi
	done
	pass=$((pass + p))
	fail=$((fail + f))
	printf '%-28s %4d passed %3d failed\n' "golden" "$p" "$f"
fi

# make install into a scratch prefix, checked (tests/install.sh).
if [ -n "${OCS_INSTALL:-}" ]; then
	# One test, whatever the number of checks in it.
	if sh "$(dirname "$0")/install.sh" >"$tmp/inst" 2>&1; then
		p=1 f=0
	else
		p=0 f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	printf '%-28s %4d passed %3d failed  (%s)\n' "install" "$p" "$f" \
		"$(tail -n 1 "$tmp/inst")"
	grep '^    | ' "$tmp/inst" | head -n 30
fi

# The README's examples, run as they are (tests/readme.sh).
if [ -n "${OCS_README:-}" ]; then
	if sh "$(dirname "$0")/readme.sh" "$OCS_README" "$OCS_BIN" \
		>"$tmp/rd" 2>&1; then
		p=$(sed -n 's/^readme \([0-9]*\) passed.*/\1/p' "$tmp/rd")
		f=0
	else
		p=0
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	printf '%-28s %4d passed %3d failed  (%s)\n' "readme" "$p" "$f" \
		"$(tail -n 1 "$tmp/rd")"
	grep '^    | \|^readme: ' "$tmp/rd" | head -n 40
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
