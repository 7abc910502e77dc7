#!/bin/sh
# The price-tag detector's second session (models/MODEL_CARD-price-tags.md, RESEARCH_LOG.md section 22), on the CPU:
#   sh continue_tags.sh [MINUTES]   (from models/training; the shared data's textures in SHELF_DATA)
# Continues the model train_tags.sh made, from its ONNX file (its checkpoints are not kept: train.py --init-onnx),
# on a new mix: 250 style 7 and 100 style 6 scenes of train_tags.sh's seeds, and 300 style 8 scenes (shelf edges
# with labels of the real ones' size, shape and colours), half of the crops from the style 8 ones.
set -e
MIN=${1:-75}
export SHELF_DATA=${SHELF_DATA:-../../../shared/data}
python3 generator.py cache/tags/held-out-7 --count 30 --seed 991 --style 7
python3 generator.py cache/tags/held-out-6 --count 30 --seed 992 --style 6
python3 generator.py cache/tags/train --count 250 --seed 71 --style 7
python3 generator.py cache/tags/train --count 100 --seed 72 --style 6 --start 500
python3 generator.py cache/tags/train --count 300 --seed 81 --style 8 --start 1000 --workers 2
python3 generator.py cache/tags/held-out-8 --count 30 --seed 993 --style 8
python3 train.py --data cache/tags/train --run runs/tags2 --arch mnv2-tags --target tags --freeze 6 \
  --init-onnx ../price-tag-detector.onnx --size 256 --batch 8 --lr 1e-3 --warmup 10 --photo-aug --shelf-aug \
  --seed 47 --minutes "$MIN" --snapshot-every 10 --log-every 10 --recent-from 1000 --recent-frac 0.5
# then, if the held-out generated sets say so (npm run bench -- price-tags, PRICE_TAG_MODEL=the candidate):
# python3 export.py runs/tags2/final.pt ../price-tag-detector.onnx --score-threshold CUT --input-size 1024 --check-dir runs/tags2/check
