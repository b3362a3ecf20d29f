#!/usr/bin/env bash
# The scale benchmarks and docs/scale.md's tables (docs/scale.md).
#
#   bash scripts/scale.sh              every size, up to 1M rows, COUNT runs
#                                      each (3), then rewrite docs/scale.md
#   SHORT=1 bash scripts/scale.sh      sizes up to 10k only (go test -short)
#   BENCH=ListTasks bash scripts/scale.sh   one figure (a regexp after
#                                      BenchmarkScale); the table then holds
#                                      only what ran
#
# The PostgreSQL rows come from the server ASSISTANT_TEST_POSTGRES names, or
# a throwaway cluster of scripts/pg.sh; the raw output stays in
# scale-bench.txt (in .gitignore) for benchstat.
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-3}
short=()
if [ -n "${SHORT:-}" ]; then short=(-short); fi
pgdir= bindir=$(mktemp -d)
cleanup() {
	if [ -n "$pgdir" ]; then
		bash scripts/pg.sh stop "$pgdir" || true
		rmdir "$pgdir" 2>/dev/null || true
	fi
	rm -rf "$bindir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "${ASSISTANT_TEST_POSTGRES:-}" ] && bash scripts/pg.sh bin >/dev/null; then
	pgdir=$(mktemp -d "${TMPDIR:-/tmp}/assistant-pg.XXXXXX")
	ASSISTANT_TEST_POSTGRES=$(PGTEST_DIR=$pgdir bash scripts/pg.sh)
	export ASSISTANT_TEST_POSTGRES
fi
# The benchmarks that run the binary (the import's peak memory) use this one.
go build -o "$bindir/assistant" ./cmd/assistant
export ASSISTANT_BINARY="$bindir/assistant"

go test -run '^$' -bench "^BenchmarkScale${BENCH:-}" -benchmem -count "$count" -timeout 180m "${short[@]}" ./... | tee scale-bench.txt
go run ./scripts/scaletable -o docs/scale.md -date "$(date -u +%F)" scale-bench.txt
echo "scale.sh: docs/scale.md rewritten from scale-bench.txt" >&2
