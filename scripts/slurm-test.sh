#!/usr/bin/env bash
# The sweep engine against a real Slurm: starts a one-node cluster on this machine
# (scripts/slurm-local.sh), then
# 1. submits a sweep of 8 points as a job array (--max-parallel 2), waits for it with a bounded
#    timeout, and checks that its collected table equals a local `sweep run` of the same spec,
#    bit for bit;
# 2. submits a second sweep (8 longer points, 2 array tasks of 4, one task at a time), cancels a
#    task mid-run (scancel) once it has written a result, checks points are missing, submits
#    again, and checks that only the missing points ran and the table equals a local run's.
# Fails on any difference or timeout. Needs root or sudo (apt-get, the daemons).
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GPUSCHED:-$PWD/target/release/gpusched}
[ -x "$G" ] || cargo build --release -j2 -p gpusched --bin gpusched
bash scripts/slurm-local.sh start
eval "$(bash scripts/slurm-local.sh env)"
work=$(mktemp -d /tmp/gpusched-slurm-test.XXXXXX)
trap 'bash scripts/slurm-local.sh stop; rm -rf "$work"' EXIT

# Waits until job $1 has left the queue, at most $2 seconds.
wait_job() {
  for _ in $(seq 1 "$2"); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 1
  done
  echo "FAIL: job $1 still queued after $2 s" >&2
  squeue >&2
  exit 1
}

spec() { # name, workloads, size
  cat <<SPEC
[sweep]
name = "$1"
workloads = [$2]
sizes = ["$3"]
metrics = ["cycles", "ipc", "l1d.misses", "dram.bytes"]

[[policy]]
name = "gto"
args = "--warp-sched gto"

[[policy]]
name = "lrr"
args = "--warp-sched lrr"

[[policy]]
name = "two-level"
args = "--warp-sched two-level"

[[policy]]
name = "elf++"
args = "--warp-sched elf++"
SPEC
}

echo "== 1. a sweep of 8 points as a job array" >&2
spec slurm-a '"stream", "his"' small > "$work/a.toml"
"$G" sweep run "$work/a.toml" --out "$work/a-local" -j 2
"$G" sweep collect "$work/a-local" --csv > "$work/a-local.csv"
id=$("$G" sweep slurm "$work/a.toml" --out "$work/a-slurm" --max-parallel 2 --submit)
wait_job "$id" 300
"$G" sweep status "$work/a-slurm"
"$G" sweep collect "$work/a-slurm" --csv > "$work/a-slurm.csv"
cmp "$work/a-local.csv" "$work/a-slurm.csv"
echo "ok: the Slurm sweep's table equals the local one ($(wc -l < "$work/a-slurm.csv") lines)" >&2

echo "== 2. a task cancelled mid-run, then re-submitted" >&2
spec slurm-b '"stream", "compute"' large > "$work/b.toml"
id=$("$G" sweep slurm "$work/b.toml" --out "$work/b-slurm" --shards 2 --max-parallel 1 --submit)
# Wait for task 0's first result, then cancel it.
for _ in $(seq 1 600); do
  n=$(find "$work/b-slurm/points" -name '*.json' | wc -l)
  [ "$n" -ge 1 ] && break
  sleep 0.2
done
state=$(squeue -h -j "${id}_0" -o %T 2>/dev/null || true)
[ "$state" = RUNNING ] || { echo "FAIL: task ${id}_0 is not running ($state) after its first result" >&2; exit 1; }
scancel "${id}_0"
wait_job "$id" 300
missing=$("$G" sweep status "$work/b-slurm" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["missing"])')
[ "$missing" -ge 1 ] || { echo "FAIL: nothing missing after the cancel" >&2; exit 1; }
echo "ok: $missing point(s) missing after cancelling task 0 mid-run" >&2
id=$("$G" sweep slurm "$work/b.toml" --out "$work/b-slurm" --shards 2 --max-parallel 1 --submit)
wait_job "$id" 300
ran=$(cat "$work"/b-slurm/slurm/task-*.out | sed -n 's/.*: \([0-9]*\) run, .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$ran" = "$missing" ] || { echo "FAIL: the re-submission ran $ran points, $missing were missing" >&2; cat "$work"/b-slurm/slurm/task-*.out >&2; exit 1; }
"$G" sweep run "$work/b.toml" --out "$work/b-local" -j 2
cmp <("$G" sweep collect "$work/b-local" --csv) <("$G" sweep collect "$work/b-slurm" --csv)
echo "ok: the re-submission ran only the $ran missing point(s); the table equals the local one" >&2
