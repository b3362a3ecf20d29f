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
while read -r pkg deps; do
	case " $pkg $deps " in
	*" modernc.org/sqlite "*) plain+=("$pkg") ;;
	# e2e's own code imports nothing (its tests link SQLite) and it runs
	# the binary, which is no race build.
	*/e2e" "*) plain+=("$pkg") ;;
	*) race+=("$pkg") ;;
	esac
done < <(go list -f '{{.ImportPath}} {{join .Deps " "}}' ./...)

# Build the binary once; the end-to-end tests (package e2e) run it instead
# of building their own, and the reminder engine's crash tests the one
# built with -tags remindcrash (remind/crash.go).
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
go build -o "$bindir/assistant" ./cmd/assistant
go build -tags remindcrash -o "$bindir/assistant-remindcrash" ./cmd/assistant
export ASSISTANT_BINARY="$bindir/assistant"
export ASSISTANT_REMINDCRASH_BINARY="$bindir/assistant-remindcrash"

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
exit $status
