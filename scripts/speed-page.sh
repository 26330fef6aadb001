#!/usr/bin/env bash
# Writes docs/src/results/speed.md: its prose, then what gpusched bench prints as Markdown for
# the benchmark set, the trace reader (plain and xz), every Verilated module in co-simulation and
# the blocks in lockstep inside the GPU. Needs a release build with Verilator (scripts/deps.sh).
# usage: scripts/speed-page.sh [GPUSCHED]   (default target/release/gpusched); about 17 minutes on 2 cores
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
g=${1:-$root/target/release/gpusched}
out=$root/docs/src/results/speed.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
cat <<'TEXT'
# Results: speed of the GPU model

What `scripts/speed-page.sh` writes: the Markdown tables of `gpusched bench` (medians of 3 runs
each, the default), on the 2-core machine this project is developed on, with a release build
that has the Verilated models. These machines are noisy: the times move by 10-30% from one run
to the next, so compare builds on one machine and run them again before you conclude. The
instruction, cycle and mismatch counts are exact: a test runs `bench` again and checks that
every row of the first two tables still has them, and that the co-simulation table lists every
module, so this page is written again whenever the model changes.

## The benchmark set

`gpusched bench --markdown`: the golden model, `gtx480`, LRR (the default), one simulation
thread; a trace of 64 MB or more is read ahead on a second thread. "reader alone" is the time
the trace reader takes by itself on the same trace (parse and decode, no simulation), and its
share of the run's time.

TEXT
"$g" bench --markdown 2>/dev/null
cat <<'TEXT'
## The trace reader, plain and xz

`gpusched bench --parse --xz --markdown`: the reader alone on `mm` medium exported as a trace,
and on an xz copy of it (preset 6, as Accel-Sim's tracer writes `kernel-N.traceg.xz`). An xz
kernel is decoded on a thread of its own into a temporary file that the reader follows as it
grows ([adding a workload](../adding-a-workload.md#an-accel-sim-trace)).

TEXT
"$g" bench --parse --xz --markdown 2>/dev/null
cat <<'TEXT'
## Verilated blocks in co-simulation

`gpusched bench --cosim --markdown`: each module as `gpusched cosim` runs it (random stimulus
against its golden model, one thread), 3 M cycles or the block's own regression length when
shorter. How the Verilated models are built: [waveforms](../waveforms.md#verilated-models-one-evaluation-per-cycle).

TEXT
"$g" bench --cosim --markdown 2>/dev/null
cat <<'TEXT'
## Lockstep inside the GPU

`gpusched bench --lockstep --markdown`: a suite kernel on `gtx480` with the Verilated blocks
checked in lockstep inside the GPU against the golden run, and the ratio of the times
([waveforms](../waveforms.md)): the baseline arbiter and ELF++ on `stream` large, seed 000's
locality blocks (the dispatcher with the RTL's window of 32), each and both, on `locality_col`
small.

TEXT
"$g" bench --lockstep --markdown 2>/dev/null
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out" >&2
