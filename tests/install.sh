#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make install into a scratch prefix, and what a packager and an operator
# would check: every file in place, the programs answer --version and
# --help, the man pages format without warnings and name every option the
# program's --help names, the systemd units verify, the installed ocs-plan
# finds its topologies, and make uninstall removes it all.
#
# usage: install.sh   (MAKE, BUILD and SAN from the environment)
# Prints "install N passed N failed" and one line per failure.

set -u
MAKE=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ocs-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pre=$tmp/usr
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "    | install: $*"; }

if ! $MAKE --no-print-directory -s install PREFIX="$pre" \
	SYSCONFDIR="$tmp/etc" BUILD="${BUILD:-build}" SAN="${SAN:-0}" \
	>"$tmp/make.log" 2>&1; then
	no "make install failed:"
	sed 's/^/    | /' "$tmp/make.log" | tail -n 20
	echo "install 0 passed 1 failed"
	exit 1
fi
ok

progs="bin/ocsctl bin/ocs-emu bin/ocs-plan bin/ocs-sweep bin/ocs-load \
sbin/ocsd sbin/ocs-agent sbin/ocs-web"
mans="man1/ocs-plan.1 man1/ocs-sweep.1 man1/ocs-load.1 man5/ocsd.conf.5 man8/ocsd.8 man8/ocsctl.8 \
man8/ocs-agent.8 man8/ocs-emu.8 man8/ocs-web.8"
units="ocsd.service ocs-agent.service ocs-emu.service"
for f in $progs; do [ -x "$pre/$f" ] && ok || no "$f missing"; done
for f in $mans; do [ -f "$pre/share/man/$f" ] && ok || no "$f missing"; done
for f in $units; do
	[ -f "$pre/lib/systemd/system/$f" ] && ok || no "$f missing"
done
# ocs-web's page, where the installed ocs-web reads it.
for f in index.html app.js feed.js style.css; do
	[ -f "$pre/share/ocsd/www/$f" ] && ok || no "www/$f missing"
done
strings "$pre/sbin/ocs-web" | grep -qx "$pre/share/ocsd/www" && ok ||
	no "ocs-web does not read its page from $pre/share/ocsd/www"
for f in ocsd.conf.example ocs-agent.conf.example ocs-emu.conf.example; do
	[ -f "$pre/share/doc/ocsd/examples/$f" ] && ok || no "$f missing"
done
grep -l '@[A-Z]*DIR@' "$pre"/lib/systemd/system/* \
	"$pre"/share/doc/ocsd/examples/* >"$tmp/subst" 2>/dev/null
[ -s "$tmp/subst" ] && no "unsubstituted: $(cat "$tmp/subst")" || ok

# --version and --help of each program; the man page names every long
# option its --help names (a man page that lags the code is a lie).
for f in $progs; do
	p=$(basename "$f")
	case $p in
	ocs-plan | ocs-sweep | ocs-load) man=$pre/share/man/man1/$p.1 ;;
	*) man=$pre/share/man/man8/$p.8 ;;
	esac
	v=$("$pre/$f" --version 2>&1)
	case $v in "$p "[0-9]*) ok ;; *) no "$p --version: $v" ;; esac
	if "$pre/$f" --help >"$tmp/help" 2>&1; then ok; else
		no "$p --help: exit $?"
	fi
	for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u); do
		e=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$e" "$man" && ok || no "$p: $o not in $(basename "$man")"
	done
done

# The man pages format cleanly.
for f in $mans; do
	groff -man -ww -z "$pre/share/man/$f" >"$tmp/groff" 2>&1
	[ -s "$tmp/groff" ] && no "$f: $(head -n 3 "$tmp/groff")" || ok
done

# The units verify (their programs exist at the installed paths); a
# warning counts as a failure.
mkdir -p "$tmp/etc"
cp "$pre/share/doc/ocsd/examples/ocs-agent.conf.example" \
	"$tmp/etc/ocs-agent.conf"
for u in $units; do
	systemd-analyze verify --man=no "$pre/lib/systemd/system/$u" \
		>"$tmp/verify" 2>&1
	[ -s "$tmp/verify" ] && no "$u: $(head -n 3 "$tmp/verify")" || ok
done

# The installed ocs-plan finds the shipped topologies where they went.
if "$pre/bin/ocs-plan" --algo ring --topology dgx1 --collective allgather \
	--bytes 1MB --json >"$tmp/plan" 2>&1 && grep -q '"valid"' "$tmp/plan"
then ok; else no "installed ocs-plan: $(head -n 2 "$tmp/plan")"; fi

$MAKE --no-print-directory -s uninstall PREFIX="$pre" \
	SYSCONFDIR="$tmp/etc" BUILD="${BUILD:-build}" SAN="${SAN:-0}" \
	>"$tmp/make.log" 2>&1
left=$(find "$pre" -type f | head -n 5)
[ -z "$left" ] && ok || no "left after uninstall: $left"

echo "install $pass passed $fail failed"
[ "$fail" -eq 0 ]
