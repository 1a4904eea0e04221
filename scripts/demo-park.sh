#!/usr/bin/env bash
# npm run demo:park: platctl down and up against emulators, offline, in one command.
#
# 1. checks that moto can be started (python3 -m moto.server; see docs/park.md);
# 2. builds platctl (npm run build) if dist/ is missing or older than a source file;
# 3. runs dist/scripts/demo-park.js, which starts moto and a real Kubernetes API server (etcd and kube-apiserver from
#    .tools/bin, built by `npm run tools`; the same start-up as the tests), seeds a parkable environment, and runs
#    `platctl down --dry-run`, `down`, `status`, `up` and `status` in .demo/park (git-ignored), then stops both; with --keep (npm run demo:park -- --keep) it leaves them running, prints the
#    variables to export and the commands to try by hand, and stops them on Ctrl-C or SIGTERM.
# Exit code: 0 when down and up both succeeded (2 for an unknown argument, 3 when moto or the Kubernetes binaries are
# missing).
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo_root"

if ! python3 -c 'import moto.server' 2>/dev/null; then
  echo "demo:park needs moto: python3 -m pip install 'moto[server]'" >&2
  exit 3
fi

# tsc rewrites every output file, so dist/cli/main.js is as new as the last build.
if [[ ! -f dist/cli/main.js || ! -f dist/scripts/demo-park.js ]] ||
  [[ -n "$(find cli config discover engine validate park cloud hooks scripts tests/helpers -name '*.ts' -newer dist/cli/main.js -print -quit 2>/dev/null)" ]]; then
  echo "building platctl (npm run build)"
  npm run --silent build
fi

exec node dist/scripts/demo-park.js "$@"
