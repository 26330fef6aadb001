#!/usr/bin/env bash
# Installs what gpusched needs besides cargo: Verilator (co-simulation, lint), Yosys
# (synthesis gate), g++ (the Verilated models) and ccache (the FPGA wrapper tests' 40
# Verilator builds share one compile of its runtime library), tar and xz (the reference set's trace archives,
# `bench --reference`), nextpnr-ice40 and icepack (`gpusched fpga` on the iCEBreaker), OpenSSL's
# headers and pkg-config (to build mdbook-linkcheck, `scripts/docs.sh`), DejaVu Sans (the tests
# render the figures with it).
# Idempotent: does nothing when all are on PATH. Needs root (or sudo) and Debian/Ubuntu's
# apt-get. (The ULX3S's nextpnr-ecp5 has no Debian 12 package: `gpusched fpga` names the PyPI
# one when it is missing.)
set -euo pipefail
missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v ccache >/dev/null 2>&1 || missing+=(ccache)
command -v tar >/dev/null 2>&1 || missing+=(tar)
command -v xz >/dev/null 2>&1 || missing+=(xz-utils)
command -v nextpnr-ice40 >/dev/null 2>&1 || missing+=(nextpnr-ice40)
command -v icepack >/dev/null 2>&1 || missing+=(fpga-icestorm)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
pkg-config --exists openssl 2>/dev/null || missing+=(libssl-dev)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then
  command -v sudo >/dev/null 2>&1 || { echo "need root or sudo to apt-get install ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
