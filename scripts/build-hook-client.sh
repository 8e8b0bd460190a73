#!/usr/bin/env bash
# Build the hook client `shellgate-hook` statically linked (Linux): it then
# starts without the dynamic loader (no libc/libgcc_s to map and relocate),
# about 0.35 ms less per tool call than the dynamically linked build that
# `cargo build` makes (BENCHMARKS.md, "Hook client"). Installs it next to the
# `shellgate` given (default: target/release/shellgate).
#
# Usage: scripts/build-hook-client.sh [PATH/TO/shellgate]
set -euo pipefail
cd "$(dirname "$0")/.."
gate=${1:-target/release/shellgate}
case "$(uname -s)" in
  Linux) ;;
  *) echo "a static build is for Linux; use the client cargo builds" >&2; exit 1 ;;
esac
host=$(rustc -vV | sed -n 's/^host: //p')
# `--target` keeps the flag off build scripts and proc macros (which cannot
# be static); the flag links glibc statically (the client calls no NSS).
RUSTFLAGS="-C target-feature=+crt-static" \
  cargo build --release --quiet --target "$host" -p shellgate --bin shellgate-hook
install -m 0755 "target/$host/release/shellgate-hook" "$(dirname "$gate")/shellgate-hook"
echo "installed $(dirname "$gate")/shellgate-hook (static)"
