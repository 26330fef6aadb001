#!/usr/bin/env bash
# Installs what gpusched needs besides cargo: Verilator (co-simulation, lint), Yosys
# (synthesis gate), g++ (the Verilated models), tar and xz (the reference set's trace archives,
# `bench --reference`). Idempotent: does nothing when all are on PATH. Needs root (or sudo) and
# Debian/Ubuntu's apt-get.
set -euo pipefail
missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v tar >/dev/null 2>&1 || missing+=(tar)
command -v xz >/dev/null 2>&1 || missing+=(xz-utils)
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
