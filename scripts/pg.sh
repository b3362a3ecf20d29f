#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests (docs/development.md#tests).
#
#   bash scripts/pg.sh            start one; print its DSN on stdout, e.g.
#                                 postgres://postgres@127.0.0.1:55400/postgres?sslmode=disable
#   bash scripts/pg.sh stop DIR   stop it and remove its folder
#   bash scripts/pg.sh bin        print the folder of the binaries it would
#                                 use; exit 1 when there are none
#
# The cluster lives in one folder (a new mktemp folder, or PGTEST_DIR when
# set), whose path goes to stderr with the command that stops it. It
# listens on 127.0.0.1 only, on PORT when set, else on the first free port
# from 55400 up, with trust authentication for user postgres and the
# settings of a test server (no fsync; data is thrown away). The binaries
# are the newest /usr/lib/postgresql/*/bin, else those on PATH. PostgreSQL
# refuses to run as root: as root the cluster runs as user postgres (which
# Debian's package makes).
set -euo pipefail

die() { echo "pg.sh: $*" >&2; exit 1; }

bindir=
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
	if [ -x "$d/postgres" ] && [ -x "$d/initdb" ]; then bindir=$d; fi
done
if [ -z "$bindir" ]; then
	if p=$(command -v postgres 2>/dev/null) && command -v initdb >/dev/null; then
		bindir=$(dirname "$(readlink -f "$p")")
	else
		[ "${1:-}" = bin ] && exit 1
		die "no PostgreSQL binaries in /usr/lib/postgresql/*/bin or on PATH; install them (apt-get install postgresql)"
	fi
fi
if [ "${1:-}" = bin ]; then
	echo "$bindir"
	exit 0
fi

# as runs a command as the cluster's owner: user postgres when root.
as=()
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || die "PostgreSQL will not run as root and there is no user postgres to run it as; add one (useradd --system postgres) or run this as another user"
	as=(runuser -u postgres --)
fi

marker=.assistant-pg-cluster

if [ "${1:-start}" = stop ]; then
	dir=${2:-}
	[ -n "$dir" ] || die "say which cluster to stop: bash scripts/pg.sh stop DIR (DIR is printed when it starts)"
	[ -d "$dir" ] || exit 0
	[ -e "$dir/$marker" ] || die "$dir is not a cluster made by scripts/pg.sh; not removing it"
	if [ -e "$dir/data/postmaster.pid" ]; then
		"${as[@]}" "$bindir/pg_ctl" stop -D "$dir/data" -m immediate -w -t 30 >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	exit 0
fi
[ "${1:-start}" = start ] || die "unknown command $1; use: bash scripts/pg.sh [start] | stop DIR | bin"

if [ -n "${PGTEST_DIR:-}" ]; then
	dir=$PGTEST_DIR
	mkdir -p "$dir"
	[ -z "$(ls -A "$dir")" ] || die "PGTEST_DIR $dir is not empty; give an empty or new folder"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/assistant-pg.XXXXXX")
fi
touch "$dir/$marker"
mkdir -p "$dir/data" "$dir/sock"
if [ ${#as[@]} -gt 0 ]; then chown -R postgres: "$dir"; fi
chmod 700 "$dir"
fail() {
	echo "pg.sh: $*" >&2
	for f in "$dir/pg_ctl.out" "$dir/log"; do
		if [ -s "$f" ]; then tail -n 20 "$f" >&2; fi
	done
	bash "$0" stop "$dir" || true
	exit 1
}

locale=C
if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then locale=C.UTF-8; fi
# The log is written by the cluster's owner; initdb's output goes there
# first, through this shell.
"${as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale="$locale" --no-sync 2>&1 |
	"${as[@]}" tee "$dir/log" >/dev/null ||
	fail "initdb failed in $dir/data; its output ends:"

# in_use says whether something listens on 127.0.0.1:$1.
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

port=${PORT:-55400}
for _ in $(seq 1 50); do
	if [ -z "${PORT:-}" ]; then
		while in_use "$port"; do port=$((port + 1)); done
	fi
	logged=$(wc -l <"$dir/log")
	# pg_ctl waits (30 s at most) until the server accepts connections, or
	# says it exited.
	if "${as[@]}" "$bindir/pg_ctl" start -w -t 30 -D "$dir/data" -l "$dir/log" -s \
		-o "-p $port -k $dir/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" \
		>>"$dir/pg_ctl.out" 2>&1; then
		for _ in $(seq 1 300); do # 30 s more at most
			if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres; then
				echo "pg.sh: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on port $port in $dir; stop it with: bash scripts/pg.sh stop $dir" >&2
				echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
				exit 0
			fi
			sleep 0.1
		done
		fail "PostgreSQL started on port $port but pg_isready did not say it accepts connections within 30 s; its log ($dir/log) ends:"
	fi
	if [ -e "$dir/data/postmaster.pid" ]; then
		fail "PostgreSQL did not accept connections on port $port within 30 s; its log ($dir/log) ends:"
	fi
	# A port taken between the check and the bind: try the next one, unless
	# the caller chose it.
	if [ -n "${PORT:-}" ] || ! tail -n +"$((logged + 1))" "$dir/log" | grep -q 'could not bind'; then
		fail "PostgreSQL did not start on port $port; its log ($dir/log) ends:"
	fi
	port=$((port + 1))
done
fail "found no free port from 55400 up in 50 tries"
