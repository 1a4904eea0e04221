#!/usr/bin/env bash
# Build a real Kubernetes API server, etcd and kubectl from source into .tools/bin/ for the tests.
#
# k8s.io/kubernetes cannot be built as a plain dependency: its go.mod points every staging module (k8s.io/api,
# k8s.io/apimachinery, k8s.io/client-go, ...) at ./staging/... with version v0.0.0. So a scratch module in
# .tools/kube-build/ requires k8s.io/kubernetes at the pinned version and replaces every staging module that go.mod
# names with its published v0.x twin; etcd comes from a tiny main calling go.etcd.io/etcd/server/v3's etcdmain,
# built in the same module. See docs/tools.md.
#
# Nothing here is committed: .tools/ is git-ignored. Go's module and build caches make a second build fast (seconds);
# when .tools/bin already holds the pinned versions the script only prints them.
#
# Usage: bash scripts/install-kube.sh        (npm run tools runs it after terragrunt and OpenTofu)
# Env:   TOOLS_FORCE=1  rebuild even when the pinned versions are present.
#        TOOLS_PROGRESS_SECONDS  how often a long build prints that it is still running (default 30).
set -euo pipefail

# ---- pinned versions (change here; tests/helpers/kube-server.ts reads these lines) ----
KUBERNETES_VERSION=v1.37.2
KUBERNETES_STAGING_VERSION=v0.37.2
ETCD_VERSION=v3.7.3
# ----------------------------------------------------------------------------------

repo_root="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="$repo_root/.tools/bin"
build_dir="$repo_root/.tools/kube-build"
progress_every="${TOOLS_PROGRESS_SECONDS:-30}"
script_start=$(date +%s)

script_name=install-kube
# die, require_go, module_dir.
# shellcheck source=lib/go-build.sh
source "$repo_root/scripts/lib/go-build.sh"

say() { printf 'install-kube: [%4ss] %s\n' "$(($(date +%s) - script_start))" "$1"; }

require_go ">= the version k8s.io/kubernetes $KUBERNETES_VERSION's go.mod asks for"

# The version line each binary prints. `/version` of the server reports the same gitVersion (link flags below).
installed_apiserver() { "$bin_dir/kube-apiserver" --version 2>/dev/null | grep -m1 '^Kubernetes v' || true; }
installed_kubectl() { "$bin_dir/kubectl" version --client 2>/dev/null | grep -m1 '^Client Version: v' || true; }
installed_etcd() { "$bin_dir/etcd" --version 2>/dev/null | grep -m1 '^etcd Version: ' || true; }
want_apiserver="Kubernetes $KUBERNETES_VERSION"
want_kubectl="Client Version: $KUBERNETES_VERSION"
want_etcd="etcd Version: ${ETCD_VERSION#v}"

all_installed() {
  [[ "$(installed_apiserver)" == "$want_apiserver" && "$(installed_kubectl)" == "$want_kubectl" &&
    "$(installed_etcd)" == "$want_etcd" ]]
}

print_versions() {
  say "$bin_dir/kube-apiserver: $(installed_apiserver)"
  say "$bin_dir/kubectl: $(installed_kubectl)"
  say "$bin_dir/etcd: $(installed_etcd)"
}

if [[ "${TOOLS_FORCE:-}" != 1 ]] && all_installed; then
  print_versions
  exit 0
fi

# run_with_progress LABEL CMD...: runs CMD (its output passes through), printing a line every $progress_every
# seconds while it runs, so a 30-minute cold build never looks hung. Returns CMD's exit status.
run_with_progress() {
  local label="$1" started pid status ticker
  shift
  started=$(date +%s)
  "$@" &
  pid=$!
  (
    while sleep "$progress_every"; do
      kill -0 "$pid" 2>/dev/null || exit 0
      say "$label: still running, $(($(date +%s) - started))s so far"
    done
  ) &
  ticker=$!
  status=0
  wait "$pid" || status=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  say "$label: finished in $(($(date +%s) - started))s"
  return "$status"
}

