#!/usr/bin/env bash
# The main job: read every tier over a range of value sizes and print what each costs.
# Arguments are passed to the example (for example: --sizes 8,4096,1048576).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

cargo run --release --example tiers -- "$@"
