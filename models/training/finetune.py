"""Fine-tune the detector on supervisors' corrections: a training export (`npm run cli --
export-training --out EXPORT`, COCO) mixed with generated shelves, starting from the detector in use.

1. Splits the export's reviewed photos by scene into training and held-out scenes, deterministically
   from --seed (review_export.split_scenes).
2. Starts from a detector ONNX file (--base: the shipped model by default, or the one installed on the
   laptop), rebuilt in PyTorch by onnx_import.py, and fine-tunes every network of it with train.py's
   losses on crops (dataset.ShelfCrops) of which --mix come from the training photos and the rest from
   the generated shelves (--generated, generator.py's output), so the model keeps what it knows.
3. Scores the base and the fine-tuned model on the held-out photos through the app's own detector (the
   built detect CLI, as evaluate.py does): AP50, the same figure as the model card's.
4. Only if the new model's AP50 beats the base's by more than --min-gain, writes
   OUT/shelf-detector-VERSION.onnx and OUT/shelf-detector-VERSION.json (the figures); otherwise prints
   "not better, nothing written" with the figures and exits 0. --force writes it anyway (tests).
   Install it on a laptop with `npm run cli -- models install OUT/shelf-detector-VERSION.onnx --version VERSION`
   (`models rollback` goes back).

Exit status: 0 done (written or not), 2 bad input (an export that cannot be split, a missing folder).

Usage (from models/training, after `npm run build`):
  python3 finetune.py --export EXPORT --generated cache/train --out OUT [--minutes 10] [--steps N]
"""
import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader

import evaluate
from dataset import ShelfCrops, list_samples
from model import ShelfEnsemble
from onnx_export import export_onnx
from onnx_import import load_detector
from onnx_weights import UnknownGraph, freeze_batchnorm
from review_export import BadInput, model_version, read_export, sha256, split_scenes
from train import losses

DEFAULT_BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'shelf-detector.onnx')
APP_LONG_SIDE = 1280  # the app's input for a model without input_size metadata: training crops are cut at that scale
EXPORT_FIRST = 1_000_000  # sample numbers of the export's photos in the work folder, after the generated ones


