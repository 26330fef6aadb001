#!/bin/bash
# Seeds the fuzz corpora (fuzz/corpus, not committed) from the real traces and the presets.
# usage: fuzz/seed.sh [TRACES_DIR]   (default $GPUSCHED_SHARED/traces, else ../shared/traces beside the repository)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
traces=${1:-${GPUSCHED_SHARED:-$root/../shared}/traces}
gpusched=${GPUSCHED:-$root/target/release/gpusched}
mkdir -p "$here/corpus/trace_to_gpu" "$here/corpus/config_to_gpu" "$here/corpus/mix_to_gpu" \
    "$here/corpus/gpgpusim_options" "$here/corpus/sweep_spec"
# Traces: the header and the first thread blocks of each real kernel (libFuzzer's -max_len
# is 65536 in the README's commands), cut at a line.
for k in "$traces"/*/kernel-*.traceg; do
    name=$(basename "$(dirname "$k")")
    head -c 60000 "$k" | sed '$d' > "$here/corpus/trace_to_gpu/$name"
    # The same as an xz stream (the tracer's output since 2025), whole and cut short.
    xz -c -1 "$here/corpus/trace_to_gpu/$name" > "$here/corpus/trace_to_gpu/$name.xz"
    head -c 2000 "$here/corpus/trace_to_gpu/$name.xz" > "$here/corpus/trace_to_gpu/$name.cut.xz"
done
# Configs: a selector byte (0 TOML, 1 JSON, 2 GPGPU-Sim), then the text.
for p in gtx480 titanx titanv gtx980; do
    { printf '\x00'; "$gpusched" config show "$p"; } > "$here/corpus/config_to_gpu/$p.toml"
    { printf '\x01'; "$gpusched" config show "$p" --json; } > "$here/corpus/config_to_gpu/$p.json"
done
{ printf '\x02'; cat "$root/configs/gtx480.gpgpusim.config"; } > "$here/corpus/config_to_gpu/gtx480.gpgpusim"
# Mixes: a selector byte (the kernel scheduler), then the example mix.
for i in 0 2 3 6 8; do
    { printf "\\x0$i"; cat "$root/mixes/two_streams.toml"; } > "$here/corpus/mix_to_gpu/two_streams_$i.toml"
done
# GPGPU-Sim option files: ours, and one with every structured option in its other forms
# (GPGPU-Sim 3.x caches, the legacy positional DRAM timing, two-level scheduling).
cp "$root/configs/gtx480.gpgpusim.config" "$here/corpus/gpgpusim_options/gtx480.config"
cat > "$here/corpus/gpgpusim_options/forms.config" <<'CFG'
-gpgpu_cache:dl1 32:128:4,L:E:m:N,A:32:8,8
-gpgpu_cache:il1 N:4:128:4,L:R:m:N:L,S:2:32,4
-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:L,A:32:4,4:0,32
-gpgpu_dram_timing_opt 16:2:6:12:28:12:40:12:4:5:12:1:0:0
-gpgpu_clock_domains 700.0:1400.0:700.0:924.0
-gpgpu_scheduler two_level_active:6:0:1
-gpgpu_flush_l1_cache
-gpgpu_coalesce_arch 0x14
-power_simulation_enabled 0
-trace_opcode_latency_initiation_int 4,2
CFG
# Sweep specs: the example, and the one `repro` writes.
cp "$root/sweeps/example.toml" "$here/corpus/sweep_spec/example.toml"
printf '[sweep]\nname = "repro-elf"\nworkloads = ["stream", "bfs"]\nsizes = ["small"]\nconfigs = ["gtx480"]\nmetrics = ["cycles", "ipc"]\n\n[[policy]]\nname = "gto"\nargs = "--warp-sched gto"\n' \
    > "$here/corpus/sweep_spec/repro.toml"
for d in "$here"/corpus/*; do echo "$d: $(ls "$d" | wc -l) inputs"; done
