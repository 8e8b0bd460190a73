#!/usr/bin/env bash
# Install the pinned agent hosts the end-to-end suite runs against, from the
# npm registry, each into its own prefix: PREFIX/<name>/node_modules/.bin/<bin>.
#
# Usage: scripts/install-hosts.sh [PREFIX]      (default: target/hosts)
#   SHELLGATE_HOSTS="claude-code codex gemini claude-code-2.1.197" selects hosts.
#
# Idempotent: a host whose PREFIX/<name>/.installed-version matches its pin
# and whose binary reports that version is left alone. Exits 0 with
# "skipping: ..." when npm is missing (the suite then skips as well).
#
# Node: Claude Code 2.1.330 declares engines node >= 22, so on node 20 a plain
# `npm install @anthropic-ai/claude-code` resolves to 2.1.197 instead. Naming
# the version installs 2.1.330 (npm only warns, EBADENGINE) and its `claude`
# is a native executable that does not need node at run time, so node 20 is
# enough here. 2.1.197 is installed too: it is what node-20 users get.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:-target/hosts}

# name | npm package | version | bin
pins='claude-code|@anthropic-ai/claude-code|2.1.330|claude
claude-code-2.1.197|@anthropic-ai/claude-code|2.1.197|claude
codex|@openai/codex|0.169.0|codex
gemini|@google/gemini-cli|0.61.0|gemini'

wanted=${SHELLGATE_HOSTS:-"claude-code claude-code-2.1.197 codex gemini"}

if ! command -v npm >/dev/null 2>&1; then
  echo "skipping: npm not found; the hosts are not installed and the host end-to-end suite will skip"
  exit 0
fi
if ! command -v node >/dev/null 2>&1; then
  echo "skipping: node not found; the hosts are not installed and the host end-to-end suite will skip"
  exit 0
fi

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
echo "hosts prefix: $prefix (node $(node --version), npm $(npm --version 2>/dev/null))"

# npm's download cache goes to a scratch directory removed at exit: the
# installed trees are what the suite needs, and a second copy of every
# tarball in ~/.npm only costs disk (CI once ran out of it here).
npm_config_cache=$(mktemp -d)
export npm_config_cache
trap 'rm -rf "$npm_config_cache"' EXIT

failed=0
while IFS='|' read -r name pkg version bin; do
  case " $wanted " in *" $name "*) ;; *) continue ;; esac
  dir="$prefix/$name"
  exe="$dir/node_modules/.bin/$bin"
  if [ -f "$dir/.installed-version" ] && [ "$(cat "$dir/.installed-version")" = "$version" ] \
     && [ -x "$exe" ] && HOME="$dir" "$exe" --version 2>/dev/null | grep -qF "$version"; then
    echo "ok: $name $version already installed ($exe)"
    continue
  fi
  echo "installing: $pkg@$version into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  start=$(date +%s)
  # engine-strict off: Claude Code 2.1.330 declares node >= 22 but its
  # native binary runs without node (see above).
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
       --engine-strict=false "$pkg@$version" >"$dir/npm-install.log" 2>&1; then
    echo "FAILED: npm install $pkg@$version (log: $dir/npm-install.log)"
    tail -20 "$dir/npm-install.log" || true
    failed=1
    continue
  fi
  got=$(HOME="$dir" "$exe" --version 2>/dev/null || true)
  if ! printf '%s' "$got" | grep -qF "$version"; then
    echo "FAILED: $exe --version says '$got', expected $version"
    failed=1
    continue
  fi
  printf '%s\n' "$version" > "$dir/.installed-version"
  echo "installed: $name $version in $(( $(date +%s) - start ))s ($got)"
done <<< "$pins"

exit "$failed"
