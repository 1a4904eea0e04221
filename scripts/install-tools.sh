#!/usr/bin/env bash
# Build the real Terragrunt and OpenTofu from source into .tools/bin/ for the end-to-end tests.
#
# Both modules carry `replace` directives in their go.mod, so `go install module/cmd@version` refuses them.
# Instead: `go mod download` the pinned module version, copy its (read-only) directory to a writable temp dir and
# `go build` the main package there, the way each project's own release build does (see docs/tools.md).
#
# Nothing here is committed: .tools/ is git-ignored. Go's module and build caches (GOMODCACHE, GOCACHE; the
# defaults unless the caller sets them) make a second build fast; when .tools/bin already holds the pinned
# versions the script only prints them.
#
# Usage: bash scripts/install-tools.sh        (or: npm run tools)
# Env:   TOOLS_FORCE=1  rebuild even when the pinned versions are present.
#        TOOLS_PROGRESS_SECONDS=30  how often a line tells the elapsed time while a build runs.
#
# A cold build (empty Go caches) of both needs about 13 minutes of CPU: about 6.5 minutes on an idle 2-core machine,
# 67 minutes measured on a busy one (docs/tools.md). Every TOOLS_PROGRESS_SECONDS a plain line says which build runs
# and for how long.
set -euo pipefail

# ---- pinned versions (change here; tests/e2e/helpers/tools.ts reads these lines) ----
TERRAGRUNT_VERSION=v1.1.3
OPENTOFU_VERSION=v1.12.6
# ----------------------------------------------------------------------------------

TERRAGRUNT_MODULE=github.com/gruntwork-io/terragrunt
OPENTOFU_MODULE=github.com/opentofu/opentofu

repo_root="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="$repo_root/.tools/bin"

script_name=install-tools
# die, require_go, module_dir.
# shellcheck source=lib/go-build.sh
source "$repo_root/scripts/lib/go-build.sh"

# No cgo (require_go): both projects release with CGO_ENABLED=0.
require_go ">= the version these modules' go.mod ask for"

# The version line each binary prints, exactly as its release build prints it. Picked by pattern, not position:
# tofu prints warnings before it on stdout (e.g. when TF_CLI_CONFIG_FILE names a missing file).
installed_terragrunt() { "$bin_dir/terragrunt" --version 2>/dev/null | grep -m1 '^terragrunt version ' || true; }
installed_tofu() { "$bin_dir/tofu" version 2>/dev/null | grep -m1 '^OpenTofu v' || true; }
want_terragrunt="terragrunt version $TERRAGRUNT_VERSION"
want_tofu="OpenTofu $OPENTOFU_VERSION"

work_dirs=()
# The build runs in the background (so its elapsed time can be shown), where a script ignores Ctrl-C: stop it here.
build_pid=
cleanup() {
  local d
  if [[ -n "$build_pid" ]] && kill -0 "$build_pid" 2>/dev/null; then
    kill -TERM "$build_pid" 2>/dev/null || true
    wait "$build_pid" 2>/dev/null || true
  fi
  for d in "${work_dirs[@]}"; do
    chmod -R u+w "$d" 2>/dev/null || true
    rm -rf "$d"
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# "12m30s"
elapsed_since() {
  local seconds=$(($(date +%s) - $1))
  printf '%dm%02ds' $((seconds / 60)) $((seconds % 60))
}

# with_progress LABEL STARTED COMMAND...: runs COMMAND (its output is ours) and, while it runs, prints every
# TOOLS_PROGRESS_SECONDS (default 30) "install-tools: LABEL: still running, 12m30s elapsed"; returns its exit code.
with_progress() {
  local label="$1" started="$2" every="${TOOLS_PROGRESS_SECONDS:-30}" pid next
  shift 2
  [[ "$every" =~ ^[1-9][0-9]*$ ]] || die "TOOLS_PROGRESS_SECONDS must be a whole number of seconds, got '$every'"
  "$@" &
  pid=$!
  build_pid=$pid
  next=$(($(date +%s) + every))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (($(date +%s) >= next)) && kill -0 "$pid" 2>/dev/null; then
      printf 'install-tools: %s: still running, %s elapsed\n' "$label" "$(elapsed_since "$started")"
      next=$(($(date +%s) + every))
    fi
  done
  build_pid=
  wait "$pid"
}

# build NAME MODULE VERSION PACKAGE LDFLAGS: build PACKAGE of MODULE@VERSION into .tools/bin/NAME.
build() {
  local name="$1" module="$2" version="$3" package="$4" ldflags="$5" src work started
  started=$(date +%s)
  printf 'install-tools: building %s %s (%s) ...\n' "$name" "$version" "$module"
  src="$(module_dir "$module" "$version")"
  work="$(mktemp -d "${TMPDIR:-/tmp}/platctl-build-$name.XXXXXX")"
  work_dirs+=("$work")
  cp -R "$src/." "$work/"
  chmod -R u+w "$work"
  mkdir -p "$bin_dir"
  # -trimpath keeps the temp dir out of the binary and out of the build cache keys, so reruns hit the cache.
  # -mod=readonly: build exactly what the release's go.sum pins. nice: this is heavy on a 2-core machine.
  if ! with_progress "building $name $version" "$started" \
    bash -c 'cd "$1" && shift && exec nice -n 10 "$@"' build "$work" \
    go build -mod=readonly -trimpath -buildvcs=false -ldflags "$ldflags" -o "$bin_dir/$name.tmp" "$package"; then
    rm -f "$bin_dir/$name.tmp"
    die "go build of $module@$version failed (output above)"
  fi
  mv -f "$bin_dir/$name.tmp" "$bin_dir/$name"
  printf 'install-tools: built %s in %s\n' "$bin_dir/$name" "$(elapsed_since "$started")"
}

if [[ "${TOOLS_FORCE:-}" != 1 && "$(installed_terragrunt)" == "$want_terragrunt" ]]; then
  printf 'install-tools: %s already at %s\n' "$bin_dir/terragrunt" "$want_terragrunt"
else
  # As terragrunt's Makefile and release workflow do: the version is injected into internal/version.Version.
  build terragrunt "$TERRAGRUNT_MODULE" "$TERRAGRUNT_VERSION" . \
    "-s -w -X $TERRAGRUNT_MODULE/internal/version.Version=$TERRAGRUNT_VERSION"
fi

if [[ "${TOOLS_FORCE:-}" != 1 && "$(installed_tofu)" == "$want_tofu" ]]; then
  printf 'install-tools: %s already at %s\n' "$bin_dir/tofu" "$want_tofu"
else
  # As OpenTofu's .goreleaser.yaml does: the version comes from the embedded version/VERSION file and dev=no
  # drops the "-dev" suffix.
  build tofu "$OPENTOFU_MODULE" "$OPENTOFU_VERSION" ./cmd/tofu \
    "-s -w -X '$OPENTOFU_MODULE/version.dev=no'"
fi

got_terragrunt="$(installed_terragrunt)"
got_tofu="$(installed_tofu)"
[[ "$got_terragrunt" == "$want_terragrunt" ]] ||
  die "$bin_dir/terragrunt reports '$got_terragrunt', expected '$want_terragrunt'"
[[ "$got_tofu" == "$want_tofu" ]] || die "$bin_dir/tofu reports '$got_tofu', expected '$want_tofu'"
printf 'install-tools: %s\ninstall-tools: %s\n' "$got_terragrunt" "$got_tofu"
printf 'install-tools: PLATCTL_TERRAGRUNT=%s PLATCTL_TF_PATH=%s\n' "$bin_dir/terragrunt" "$bin_dir/tofu"