def prepare_samples(work, generated, train_photos):
    """One folder in dataset.py's format: the generated scenes linked as 0..G-1 and the training photos,
    shrunk to the app's input scale, as EXPORT_FIRST.. (ShelfCrops' recent_from draws --mix from those)."""
    os.makedirs(work, exist_ok=True)
    stems = list_samples(generated)
    if not stems:
        raise BadInput(f'no generated scenes (NAME.jpg + NAME.json) in {generated}: run generator.py first')
    for k, s in enumerate(stems):
        for ext in ('.jpg', '.json'):
            os.symlink(os.path.abspath(s + ext), os.path.join(work, f'{k:07d}{ext}'))
    for k, p in enumerate(train_photos):
        img = cv2.imread(p['file'], cv2.IMREAD_COLOR)
        if img is None:
            raise BadInput(f"cannot read {p['file']}")
        scale = min(1.0, APP_LONG_SIDE / max(img.shape[:2]))
        if scale < 1:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        stem = os.path.join(work, f'{EXPORT_FIRST + k:07d}')
        cv2.imwrite(stem + '.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        with open(stem + '.json', 'w') as fh:
            json.dump({'width': img.shape[1], 'height': img.shape[0], 'boxes': (p['boxes'] * scale).round(1).tolist()}, fh)
    return len(stems)


def networks(model):
    return list(model.members) if isinstance(model, ShelfEnsemble) else [model]


def fine_tune(model, data, a):
    """Every network of `model` on the same batches, each with train.py's own losses; BatchNorm stays on the
    imported statistics. Warm-up then cosine decay over --steps, or over --minutes, whichever ends first."""
    torch.manual_seed(a.seed)
    ds = ShelfCrops(data, a.size, seed=a.seed, recent_from=EXPORT_FIRST, recent_frac=a.mix, photo_aug=a.photo_aug)
    dl = DataLoader(ds, batch_size=a.batch, num_workers=0)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    freeze_batchnorm(model.train())
    t0 = time.time(); step = 0; warm = max(1, min(50, a.steps // 10))
    for batch in dl:
        elapsed = time.time() - t0
        if step >= a.steps or elapsed >= a.minutes * 60:
            break
        frac = max(step / a.steps, elapsed / (a.minutes * 60))
        lr = a.lr * min(1.0, (step + 1) / warm) * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g['lr'] = lr
        loss = 0
        for net in networks(model):
            l_hm, l_wh, l_off = losses(net, batch)
            loss = loss + l_hm + 0.5 * l_wh + l_off
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        opt.step()
        step += 1
        if step % a.log_every == 0:
            print(f'step {step} t {elapsed / 60:.1f}m lr {lr:.5f} loss {loss.item():.3f}', flush=True)
    return model.eval(), step, time.time() - t0


def score(model_file, photos):
    """AP50 and AP of `model_file` on `photos` through the app's detector, every box down to evaluate.py's
    SCORE_FOR_AP (the ranking COCO uses)."""
    files = [os.path.abspath(p['file']) for p in photos]
    res = evaluate.detect(files, ['--model', os.path.abspath(model_file), '--score-threshold', str(evaluate.SCORE_FOR_AP)])
    dets = [evaluate.as_array(res[f]) for f in files]
    aps = evaluate.ap_by_iou(dets, [p['boxes'] for p in photos])
    return {'AP50': float(aps[0.5]), 'AP': float(np.mean(list(aps.values())))}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--export', required=True, help='a folder written by `npm run cli -- export-training`')
    ap.add_argument('--generated', required=True, help="generated shelves (generator.py's output) mixed in")
    ap.add_argument('--out', required=True, help='where the new model and its report go')
    ap.add_argument('--base', default=DEFAULT_BASE, help='the detector ONNX to start from and to beat (default: the shipped one)')
    ap.add_argument('--version', help='the new model\'s version, in its file name (default: finetune-DATE-TIME, UTC)')
    ap.add_argument('--holdout', type=float, default=0.3, help='share of the reviewed scenes held out to compare on')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--steps', type=int, default=10 ** 9); ap.add_argument('--minutes', type=float, default=10)
    ap.add_argument('--batch', type=int, default=8); ap.add_argument('--size', type=int, default=384)
    ap.add_argument('--lr', type=float, default=1e-4, help='lower than from scratch: the weights are already good (1e-4: the learning curve, RESEARCH_LOG.md)')
    ap.add_argument('--mix', type=float, default=0.5, help='share of the crops cut from the reviewed photos')
    ap.add_argument('--photo-aug', action='store_true', help='dataset.degrade on every crop, as the shipped runs')
    ap.add_argument('--threads', type=int, default=2); ap.add_argument('--log-every', type=int, default=20)
    ap.add_argument('--min-gain', type=float, default=0.0, help='AP50 the new model must gain over the base')
    ap.add_argument('--force', action='store_true', help='write the model even if it is not better (tests)')
    a = ap.parse_args(argv)
    a.version = model_version(a.version)
    if a.version is None:
        ap.error('--version: letters, digits, ".", "_" and "-" only (it is part of a file name)')
    if not 0 < a.holdout < 1:
        ap.error('--holdout must lie between 0 and 1')
    if not 0 <= a.mix <= 1:
        ap.error('--mix must lie between 0 and 1')
    if a.steps < 1 or a.minutes <= 0:
        ap.error('--steps and --minutes must be positive')
    return a


def main(argv=None):
    a = parse_args(argv)
    torch.set_num_threads(a.threads)
    try:
        photos = read_export(a.export)
        train_photos, held = split_scenes(photos, a.holdout, a.seed)
        if not os.path.isdir(a.generated):
            raise BadInput(f'--generated {a.generated} is not a folder')
        model, info = load_detector(a.base)
    except (BadInput, UnknownGraph, OSError) as e:
        print(f'finetune: {e}', file=sys.stderr)
        return 2
    print(f"{len(train_photos)} photos to train on, {len(held)} held out ({len({p['scene'] for p in held})} scenes); "
          f"base {a.base}: {', '.join(info['archs'])}", flush=True)
    work = tempfile.mkdtemp(prefix='finetune-')
    try:
        try:
            generated = prepare_samples(os.path.join(work, 'samples'), a.generated, train_photos)
        except BadInput as e:
            print(f'finetune: {e}', file=sys.stderr)
            return 2
        model, steps, seconds = fine_tune(model, os.path.join(work, 'samples'), a)
        candidate = os.path.join(work, 'candidate.onnx')
        base_sha = sha256(a.base)
        metadata = {**info['metadata'], 'version': a.version, 'finetuned_from': base_sha,
                    'finetune': f'{steps} steps on {len(train_photos)} reviewed photos + {generated} generated scenes, seed {a.seed}'}
        names = ['heatmap', 'size', 'offset']
        export_onnx(model, torch.rand(1, 3, 640, 640) * 255, candidate, ['image'], names,
                    {'image': {2: 'height', 3: 'width'}, **{n: {2: 'h', 3: 'w'} for n in names}}, metadata)
        before, after = score(a.base, held), score(candidate, held)
        better = bool(after['AP50'] > before['AP50'] + a.min_gain)
        report = {'version': a.version, 'better': better, 'written': better or a.force,
                  'held_out': {'photos': len(held), 'objects': int(sum(len(p['boxes']) for p in held)),
                               'scenes': sorted({p['scene'] for p in held})},
                  'base': {'file': os.path.abspath(a.base), 'sha256': base_sha, **before}, 'new': after,
                  'training': {'photos': len(train_photos), 'generated_scenes': generated, 'steps': steps,
                               'minutes': round(seconds / 60, 2), 'mix': a.mix, 'lr': a.lr, 'batch': a.batch,
                               'size': a.size, 'seed': a.seed, 'holdout': a.holdout}}
        figures = f"held-out AP50 {after['AP50']:.3f} against the base's {before['AP50']:.3f} ({len(held)} photos)"
        if not report['written']:
            print(f'not better, nothing written: {figures}' + (f', a gain of more than {a.min_gain} asked' if a.min_gain else ''))
            print(json.dumps(report))
            return 0
        os.makedirs(a.out, exist_ok=True)
        target = os.path.join(a.out, f'shelf-detector-{a.version}')
        shutil.move(candidate, target + '.onnx')
        report['file'] = os.path.abspath(target + '.onnx'); report['sha256'] = sha256(target + '.onnx')
        with open(target + '.json', 'w') as fh:
            json.dump(report, fh, indent=1)
        print(f"{'better' if better else 'NOT better, written because of --force'}: {figures}; wrote {target}.onnx")
        print(f'install it with: npm run cli -- models install {target}.onnx --version {a.version}')
        print(json.dumps(report))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