# Writes the scratch module: go.mod with a replace for every staging module k8s.io/kubernetes names, and etcd's main.
# The module is kept (git-ignored) with its go.sum, so a warm run does not resolve the module graph again.
prepare_module() {
  local k8s_dir stamp staging
  stamp="$KUBERNETES_VERSION $KUBERNETES_STAGING_VERSION $ETCD_VERSION"
  if [[ -f "$build_dir/go.sum" && "$(cat "$build_dir/.pins" 2>/dev/null)" == "$stamp" ]]; then
    say "module $build_dir already resolved for $stamp"
    return
  fi
  say "downloading k8s.io/kubernetes $KUBERNETES_VERSION"
  k8s_dir="$(module_dir k8s.io/kubernetes "$KUBERNETES_VERSION")"
  # Lines like "	k8s.io/api => ./staging/src/k8s.io/api" in its replace block.
  staging="$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$k8s_dir/go.mod" | sort -u)"
  [[ -n "$staging" ]] || die "found no staging modules in $k8s_dir/go.mod; has its layout changed?"
  rm -rf "$build_dir"
  mkdir -p "$build_dir/cmd/etcd"
  {
    printf 'module platctl.local/kube-build\n\ngo %s\n\n' "$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$k8s_dir/go.mod")"
    printf 'require (\n\tk8s.io/kubernetes %s\n\tgo.etcd.io/etcd/server/v3 %s\n)\n\nreplace (\n' \
      "$KUBERNETES_VERSION" "$ETCD_VERSION"
    local m
    for m in $staging; do printf '\t%s => %s %s\n' "$m" "$m" "$KUBERNETES_STAGING_VERSION"; done
    printf ')\n'
  } >"$build_dir/go.mod"
  cat >"$build_dir/cmd/etcd/main.go" <<'EOF'
// etcd for platctl's tests: the released server's own entry point.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  # Blank imports so `go mod tidy` keeps what the builds below need.
  cat >"$build_dir/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
EOF
  say "resolving the module graph ($(printf '%s\n' "$staging" | wc -l) staging modules replaced by $KUBERNETES_STAGING_VERSION)"
  run_with_progress "go mod tidy" bash -c "cd '$build_dir' && go mod tidy" || die "go mod tidy in $build_dir failed (output above)"
  printf '%s' "$stamp" >"$build_dir/.pins"
}

# build NAME PACKAGE LDFLAGS: build PACKAGE of the scratch module into .tools/bin/NAME.
build() {
  local name="$1" package="$2" ldflags="$3"
  say "building $name ($package)"
  mkdir -p "$bin_dir"
  # -trimpath keeps paths out of the binary and the build cache keys; nice: heavy on a small machine.
  if ! run_with_progress "go build $name" bash -c "cd '$build_dir' && nice -n 10 go build -mod=readonly -trimpath \
    -buildvcs=false -ldflags '$ldflags' -o '$bin_dir/$name.tmp' '$package'"; then
    rm -f "$bin_dir/$name.tmp"
    die "go build of $package failed (output above)"
  fi
  mv -f "$bin_dir/$name.tmp" "$bin_dir/$name"
}

prepare_module

# As Kubernetes' own release build does (hack/lib/version.sh): the version is linked into component-base, so
# `kube-apiserver --version`, `kubectl version` and the server's /version say v1.37.2, not v0.0.0-master.
minor="${KUBERNETES_VERSION#v1.}"
minor="${minor%%.*}"
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  kube_ldflags+=" -X $pkg.gitTreeState=clean"
done

[[ "${TOOLS_FORCE:-}" != 1 && "$(installed_etcd)" == "$want_etcd" ]] || build etcd ./cmd/etcd "-s -w"
[[ "${TOOLS_FORCE:-}" != 1 && "$(installed_apiserver)" == "$want_apiserver" ]] ||
  build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
[[ "${TOOLS_FORCE:-}" != 1 && "$(installed_kubectl)" == "$want_kubectl" ]] ||
  build kubectl k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"

[[ "$(installed_etcd)" == "$want_etcd" ]] || die "$bin_dir/etcd reports '$(installed_etcd)', expected '$want_etcd'"
[[ "$(installed_apiserver)" == "$want_apiserver" ]] ||
  die "$bin_dir/kube-apiserver reports '$(installed_apiserver)', expected '$want_apiserver'"
[[ "$(installed_kubectl)" == "$want_kubectl" ]] ||
  die "$bin_dir/kubectl reports '$(installed_kubectl)', expected '$want_kubectl'"
print_versions
say "done in $(($(date +%s) - script_start))s"
