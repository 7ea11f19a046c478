#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages), builds ctrl, then either
# shows it finding a bug in a sample ("demo") or runs the whole test suite
# ("test"). Usage: bash scripts/setup.sh demo|test [BUILD_DIR]
set -euo pipefail

mode=${1:-demo}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${2:-$root/build}

packages=(build-essential cmake pkg-config libcapstone-dev libcadical-dev libprotobuf-dev protobuf-compiler
  libunwind-dev libgtest-dev libcli11-dev libfmt-dev nlohmann-json3-dev libdw-dev libelf-dev libedit-dev)
# The realworld tests run ctrl on these real programs (OpenMP comes with
# gcc's libgomp).
if [ "$mode" = test ]; then
  packages+=(xz-utils pigz zstd pbzip2 lbzip2 coreutils libglib2.0-dev gdb)
  # Issue 22: programs in other runtimes and libraries (rustc builds the
  # suite's Rust std program, golang-go its cgo Go program).
  packages+=(ripgrep fd-find p7zip-full plzip pixz ffmpeg libtbb-dev liburcu-dev libboost-system-dev libuv1-dev rustc golang-go)
  # Issue 25: the SARIF test validates with jsonschema.
  packages+=(python3 python3-jsonschema)
  # Issue 25: the pictures test opens ctrl's HTML pages in headless Chromium.
  packages+=(chromium)
  # Issue 26: the fuzz label's unusual programs include a 32-bit build
  # (gcc -m32) and ctrl run under strace -f.
  packages+=(gcc-multilib strace)
  # Issue 28: the mpi label runs ctrl attach --mpi under Open MPI's mpirun.
  packages+=(libopenmpi-dev openmpi-bin)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"

case "$mode" in
  demo)
    echo
    echo "setup: ctrl attach samples/deadlock_lock_order (systematic exploration)"
    set +e
    (cd "$build" && "$build/bin/ctrl" attach "$build/bin/deadlock_lock_order")
    status=$?
    set -e
    # Exit status 1 means ctrl found the bug, which is what the demo shows.
    if [ "$status" -ne 1 ]; then
      echo "setup: expected ctrl to find the deadlock (exit 1), got exit $status" >&2
      exit 1
    fi
    ;;
  test)
    status=0
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 600 || status=$?
    if [ "$status" -ne 0 ]; then
      # A log's tail is often all that is kept of a CI run: each failed
      # test's own lines that say why, again, last.
      log=$build/Testing/Temporary/LastTest.log
      for t in $(cat "$build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null | cut -d: -f2-); do
        echo "setup: why $t failed:"
        awk -v t="$t" '$0 ~ "Testing: " t "$" { on = 1 } on { print } on && $0 ~ "^\"" t "\" end time" { exit }' \
          "$log" | grep -E "FAIL|fail|error|Error|expected|not |exit" | tail -8 | cut -c1-300
      done
      exit "$status"
    fi
    ;;
  *)
    echo "usage: bash scripts/setup.sh demo|test [BUILD_DIR]" >&2
    exit 2
    ;;
esac
