# Shared by scripts/install-tools.sh and scripts/install-kube.sh, which source it: stopping with an error, checking
# for the Go toolchain, and finding a pinned module's source in Go's module cache.
#
# The sourcing script sets `script_name` first (e.g. install-tools): every error line starts with it.

# die MESSAGE: print "SCRIPT_NAME: error: MESSAGE" on stderr and stop the script.
die() {
  printf '%s: error: %s\n' "$script_name" "$1" >&2
  exit 1
}

# require_go WHICH: stop unless `go` is on PATH (WHICH says which Go version is needed); then build with that Go only
# (never let go fetch a toolchain behind our back; the modules' go.mod name a minimum Go version) and without cgo
# (static binaries, no C toolchain needed).
require_go() {
  command -v go >/dev/null 2>&1 || die "go is not on PATH; a Go toolchain ($1) is required"
  export GOTOOLCHAIN=local
  export CGO_ENABLED=0
}

# module_dir MODULE VERSION: prints the module's extracted source directory in the module cache, downloading it when
# missing. A proxy refusal (e.g. "403 Forbidden ... not available") is printed verbatim and stops the script.
module_dir() {
  local module="$1" version="$2" json dir err
  if ! json="$(go mod download -json "$module@$version" 2>&1)"; then
    err="$(printf '%s\n' "$json" | sed -n 's/.*"Error": "\(.*\)",\{0,1\}$/\1/p')"
    # %b turns the JSON string's \n and \t back into line breaks.
    die "$(printf 'cannot download %s@%s:\n%b' "$module" "$version" "${err:-$json}")"
  fi
  dir="$(printf '%s\n' "$json" | sed -n 's/.*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -n "$dir" && -d "$dir" ]] || die "go mod download $module@$version gave no directory: $json"
  printf '%s\n' "$dir"
}
