#!/usr/bin/env bash
# The main job: installs Verilator and Yosys if missing, builds gpusched, then checks rtl-out/
# against hdl/, lints and synthesizes every module, and runs the lockstep regression of every
# block x policy x preset. Extra arguments go to `gpusched regress` (e.g. --cycles 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cargo run --release -j2 --quiet -- regress "$@"
