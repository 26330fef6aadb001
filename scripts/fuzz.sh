#!/usr/bin/env bash
# Runs each libFuzzer target of fuzz/ for a bounded time (CI's smoke run; longer runs: fuzz/README.md).
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 45)
# Installs cargo-fuzz if missing. Builds on the stable toolchain (RUSTC_BOOTSTRAP=1 lets it take
# cargo-fuzz's unstable flags; no sanitizer: the code under test is safe Rust, overflow checks on).
# Seeds the corpora from ../shared/traces and the presets when they are empty. Fails on any crash.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-45}
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz" >&2
  cargo install --locked -q cargo-fuzz
fi
export RUSTC_BOOTSTRAP=1 CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
[ -x target/release/gpusched ] || cargo build --release -j2 -p gpusched --bin gpusched
for t in trace_to_gpu mix_to_gpu gpgpusim_options sweep_spec; do
  if [ -z "$(ls -A "fuzz/corpus/$t" 2>/dev/null)" ]; then
    bash fuzz/seed.sh >/dev/null
    break
  fi
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in trace_to_gpu config_to_gpu mix_to_gpu gpgpusim_options sweep_spec; do
  echo "fuzz $t for ${secs}s" >&2
  dict=()
  [ -f "fuzz/dict/$t.dict" ] && dict=("-dict=dict/$t.dict")
  rc=0
  (cd fuzz && cargo fuzz run -O -s none "$t" -- -max_len=65536 -max_total_time="$secs" \
    "${dict[@]}" -print_final_stats=1) >"$log" 2>&1 || rc=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ +DONE" "$log" >&2 || true
  if [ "$rc" != 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz $t: failed (exit $rc); the crash input is in fuzz/artifacts/$t" >&2
    exit 1
  fi
done
