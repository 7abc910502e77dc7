"""Fine-tune the product embedder on supervisors' corrections: the boxes of a training export
(`npm run cli -- export-training --out EXPORT`) that carry an SKU, cut from its photos, each SKU a class,
with drawn packages (data.synthetic, one class each) beside them so the embedding stays general.

The export is split by scene as the detector's fine-tune splits it (../review_export.py, same
--seed, same --holdout): crops of the held-out scenes are the queries, crops of the training scenes the
references, and the score is what identification ranks by: top-1 of the SKU whose best reference is
nearest by cosine. The base (--base, the shipped product-embedder.onnx by default, rebuilt in PyTorch from
the ONNX file: no checkpoint ships) and the fine-tuned model are scored alike, and
OUT/product-embedder-VERSION.onnx with its .json report is written only when the new one is better
(--force: anyway). Use it with SHELF_EMBEDDER_MODEL=FILE (stored embeddings carry the model's fingerprint
and are recomputed). The classifier starts from each class's mean base embedding (its prototype), so the
first steps refine the embedding instead of chasing a random head.

Exit status: 0 done (written or not), 2 bad input (an export with no SKU crops to train or to compare on).

Usage (from models/training/embedder):
  python3 finetune.py --export EXPORT --out OUT [--minutes 5] [--steps N] [--synthetic 200]
"""
import argparse
import json
import os
import sys
import time

import cv2
import torch
import torch.nn.functional as F

from data import STORE, ProductViews, plain, synthetic
from model import SIZE, ProductNet
from train import CosFace

# After this package's own modules: ../ has a model.py and a train.py of its own (the detector's).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from onnx_export import export_onnx  # noqa: E402
from onnx_weights import UnknownGraph, freeze_batchnorm, load_folded_convs, read_graph  # noqa: E402
from review_export import BadInput, model_version, read_export, sha256, split_scenes  # noqa: E402

DEFAULT_BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'product-embedder.onnx')


def load_embedder(path):
    """ONNX embedder file -> ProductNet in eval mode (convolutions as onnx_import folds them, the head from the Gemm)."""
    m, inits, _ = read_graph(path)
    net = ProductNet()
    load_folded_convs(net, [n for n in m.graph.node if n.op_type == 'Conv'], inits, path, side=SIZE)
    gemm = [n for n in m.graph.node if n.op_type == 'Gemm']
    if len(gemm) != 1:
        raise UnknownGraph(f'{path}: {len(gemm)} Gemm nodes, a ProductNet has one')
    w = inits[gemm[0].input[1]]
    trans_b = any(a.name == 'transB' and a.i == 1 for a in gemm[0].attribute)
    w = w if trans_b else w.T
    if w.shape != tuple(net.head.weight.shape):
        raise UnknownGraph(f'{path}: head {w.shape} where ProductNet has {tuple(net.head.weight.shape)}')
    with torch.no_grad():
        net.head.weight.copy_(torch.from_numpy(w.copy())); net.head.bias.copy_(torch.from_numpy(inits[gemm[0].input[2]].copy()))
    return net.eval(), {p.key: p.value for p in m.metadata_props}


def crops(photos):
    """[(BGR crop at STORE x STORE, sku id)] of every box with an SKU in `photos`."""
    out = []
    for p in photos:
        img = cv2.imread(p['file'], cv2.IMREAD_COLOR)
        if img is None:
            raise BadInput(f"cannot read {p['file']}")
        for (x1, y1, x2, y2), sku in zip(p['boxes'], p['skus']):
            x1, y1, x2, y2 = int(round(x1)), int(round(y1)), int(round(x2)), int(round(y2))
            if sku is None or x2 - x1 < 2 or y2 - y1 < 2:
                continue
            out.append((cv2.resize(img[y1:y2, x1:x2], (STORE, STORE), interpolation=cv2.INTER_AREA), sku))
    return out


@torch.no_grad()
def embed(model, images):
    model.eval()
    return torch.cat([model(torch.stack([plain(im) for im in images[i:i + 64]])) for i in range(0, len(images), 64)])


def top1(model, refs, queries):
    """Share of the queries whose SKU is the one with the nearest reference (best cosine per SKU)."""
    r = embed(model, [im for im, _ in refs]); q = embed(model, [im for im, _ in queries])
    skus = sorted({s for _, s in refs}); col = {s: k for k, s in enumerate(skus)}
    sim = q @ r.t()
    best = torch.full((len(queries), len(skus)), -2.0)
    for j, (_, s) in enumerate(refs):
        best[:, col[s]] = torch.maximum(best[:, col[s]], sim[:, j])
    truth = torch.tensor([col[s] for _, s in queries])
    return float((best.argmax(1) == truth).float().mean())


