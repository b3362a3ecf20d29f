#!/usr/bin/env bash
# The test command of the README: vet, staticcheck, then the tests.
# Packages that do not link the transpiled SQLite run under the race
# detector; those that do run without it (race and checkptr instrumentation
# slow modernc's C-to-Go translation tenfold, and its own tests cover it).
set -euo pipefail
cd "$(dirname "$0")/.."

staticcheck_version=v0.8.2
gobin=$(go env GOPATH)/bin
if ! "$gobin/staticcheck" -version 2>/dev/null | grep -q "${staticcheck_version#v}"; then
	go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi

if [ -n "$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" ]; then
	echo "gofmt would change:"; gofmt -l $(git ls-files '*.go'); exit 1
fi
go vet ./...
"$gobin/staticcheck" ./...

race=() plain=()
declare -A sqlite=()
# A package links SQLite when its code does, or when its tests import one
# that does (ics/difftest, e2e: their own code is empty or imports
# nothing).
while read -r pkg deps; do
	case " $deps " in *" modernc.org/sqlite "*) sqlite[$pkg]=1 ;; esac
done < <(go list -f '{{.ImportPath}} {{join .Deps " "}}' ./...)
while read -r pkg imports; do
	case "$pkg" in
	# The tool registry and the MCP server serve calls concurrently: they
	# keep the race detector though they link SQLite (about 40 s more).
	*/assistant/tools | */assistant/mcpserver) race+=("$pkg"); continue ;;
	esac
	links=${sqlite[$pkg]:-}
	for i in $imports; do
		if [ -n "${sqlite[$i]:-}" ]; then links=1; fi
	done
	if [ -n "$links" ]; then plain+=("$pkg"); else race+=("$pkg"); fi
done < <(go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./...)

# Build the binary once; the end-to-end tests (package e2e) run it instead
# of building their own, and the reminder engine's crash tests the one
# built with -tags remindcrash (remind/crash.go).
bindir=$(mktemp -d)
pgdir=
cleanup() {
	if [ -n "$pgdir" ]; then
		bash scripts/pg.sh stop "$pgdir" || true
		rmdir "$pgdir" 2>/dev/null || true
	fi
	rm -rf "$bindir"
}
trap cleanup EXIT
# The EXIT trap runs on an interrupt too once these turn it into an exit.
trap 'exit 130' INT
trap 'exit 143' TERM
go build -o "$bindir/assistant" ./cmd/assistant
go build -tags remindcrash -o "$bindir/assistant-remindcrash" ./cmd/assistant
export ASSISTANT_BINARY="$bindir/assistant"
export ASSISTANT_REMINDCRASH_BINARY="$bindir/assistant-remindcrash"

# The PostgreSQL half of the test matrix (store/storetest) runs on the
# server ASSISTANT_TEST_POSTGRES names; without one, on a throwaway cluster
# of scripts/pg.sh, stopped and removed when this script ends.
if [ -z "${ASSISTANT_TEST_POSTGRES:-}" ]; then
	if bash scripts/pg.sh bin >/dev/null; then
		pgdir=$(mktemp -d "${TMPDIR:-/tmp}/assistant-pg.XXXXXX")
		ASSISTANT_TEST_POSTGRES=$(PGTEST_DIR=$pgdir bash scripts/pg.sh)
		export ASSISTANT_TEST_POSTGRES
	elif [ "${CI:-}" != true ]; then
		echo "test.sh: no PostgreSQL binaries here, so the PostgreSQL half of the tests is skipped; install them (apt-get install postgresql) or set ASSISTANT_TEST_POSTGRES to a server's DSN" >&2
	fi
fi

# A package's tests may take longer than go test's 10-minute default on a
# loaded machine (the differential test of ics/difftest, recur under
# -race); the bound is for a hung test, not a slow one.
status=0
if [ ${#race[@]} -gt 0 ]; then
	go test -race -count=1 -timeout 30m "${race[@]}" || status=1
fi
if [ ${#plain[@]} -gt 0 ]; then
	go test -count=1 -timeout 30m "${plain[@]}" || status=1
fi
# Each scale benchmark once, at its small sizes, so none rots (docs/scale.md
# has their numbers; bash scripts/scale.sh measures them). Nothing is timed.
if ! go test -run '^$' -bench '^BenchmarkScale' -benchtime 1x -short -timeout 30m ./... >"$bindir/scale.txt" 2>&1; then
	grep -v '^Benchmark' "$bindir/scale.txt" >&2
	echo "test.sh: a scale benchmark failed (above)" >&2
	status=1
fi
exit $status
