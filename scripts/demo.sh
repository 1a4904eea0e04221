#!/usr/bin/env bash
# npm run demo: platctl on the example platform, for real and offline.
#
# 1. builds the real terragrunt and OpenTofu into .tools/bin if they are missing (scripts/install-tools.sh; it only
#    checks the versions when they are there);
# 2. builds platctl (npm run build) if dist/ is missing or older than a source file;
# 3. copies examples/platform to .demo/platform (git-ignored), fresh on every run, so the demo can be re-run;
# 4. runs `platctl graph`, `platctl bootstrap` and `platctl status` there, with PLATCTL_TERRAGRUNT and
#    PLATCTL_TF_PATH pointing at .tools/bin.
#
# The example's modules only use OpenTofu's built-in terraform_data resource: nothing is downloaded, nothing talks
# to AWS. PLATCTL_EXAMPLE_FAIL and PLATCTL_EXAMPLE_DELAY are passed through (docs/example-platform.md), e.g.
#   PLATCTL_EXAMPLE_FAIL=platform/cilium npm run demo      a failure, its skipped dependents, the resume command
#   PLATCTL_EXAMPLE_DELAY='*=1' npm run demo                slower units, to watch the live view
# Exit code: bootstrap's (0 when every unit completed).
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/.." && pwd)"

# tofu warns about a missing CLI config file before printing its version, terragrunt then fails every unit, and
# platctl refuses to start (exit 3). That is the operator's setting, not the demo's concern: drop it for the demo.
if [[ -n "${TF_CLI_CONFIG_FILE:-}" && ! -f "$TF_CLI_CONFIG_FILE" ]]; then
  printf 'demo: note: TF_CLI_CONFIG_FILE=%s does not exist; unsetting it for the demo ' "$TF_CLI_CONFIG_FILE"
  printf '(tofu and terragrunt fail with it, and platctl refuses to run).\n'
  unset TF_CLI_CONFIG_FILE
fi
# platctl runs in another directory below: a relative path that does exist must keep naming the same file.
if [[ -n "${TF_CLI_CONFIG_FILE:-}" && "$TF_CLI_CONFIG_FILE" != /* ]]; then
  TF_CLI_CONFIG_FILE="$PWD/$TF_CLI_CONFIG_FILE"
fi

cd "$repo_root"
demo_root="$repo_root/.demo/platform"

if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then
  step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  step() { printf '\n== %s\n' "$*"; }
fi

step "terragrunt and OpenTofu (scripts/install-tools.sh)"
bash scripts/install-tools.sh
export PLATCTL_TERRAGRUNT="$repo_root/.tools/bin/terragrunt"
export PLATCTL_TF_PATH="$repo_root/.tools/bin/tofu"

step "platctl (npm run build)"
# tsc rewrites every output file, so dist/cli/main.js is as new as the last build.
if [[ ! -f dist/cli/main.js ]] ||
  [[ -n "$(find cli config discover engine validate park cloud hooks -name '*.ts' -newer dist/cli/main.js -print -quit 2>/dev/null)" ]]; then
  npm run --silent build
  echo "built dist/"
else
  echo "dist/ is up to date"
fi
platctl() { node "$repo_root/bin/platctl.js" "$@"; }

step "a fresh copy of examples/platform in .demo/platform"
rm -rf "$demo_root"
mkdir -p "$(dirname "$demo_root")"
cp -R examples/platform "$demo_root"
# Whatever a local run left in examples/platform (git-ignored state, logs, caches) stays behind.
rm -rf "$demo_root"/.platctl-cache "$demo_root"/.platctl-logs "$demo_root"/.platctl-state.json* "$demo_root"/.platctl.lock
find "$demo_root" \( -name .terragrunt-cache -o -name '*.tfstate' -o -name '*.tfstate.backup' \) -prune -exec rm -rf {} +
echo "working in $demo_root"
cd "$demo_root"
for var in PLATCTL_EXAMPLE_FAIL PLATCTL_EXAMPLE_DELAY; do
  [[ -z "${!var:-}" ]] || printf 'demo: %s=%s\n' "$var" "${!var}"
done

step "platctl graph"
platctl graph

step "platctl bootstrap"
bootstrap_rc=0
platctl bootstrap || bootstrap_rc=$?

step "platctl status"
platctl status || true

cat <<EOF

The demo's repository is $demo_root. To go on by hand:
  cd $demo_root
  export PLATCTL_TERRAGRUNT=$PLATCTL_TERRAGRUNT PLATCTL_TF_PATH=$PLATCTL_TF_PATH
  alias platctl='node $repo_root/bin/platctl.js'
  less .platctl-logs/latest/2_platform__cilium.log    # one log per unit
  platctl bootstrap --resume                          # after a failure or Ctrl-C
  platctl teardown --yes                              # destroy all but the floor (platform/iam-roles)
EOF
exit "$bootstrap_rc"
