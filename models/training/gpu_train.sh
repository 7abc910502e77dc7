#!/bin/sh
# One session of training on a lent GPU machine, inside a call's time limit: generate a fresh training set
# there (the 465 MB local one cannot travel; the textures it is drawn from can, in cache/shared-data),
# then train or resume RUN until DEADLINE seconds after this script started, saving RUN/last.pt.
# The learning-rate schedule spans MINUTES of training over however many sessions it takes.
#
# Usage: sh gpu_train.sh RUN MINUTES SEED DEADLINE [ARCH]     e.g. sh gpu_train.sh runs/g1 15 21 555 wide
#   STYLES="1:3000 2:5000" (the default): how many scenes of each generator style; the Nth entry uses seed SEED+N-1
#   TRAIN_ARGS="--photo-aug --snapshot-every 1.5": more train.py options
#
# Before: copy the textures beside this script (23 MB), keeping shared/data's layout:
#   D=cache/shared-data/grocery-store-dataset/dataset; S=../../../shared/data
#   mkdir -p $D/iconic-images-and-descriptions $D/train
#   cp -r $S/grocery-store-dataset/dataset/iconic-images-and-descriptions/Packages $D/iconic-images-and-descriptions/
#   cp -r $S/grocery-store-dataset/dataset/train/Packages $D/train/; cp -r $S/sku-crops cache/shared-data/
# ARCH mnv2 (model.MobileShelfNet) also needs the ported backbone, which that machine cannot fetch: run
# `python3 pretrained_backbone.py` here first and carry cache/objectron/mobilenet_v2.pt; pass --freeze and
# --backbone-lr in TRAIN_ARGS.
# A call that starts a fresh machine regenerates the set (about 145 s for 8000 scenes on 16 cores); the
# same SEED and STYLES give the same scenes. Resuming needs RUN/last.pt back on that machine.
set -eu
start=$(date +%s)
cd "$(dirname "$0")"
RUN=$1 MINUTES=$2 SEED=$3 DEADLINE=$4 ARCH=${5:-wide}
export SHELF_DATA=${SHELF_DATA:-$PWD/cache/shared-data} PYTHONUNBUFFERED=1
nvidia-smi -L || true
python3 -c 'import torch, cv2; print("torch", torch.__version__, "cv2", cv2.__version__, "cuda", torch.cuda.is_available())'
CPUS=$(nproc)
STYLES=${STYLES:-1:3000 2:5000}
DATA=/tmp/shelf-train-$SEED-$(echo "$STYLES" | tr ' :' '_-')
sh generate_styles.sh "$DATA" "$SEED" "$STYLES"
echo "generated $(ls "$DATA" | grep -c json) scenes in $(( $(date +%s) - start )) s"
left=$(( DEADLINE - ($(date +%s) - start) - 30 ))
[ "$left" -gt 30 ] || { echo "no time left to train"; exit 1; }
python3 train.py --data "$DATA" --run "$RUN" --arch "$ARCH" --batch 32 --lr 3e-3 --workers $((CPUS - 1)) --threads 4 \
  --minutes "$MINUTES" --stop-after "$(python3 -c "print($left / 60)")" --log-every 250 ${TRAIN_ARGS:-}
