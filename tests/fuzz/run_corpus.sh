#!/usr/bin/env bash
# CI's fuzz step: builds each harness and runs it briefly (FUZZ_SECONDS, default 10) from
# its committed seed corpus, so regressions in the parsers' robustness fail the build.
# The mutations start from a fixed seed (FUZZ_SEED, default 1): a run that fails fails again
# on the same tree, and what a landing depends on is the corpus, not the clock. Finding new
# inputs is a long run with a fresh seed before a stop, each find kept in the corpus:
#   FUZZ_SECONDS=600 FUZZ_SEED=0 tests/fuzz/run_corpus.sh      (0: libFuzzer picks the seed)
set -uo pipefail
cd "$(dirname "$0")/../.."
tests/fuzz/build.sh || exit 1
seconds=${FUZZ_SECONDS:-10}
seed=${FUZZ_SEED:-1}
failed=0
for bin in build/fuzz/fuzz_*; do
  case "$bin" in *.log|*-crash-*|*-leak-*|*-timeout-*|*-oom-*) continue ;; esac
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  corpus=tests/fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  if "$bin" -seed="$seed" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
       -artifact_prefix="build/fuzz/$name-" "$work" >"build/fuzz/$name.log" 2>&1; then
    echo "ok   $name: $(grep -o 'stat::number_of_executed_units: [0-9]*' "build/fuzz/$name.log" | awk '{print $2}') runs in ${seconds}s (seed $seed)"
  else
    echo "FAIL $name (see build/fuzz/$name.log)"; tail -30 "build/fuzz/$name.log"; failed=$((failed+1))
  fi
  rm -rf "$work"
done
[ "$failed" = 0 ]
