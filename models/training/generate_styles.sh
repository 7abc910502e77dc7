#!/bin/sh
# Generates a training set of several generator styles into DATA, once (DATA/complete marks it done),
# for the GPU scripts (gpu_train.sh, gpu_continue.sh), which draw their scenes on the machine they train on.
#
# Usage: sh generate_styles.sh DATA SEED "STYLE:COUNT ..." [PYTHON]
#   the Nth entry uses seed SEED+N-1; scenes are numbered on across entries.
#   The held-out sets (held-out-sets.json, and val-proc at 997) use seeds 993..999: keep SEED away from them.
set -eu
cd "$(dirname "$0")"
DATA=$1 SEED=$2 STYLES=$3 PY=${4:-python3}
if [ ! -f "$DATA/complete" ]; then
  first=0 seed=$SEED
  for entry in $STYLES; do
    style=${entry%%:*} count=${entry#*:}
    $PY generator.py "$DATA" --count "$count" --start "$first" --seed "$seed" --style "$style" --workers "$(nproc)"
    first=$((first + count)) seed=$((seed + 1))
  done
  touch "$DATA/complete"
fi