def fine_tune(model, items, n_classes, a):
    torch.manual_seed(a.seed)
    head = CosFace(model.head.out_features, n_classes)
    with torch.no_grad():  # prototypes: each class's mean embedding under the base model
        protos = torch.zeros(n_classes, model.head.out_features)
        emb = embed(model, [im for im, _, _ in items])
        for e, (_, label, _) in zip(emb, items):
            protos[label] += e
        head.w.copy_(F.normalize(protos, dim=1))
    loader = torch.utils.data.DataLoader(ProductViews(items, a.seed), batch_size=a.batch, shuffle=True, drop_last=len(items) > a.batch)
    opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=a.lr, weight_decay=5e-4)
    t0 = time.time(); step = 0
    while step < a.steps and time.time() - t0 < a.minutes * 60:
        for x, y in loader:
            if step >= a.steps or time.time() - t0 >= a.minutes * 60:
                break
            freeze_batchnorm(model.train())
            loss = head(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
            step += 1
            if step % a.log_every == 0:
                print(f'step {step} t {(time.time() - t0) / 60:.1f}m loss {loss.item():.3f}', flush=True)
    return model.eval(), step, time.time() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--export', required=True); ap.add_argument('--out', required=True)
    ap.add_argument('--base', default=DEFAULT_BASE); ap.add_argument('--version')
    ap.add_argument('--holdout', type=float, default=0.3); ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--steps', type=int, default=10 ** 9); ap.add_argument('--minutes', type=float, default=5)
    ap.add_argument('--batch', type=int, default=32); ap.add_argument('--lr', type=float, default=1e-4)
    ap.add_argument('--synthetic', type=int, default=200, help='drawn packages added as classes of their own')
    ap.add_argument('--threads', type=int, default=2); ap.add_argument('--log-every', type=int, default=20)
    ap.add_argument('--min-gain', type=float, default=0.0, help='top-1 the new model must gain over the base')
    ap.add_argument('--force', action='store_true', help='write the model even if it is not better (tests)')
    a = ap.parse_args(argv)
    a.version = model_version(a.version)
    if a.version is None:
        ap.error('--version: letters, digits, ".", "_" and "-" only (it is part of a file name)')
    if not 0 < a.holdout < 1:
        ap.error('--holdout must lie between 0 and 1')
    if a.steps < 1 or a.minutes <= 0 or a.synthetic < 0:
        ap.error('--steps and --minutes must be positive, --synthetic not negative')
    torch.set_num_threads(a.threads)
    try:
        train_photos, held = split_scenes(read_export(a.export), a.holdout, a.seed)
        refs, queries = crops(train_photos), crops(held)
        known = {s for _, s in refs}
        queries = [q for q in queries if q[1] in known]  # an SKU never seen in training cannot be ranked
        if not refs or not queries:
            raise BadInput(f'{len(refs)} SKU crops to train on and {len(queries)} held-out crops of those SKUs: both are needed')
        model, metadata = load_embedder(a.base)
    except (BadInput, UnknownGraph, OSError) as e:
        print(f'finetune: {e}', file=sys.stderr)
        return 2
    skus = sorted(known); label = {s: k for k, s in enumerate(skus)}
    items = [(im, label[s], False) for im, s in refs]
    items += [(img, len(skus) + k, True) for k, img in enumerate(synthetic(a.synthetic, seed=7))]
    n_classes = len(skus) + a.synthetic
    print(f'{len(refs)} crops of {len(skus)} SKUs to train on, {len(queries)} held out; {a.synthetic} drawn packages', flush=True)
    before = top1(model, refs, queries)
    model, steps, seconds = fine_tune(model, items, n_classes, a)
    after = top1(model, refs, queries)
    better = after > before + a.min_gain
    figures = f'held-out top-1 {after:.3f} against the base\'s {before:.3f} ({len(queries)} crops)'
    report = {'version': a.version, 'better': better, 'written': better or a.force,
              'held_out': {'crops': len(queries), 'photos': len(held)}, 'base': {'file': os.path.abspath(a.base), 'sha256': sha256(a.base), 'top1': before},
              'new': {'top1': after}, 'training': {'crops': len(refs), 'skus': len(skus), 'synthetic': a.synthetic, 'steps': steps,
                                                    'minutes': round(seconds / 60, 2), 'lr': a.lr, 'batch': a.batch, 'seed': a.seed, 'holdout': a.holdout}}
    if not report['written']:
        print(f'not better, nothing written: {figures}' + (f', a gain of more than {a.min_gain} asked' if a.min_gain else ''))
        print(json.dumps(report))
        return 0
    os.makedirs(a.out, exist_ok=True)
    target = os.path.join(a.out, f'product-embedder-{a.version}')
    export_onnx(model, torch.rand(2, 3, SIZE, SIZE) * 255, target + '.onnx', ['image'], ['embedding'],
                {'image': {0: 'batch'}, 'embedding': {0: 'batch'}},
                {**metadata, 'version': a.version, 'finetuned_from': report['base']['sha256'], 'finetune': f'{steps} steps on {len(refs)} reviewed crops'})
    report['file'] = os.path.abspath(target + '.onnx'); report['sha256'] = sha256(target + '.onnx')
    with open(target + '.json', 'w') as fh:
        json.dump(report, fh, indent=1)
    print(f"{'better' if better else 'NOT better, written because of --force'}: {figures}; wrote {target}.onnx")
    print(f'use it with: SHELF_EMBEDDER_MODEL={target}.onnx')
    print(json.dumps(report))
    return 0


if __name__ == '__main__':
    sys.exit(main())
