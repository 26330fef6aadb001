#!/usr/bin/env bash
# The test suite: installs Verilator and Yosys if missing, then runs every test of the workspace
# in release mode (the lockstep tests simulate millions of cycles).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cargo test --release -j2 --workspace "$@"
