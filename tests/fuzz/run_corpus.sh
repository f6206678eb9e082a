#!/usr/bin/env bash
# CI's fuzz step: builds each harness and runs it briefly (FUZZ_SECONDS, default 10) from
# its committed seed corpus, so regressions in the parsers' robustness fail the build.
# For a long session: FUZZ_SECONDS=600 tests/fuzz/run_corpus.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
tests/fuzz/build.sh || exit 1
seconds=${FUZZ_SECONDS:-10}
failed=0
for bin in build/fuzz/fuzz_*; do
  case "$bin" in *.log|*-crash-*|*-leak-*|*-timeout-*|*-oom-*) continue ;; esac
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  corpus=tests/fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  if "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
       -artifact_prefix="build/fuzz/$name-" "$work" >"build/fuzz/$name.log" 2>&1; then
    echo "ok   $name: $(grep -o 'stat::number_of_executed_units: [0-9]*' "build/fuzz/$name.log" | awk '{print $2}') runs in ${seconds}s"
  else
    echo "FAIL $name (see build/fuzz/$name.log)"; tail -30 "build/fuzz/$name.log"; failed=$((failed+1))
  fi
  rm -rf "$work"
done
[ "$failed" = 0 ]
