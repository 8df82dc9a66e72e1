#!/usr/bin/env bash
# Runs every PO-GP-UCB example config (Tables 1-12, Figs 2-3) into RESULTS (default results/) and
# writes README.md from the summaries. Usage: examples/po-gp-ucb/run_all.sh [RESULTS] [--runs R]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/results}"
shift || true
for c in table1-synthetic table2-synthetic table3-synthetic fig2a-synthetic \
         table10-branin table11-branin table12-branin fig3-branin \
         table7-property table8-property table9-property fig2c-property \
         table4-loans table5-loans table6-loans fig2b-loans; do
  name="$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['name'])" "$here/$c.json")"
  "$root/build/gpbandit" run "$here/$c.json" --out "$out/$name" --quiet --no-plot "$@"
done
python3 "$here/make_readme.py" "$out"
