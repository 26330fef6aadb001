#!/bin/bash
# Seeds the fuzz corpora (fuzz/corpus, not committed) from the real traces and the presets.
# usage: fuzz/seed.sh [TRACES_DIR]   (default $GPUSCHED_SHARED/traces, else ../shared/traces beside the repository)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
traces=${1:-${GPUSCHED_SHARED:-$root/../shared}/traces}
gpusched=${GPUSCHED:-$root/target/release/gpusched}
mkdir -p "$here/corpus/trace_to_gpu" "$here/corpus/config_to_gpu" "$here/corpus/mix_to_gpu"
# Traces: the header and the first thread blocks of each real kernel (libFuzzer's -max_len
# is 65536 in the README's commands), cut at a line.
for k in "$traces"/*/kernel-*.traceg; do
    name=$(basename "$(dirname "$k")")
    head -c 60000 "$k" | sed '$d' > "$here/corpus/trace_to_gpu/$name"
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
ls "$here"/corpus/* | head -20
