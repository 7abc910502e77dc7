#!/bin/sh
# The price-tag detector's third session (RESEARCH_LOG.md section 23) in one call of a lent GPU machine: generate a
# large, varied set there (style 9: labels printed in TrueType faces, glyph_atlas.py), then train two arms side by
# side on it until SECONDS after this script started, and copy their weights into OUT:
#   a: from the pretrained backbone (the first file's recipe, --freeze 6), the neck's BatchNorms learning on batches of 32;
#   b: from the shipped file (onnx_import.py --save-pt; its folded BatchNorms held), at a lower rate (this arm's
#      final weights became models/price-tag-detector.onnx: RESEARCH_LOG.md section 23).
# Runs on the CPU too (slowly): nothing here needs CUDA.
#
# Usage: sh gpu_tags.sh OUT SECONDS
#   STYLES="9:3000 8:800 7:800 6:400" (default): scenes per generator style, seeds SEED, SEED+1, ... (SEED=101;
#   the held-out sets use 991..999); BATCH (32), MAX_STEPS (a test: stop each arm after so many steps).
# Before, beside this script: cache/glyphs/atlas.npz (glyph_atlas.py), cache/objectron/mobilenet_v2.pt
# (pretrained_backbone.py), cache/init/shipped-tags.pt (python3 onnx_import.py ../price-tag-detector.onnx --save-pt
# cache/init/shipped-tags.pt) and the textures in cache/shared-data (as gpu_train.sh says).
set -eu
start=$(date +%s)
cd "$(dirname "$0")"
OUT=$1 BUDGET=$2
export SHELF_DATA=${SHELF_DATA:-$PWD/cache/shared-data} PYTHONUNBUFFERED=1
mkdir -p "$OUT"
nvidia-smi -L || true
python3 -c 'import torch, cv2; print("torch", torch.__version__, "cv2", cv2.__version__, "cuda", torch.cuda.is_available())'
CPUS=$(nproc)
STYLES=${STYLES:-9:3000 8:800 7:800 6:400}
DATA=${DATA:-/tmp/tags-train-$(echo "$STYLES" | tr ' :' '_-')}
sh generate_styles.sh "$DATA" "${SEED:-101}" "$STYLES"
echo "generated $(ls "$DATA" | grep -c json) scenes in $(( $(date +%s) - start )) s"
left=$(( BUDGET - ($(date +%s) - start) - 25 ))  # 25 s to save and copy
[ "$left" -gt 30 ] || { echo "no time left to train"; exit 1; }
MIN=$(python3 -c "print($left / 60)")
SNAP=$(python3 -c "print($left / 60 / 3.2)")  # about three snapshots per arm
W=$(( (CPUS - 2) / 2 )); [ "$W" -ge 1 ] || W=1  # loader processes per arm: the loaders are the bottleneck
COMMON="--data $DATA --arch mnv2-tags --target tags --freeze 6 --size 256 --batch ${BATCH:-32} --photo-aug --shelf-aug
  --workers $W --threads 2 --minutes $MIN --snapshot-every $SNAP --log-every ${LOG_EVERY:-250} ${MAX_STEPS:+--max-steps $MAX_STEPS}"
echo "training two arms for $MIN min, $W loaders each"
python3 train.py $COMMON --run runs/t3a --lr 3e-3 --warmup 200 --seed 51 > "$OUT/a.log" 2>&1 &
A=$!
python3 train.py $COMMON --run runs/t3b --init cache/init/shipped-tags.pt --lr 1e-3 --warmup 100 --seed 52 > "$OUT/b.log" 2>&1 &
B=$!
rc=0; wait $A || rc=1; wait $B || rc=1
tail -n 3 "$OUT/a.log" "$OUT/b.log"
for arm in a b; do
  cp "runs/t3$arm/final.pt" "$OUT/$arm-final.pt" 2>/dev/null || cp "runs/t3$arm/last.pt" "$OUT/$arm-last.pt"
  for f in $(ls runs/t3$arm | grep '^snap-' | sort -t- -k2 -n | tail -n 2); do cp "runs/t3$arm/$f" "$OUT/$arm-$f"; done
done
ls -la "$OUT"
echo "total $(( $(date +%s) - start )) s"
exit $rc
