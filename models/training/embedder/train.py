"""Train ProductNet as a cosine classifier with an additive margin (CosFace) over the training classes;
the classifier is thrown away and the normalised embedding is what ships. CPU by default (CUDA when
present), checkpoints every epoch and resumes from RUN/last.pt.

Usage: python3 train.py --data ../../../../shared/data/grocery-store-dataset/dataset --run runs/e1 \
           --epochs 40 [--holdout-packages] [--threads 1]
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import ProductViews, build, grocery_classes, grocery_split, load, plain
from model import ProductNet


class CosFace(nn.Module):
    def __init__(self, dim, classes, scale=24.0, margin=0.3):
        super().__init__()
        self.w = nn.Parameter(torch.randn(classes, dim) * 0.01)
        self.scale, self.margin = scale, margin

    def forward(self, emb, labels):
        cos = emb @ F.normalize(self.w, dim=1).t()
        logits = self.scale * (cos - self.margin * F.one_hot(labels, cos.shape[1]))
        return F.cross_entropy(logits, labels)


@torch.no_grad()
def retrieval(model, root, class_ids, refs_per_class=3, split='val'):
    """top-1 / top-5 with `refs_per_class` train photos per class as references (and, apart, the iconic
    packshot), queries from `split`, over `class_ids`."""
    model.eval()
    classes = {c['id']: c for c in grocery_classes(root)}
    emb = lambda paths: torch.cat([model(torch.stack([plain(load(os.path.join(root, p))) for p in paths[i:i + 64]]))
                                   for i in range(0, len(paths), 64)])
    queries = [(p, c) for p, c in grocery_split(root, split) if c in class_ids and os.path.exists(os.path.join(root, p))]
    q = emb([p for p, _ in queries]); qy = torch.tensor([c for _, c in queries])
    out = {}
    train = grocery_split(root, 'train')
    for name, refs in (('3 train', [(p, c) for c in class_ids for p in [p for p, k in train if k == c][:refs_per_class]]),
                       ('iconic', [(classes[c]['iconic'].lstrip('/'), c) for c in class_ids])):
        r = emb([p for p, _ in refs]); ry = torch.tensor([c for _, c in refs])
        sim = q @ r.t()
        # Rank classes by their best reference.
        cls = sorted(class_ids); ci = {c: i for i, c in enumerate(cls)}
        best = torch.full((len(queries), len(cls)), -2.0)
        for j, c in enumerate(ry.tolist()):
            best[:, ci[c]] = torch.maximum(best[:, ci[c]], sim[:, j])
        top = best.topk(min(5, len(cls)), dim=1).indices
        truth = torch.tensor([ci[c] for c in qy.tolist()])
        out[name] = ((top[:, 0] == truth).float().mean().item(), (top == truth[:, None]).any(1).float().mean().item())
    model.train()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', required=True); ap.add_argument('--run', default='runs/e1')
    ap.add_argument('--epochs', type=int, default=40); ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--lr', type=float, default=2e-3); ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--synthetic', type=int, default=600, help='drawn packages, one class each')
    ap.add_argument('--holdout-packages', action='store_true',
                    help='leave every other package class out of training (a measure on unseen SKUs)')
    a = ap.parse_args()
    torch.set_num_threads(a.threads); torch.manual_seed(0)
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    os.makedirs(a.run, exist_ok=True)
    items, n_classes, held = build(a.data, a.holdout_packages, a.synthetic)
    packages = {c['id'] for c in grocery_classes(a.data) if c['package']}
    eval_ids = sorted(held) if held else sorted(packages)
    print(f'{len(items)} training items, {n_classes} classes; evaluating on {len(eval_ids)} package classes'
          f' ({"never trained on" if held else "trained on, val photos"})', flush=True)
    loader = DataLoader(ProductViews(items), batch_size=a.batch, shuffle=True, drop_last=True, num_workers=0)
    model = ProductNet().to(dev); head = CosFace(128, n_classes).to(dev)
    opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=a.lr, weight_decay=5e-4)
    total = a.epochs * len(loader)
    epoch, step = 0, 0
    ck = os.path.join(a.run, 'last.pt')
    if os.path.exists(ck):
        st = torch.load(ck, map_location=dev)
        model.load_state_dict(st['model']); head.load_state_dict(st['head']); opt.load_state_dict(st['opt'])
        epoch, step = st['epoch'], st['step']
        print(f'resumed after epoch {epoch}', flush=True)
    t0 = time.time()
    while epoch < a.epochs:
        run_loss = 0.0
        for x, y in loader:
            lr = a.lr * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * min(1.0, step / total)))
            for g in opt.param_groups:
                g['lr'] = lr
            loss = head(model(x.to(dev)), y.to(dev))
            opt.zero_grad(); loss.backward(); opt.step()
            run_loss += loss.item(); step += 1
        epoch += 1
        msg = f'epoch {epoch} step {step} t {(time.time() - t0) / 60:.1f}m lr {lr:.5f} loss {run_loss / len(loader):.3f}'
        if epoch % 5 == 0 or epoch == a.epochs:
            r = retrieval(model, a.data, eval_ids)
            msg += ' | ' + ' '.join(f'{k}: top1 {v[0]:.3f} top5 {v[1]:.3f}' for k, v in r.items())
        print(msg, flush=True)
        torch.save({'model': model.state_dict(), 'head': head.state_dict(), 'opt': opt.state_dict(),
                    'epoch': epoch, 'step': step}, ck + '.tmp')
        os.replace(ck + '.tmp', ck)
    torch.save({'model': model.state_dict(), 'epoch': epoch, 'step': step,
                'holdout_packages': a.holdout_packages}, os.path.join(a.run, 'final.pt'))
    print('done', flush=True)


if __name__ == '__main__':
    main()
