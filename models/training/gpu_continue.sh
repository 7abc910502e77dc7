#!/bin/sh
# Phase B continued on a lent GPU machine: fresh scenes of all six styles, then
# two continuations of one mnv2 checkpoint side by side on the one GPU, with the same crops (same seeds):
# gA trains the whole backbone, gB keeps the stem and the first 6 blocks (strides 2 to 8) fixed.
# Snapshots (every $SNAPS-th of the time) and the final weights of each go to $OUT.
# RUNS names the runs and the blocks each keeps fixed (name:freeze, -1: the whole backbone); the default is
# the pair gA, gB (models/RESEARCH_LOG.md); SEED the first generator seed (51 then; the held-out sets use 993..999).
# The shipped detector is a weight average of INIT and such a run's final (average.py): see models/MODEL_CARD.md and RESEARCH_LOG.md.
#
# Usage (from the repo root on the GPU machine): DEADLINE=520 sh models/training/gpu_continue.sh INIT.pt
#   carry models/training/cache/shared-data (textures, as gpu_train.sh says), models/training/cache/objectron/
#   mobilenet_v2.pt (pretrained_backbone.py) and INIT.pt (e.g. runs/c1/snap-3237.pt copied under cache/).
#   COUNTS: scenes per style (style:count, seeds SEED on); W: loader processes per run; PY: the python;
#   TRAIN_ARGS: more train.py options for every run (later ones win).
# Every step also runs on CPU (no GPU found: torch trains there), only slower.
set -u
start=$(date +%s)
cd "$(dirname "$0")"
INIT=$(realpath "${1:?usage: gpu_continue.sh INIT.pt}")
export SHELF_DATA=${SHELF_DATA:-$PWD/cache/shared-data} PYTHONUNBUFFERED=1
PY=${PY:-python3} DEADLINE=${DEADLINE:-520} W=${W:-7} OUT=${OUT:-/tmp/out}
COUNTS=${COUNTS:-"1:600 2:1200 3:1050 4:1050 5:1050 6:1050"}
RUNS=${RUNS:-"gA:0 gB:6"} SEED=${SEED:-51} SNAPS=${SNAPS:-3.6}
nvidia-smi -L || true
$PY -c 'import torch, cv2; print("torch", torch.__version__, "cv2", cv2.__version__, "cuda", torch.cuda.is_available())'
DATA=${DATA:-/tmp/g31}  # drawn once (DATA/complete): remove it, or name another DATA, for other COUNTS
sh generate_styles.sh $DATA $SEED "$COUNTS" $PY >/tmp/gen.log 2>&1 || { tail /tmp/gen.log; exit 1; }
echo "generated $(ls $DATA | grep -c json) scenes in $(( $(date +%s) - start )) s"
left=$(( DEADLINE - ($(date +%s) - start) - 45 ))
mins=$($PY -c "print($left / 60)"); snap=$($PY -c "print($left / 60 / $SNAPS)")
common="--data $DATA --arch mnv2 --init $INIT --batch 32 --size 256 --photo-aug --lr 1e-3 --backbone-lr 0.1 --workers $W --threads 2 --minutes $mins --snapshot-every $snap --log-every 200 ${TRAIN_ARGS:-}"
for run in $RUNS; do
  $PY train.py $common --run /tmp/${run%%:*} --freeze ${run#*:} >/tmp/${run%%:*}.log 2>&1 &
done
wait
mkdir -p "$OUT"
for r in $(for run in $RUNS; do echo ${run%%:*}; done); do
  echo "== $r"; grep -v '^step' /tmp/$r.log | tail -5; grep '^step' /tmp/$r.log | awk 'NR % 4 == 0' | tail -8; tail -2 /tmp/$r.log
  for f in /tmp/$r/snap-*.pt /tmp/$r/final.pt; do [ -f "$f" ] && cp "$f" "$OUT/$r-$(basename $f)"; done
done
ls -la "$OUT"; echo "total $(( $(date +%s) - start )) s"
