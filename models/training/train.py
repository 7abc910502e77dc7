"""Train ShelfNet on generated shelves, on CPU (or CUDA when present), with checkpoints and resume.

The learning-rate schedule runs on a wall-clock budget (--minutes): warm-up, then cosine decay to the
end of the budget, so a run on a shared CPU ends on time whatever its speed. Resuming restores the model,
optimiser, step and elapsed time from RUN/last.pt.

On CUDA it trains in bfloat16 autocast with channels-last tensors; the loader hands over uint8 crops
and the colour jitter is applied on the device. --arch picks the width (model.ARCHS); --stop-after ends a
session early (a lent GPU machine's call limit) and a later call resumes the same schedule.

--arch mnv2 is MobileShelfNet: it starts from the pretrained MobileNetV2 (pretrained_backbone.py) unless
--init or a resume gives weights; --freeze N keeps the stem and its first N blocks fixed (-1: the whole
backbone) and --backbone-lr scales the learning rate of the backbone's trainable part; --distill DIR adds
distill.py's term, which holds the backbone's maps on real photos under DIR to the pretrained backbone's.
It trains with channels-last tensors on the CPU too: PyTorch's depthwise convolutions are several times
faster so.

Usage: python3 train.py --data cache/train --run runs/r1 --minutes 75 [--batch 16 --size 384 --threads 2]
       sh gpu_train.sh ...   (on a lent GPU machine: generates its own set, then trains)
"""
import argparse
import contextlib
import math
import os
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from dataset import ShelfCrops, apply_jitter
from model import ARCHS, MOBILE_ARCHS, MobileShelfNet, MobileTagNet, build


def focal_loss(logits, target):
    """CornerNet's penalty-reduced focal loss on the centre heatmap, normalised by the object count."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_l = torch.log(p) * (1 - p) ** 2 * pos
    neg_l = torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_l.sum() + neg_l.sum()) / n


def gather(feat, ind):
    n, c = feat.shape[:2]
    feat = feat.view(n, c, -1).permute(0, 2, 1)
    return feat.gather(1, ind[..., None].expand(-1, -1, c))


def losses(model, batch):
    img, hm, ind, wh, off, msk, jitter = batch
    img = apply_jitter(img, jitter)
    if img.is_cuda or isinstance(model, MobileShelfNet):
        img = img.contiguous(memory_format=torch.channels_last)
    amp = torch.autocast('cuda', dtype=torch.bfloat16) if img.is_cuda else contextlib.nullcontext()
    with amp:
        p_hm, p_wh, p_off = model.forward_raw(img)
    p_hm, p_wh, p_off = p_hm.float(), p_wh.float(), p_off.float()  # losses in fp32
    l_hm = focal_loss(p_hm, hm)
    m = msk[..., None]; n = msk.sum().clamp(min=1)
    l_wh = (F.l1_loss(gather(p_wh, ind), wh, reduction='none') * m).sum() / n
    l_off = (F.l1_loss(gather(p_off, ind), off, reduction='none') * m).sum() / n
    return l_hm, l_wh, l_off


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default='cache/train'); ap.add_argument('--run', default='runs/r1')
    ap.add_argument('--minutes', type=float, default=75); ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--size', type=int, default=384); ap.add_argument('--lr', type=float, default=3e-3)
    ap.add_argument('--threads', type=int, default=2); ap.add_argument('--workers', type=int, default=1)
    ap.add_argument('--init', help='start from these weights (a previous run, or onnx_import.py --save-pt\'s file of an '
                    'exported model, whose folded BatchNorms stay on their statistics as with --init-onnx)')
    ap.add_argument('--init-onnx', help='start from an exported model (onnx_import.py; the shipped model\'s checkpoints '
                    'are not kept): its BatchNorms come back folded, so they stay on those statistics while training')
    ap.add_argument('--recent-from', type=int, help='oversample scenes numbered >= this (see ShelfCrops)')
    ap.add_argument('--recent-frac', type=float, default=0.5)
    ap.add_argument('--log-every', type=int, default=20)
    ap.add_argument('--photo-aug', action='store_true', help='blur, lost resolution, JPEG, noise, desaturation (dataset.degrade)')
    ap.add_argument('--fda', metavar='DIR', help='give half the crops the low-frequency spectrum of a real photo '
                    'under DIR (dataset.fourier_style; unlabelled photos the licence allows training on)')
    ap.add_argument('--fda-beta', type=float, default=0.01, help='widest swapped band, a fraction of the crop side')
    ap.add_argument('--target', choices=['boxes', 'tags'], default='boxes', help="what to find: the scenes' products "
                    "(boxes) or their price tags (tags; generator.py's hanging price signs are ignored regions)")
    ap.add_argument('--shelf-aug', action='store_true', help='perspective, motion blur, uneven light and glare on top of '
                    '--photo-aug (dataset.shelf_conditions; the price-tag detector)')
    ap.add_argument('--warmup', type=int, default=150, help='steps of linear learning-rate warm-up')
    ap.add_argument('--seed', type=int, default=0, help='torch seed and the sample stream\'s offset')
    ap.add_argument('--arch', choices=sorted(ARCHS) + sorted(MOBILE_ARCHS), default='small')
    ap.add_argument('--freeze', type=int, default=0, help='mnv2: keep the stem and this many backbone blocks fixed (-1: all)')
    ap.add_argument('--backbone-lr', type=float, default=1.0, help='mnv2: the backbone\'s learning rate, a fraction of --lr')
    ap.add_argument('--snapshot-every', type=float, help='also keep the weights every this many minutes as RUN/snap-STEP.pt '
                    '(synthetic AP is no proxy for real photos, so a middle checkpoint may be the one to ship)')
    ap.add_argument('--distill', metavar='DIR', help='mnv2: hold the backbone\'s maps on real photos under DIR to the '
                    'pretrained backbone\'s (distill.py; unlabelled photos the licence allows training on)')
    ap.add_argument('--distill-weight', type=float, default=1.0, help='the distillation term\'s weight in the loss')
    ap.add_argument('--distill-batch', type=int, default=6, help='real mosaics per step')
    ap.add_argument('--max-steps', type=int, help='end the run after this many steps even if --minutes is not spent: '
                    'a fixed amount of work whatever the machine\'s load (tests)')
    ap.add_argument('--stop-after', type=float, help='end this session after this many wall-clock minutes, '
                    'saving last.pt; the schedule (--minutes) goes on when the run is resumed')
    a = ap.parse_args()
    if a.distill and a.arch not in MOBILE_ARCHS:
        ap.error('--distill needs --arch mnv2: it holds the pretrained backbone\'s features')
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    os.makedirs(a.run, exist_ok=True)
    model = build(a.arch).to(dev)
    mobile = isinstance(model, MobileShelfNet)
    if mobile:
        from pretrained_backbone import load_state_dict
        if isinstance(model, MobileTagNet):
            model.load_backbone(load_state_dict())
        else:
            model.backbone.load_state_dict(load_state_dict())  # replaced below by --init or a resume
    if dev == 'cuda' or mobile:
        model = model.to(memory_format=torch.channels_last)
    if dev == 'cuda':
        torch.backends.cudnn.benchmark = True
    backbone = list(model.backbone.parameters()) if mobile else []
    ids = {id(p) for p in backbone}
    groups = [{'params': [p for p in model.parameters() if id(p) not in ids], 'scale': 1.0}]
    if backbone:
        groups.append({'params': backbone, 'scale': a.backbone_lr})
    opt = torch.optim.AdamW(groups, lr=a.lr, weight_decay=1e-4)
    step, elapsed = 0, 0.0
    folded_bn = bool(a.init_onnx)  # BatchNorms that must keep the statistics an exported file folded into them
    ck = os.path.join(a.run, 'last.pt')
    if os.path.exists(ck):
        s = torch.load(ck, map_location=dev)
        assert s.get('arch', 'small') == a.arch, f"{ck} holds arch {s.get('arch', 'small')}"
        model.load_state_dict(s['model']); opt.load_state_dict(s['opt']); step, elapsed = s['step'], s['elapsed']
        folded_bn = folded_bn or bool(s.get('folded_bn'))
        print(f'resumed at step {step}, {elapsed / 60:.1f} min', flush=True)
    elif a.init:
        s = torch.load(a.init, map_location=dev)
        model.load_state_dict(s['model']); folded_bn = bool(s.get('folded_bn'))
    elif a.init_onnx:
        from onnx_import import load_detector
        imported, info = load_detector(a.init_onnx)
        assert info['archs'] == [a.arch], f"{a.init_onnx} holds {info['archs']}"
        model.load_state_dict(imported.state_dict())
    if mobile:
        model.freeze(a.freeze)
    budget = a.minutes * 60
    ds = ShelfCrops(a.data, a.size, seed=a.seed * 10 ** 9 + step + 1000 * int(elapsed), recent_from=a.recent_from,
                    recent_frac=a.recent_frac, photo_aug=a.photo_aug, fda_dir=a.fda, fda_beta=a.fda_beta,
                    target=a.target, shelf_aug=a.shelf_aug)
    # Loader processes only when asked: torch 1.13 (Debian's) refuses any prefetch_factor without them.
    loader_opts = {'num_workers': a.workers, 'persistent_workers': True, 'prefetch_factor': 4} if a.workers else {}
    dl = DataLoader(ds, batch_size=a.batch, pin_memory=dev == 'cuda', **loader_opts)
    distiller = real = None
    if a.distill:
        from distill import FeatureDistiller, RealMosaics
        from pretrained_backbone import load_state_dict
        distiller = FeatureDistiller(load_state_dict(), dev)
        real = iter(DataLoader(RealMosaics(a.distill, a.size, seed=step + 1000 * int(elapsed)), batch_size=a.distill_batch,
                               pin_memory=dev == 'cuda', **loader_opts))
    model.train()
    if folded_bn or a.init_onnx:  # also on a resume of such a run: batch statistics would undo the folded ones
        for mod in model.modules():  # onnx_weights.freeze_batchnorm, without needing the onnx package here
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.eval()
    t0 = time.time() - elapsed
    session_end = time.time() + a.stop_after * 60 if a.stop_after else float('inf')
    last_save = last_snap = time.time(); acc = torch.zeros(4, device=dev); k = 0
    for batch in dl:
        elapsed = time.time() - t0
        if a.max_steps is not None and step >= a.max_steps:
            elapsed = budget  # the run is complete: written as final below
            break
        if elapsed >= budget or time.time() >= session_end:
            break
        frac = elapsed / budget
        lr = a.lr * min(1.0, (step + 1) / a.warmup) * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g['lr'] = lr * g.get('scale', 1.0)
        batch = [b.to(dev, non_blocking=True) for b in batch]
        l_hm, l_wh, l_off = losses(model, batch)
        loss = l_hm + 0.5 * l_wh + l_off
        l_dist = torch.zeros((), device=dev)
        if distiller:
            l_dist = distiller.loss(model, next(real).to(dev, non_blocking=True))
            loss = loss + a.distill_weight * l_dist
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        opt.step()
        step += 1; k += 1
        acc += torch.stack((l_hm, l_wh, l_off, l_dist)).detach()  # no per-step sync with the GPU
        if step % a.log_every == 0:
            m = (acc / k).tolist()
            print(f'step {step} t {elapsed / 60:.1f}m lr {lr:.5f} hm {m[0]:.3f} wh {m[1]:.3f} off {m[2]:.3f}' + (f' dist {m[3]:.4f}' if distiller else ''), flush=True)
            acc.zero_(); k = 0
        if time.time() - last_save > 300:
            torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': step, 'elapsed': time.time() - t0, 'arch': a.arch, 'folded_bn': folded_bn}, ck + '.tmp')
            os.replace(ck + '.tmp', ck); last_save = time.time()
        if a.snapshot_every and time.time() - last_snap > a.snapshot_every * 60:
            torch.save({'model': model.state_dict(), 'step': step, 'arch': a.arch}, os.path.join(a.run, f'snap-{step}.pt'))
            last_snap = time.time()
    torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': step, 'elapsed': time.time() - t0, 'arch': a.arch, 'folded_bn': folded_bn}, ck + '.tmp')
    os.replace(ck + '.tmp', ck)
    if elapsed >= budget:
        torch.save({'model': model.state_dict(), 'step': step, 'arch': a.arch}, os.path.join(a.run, 'final.pt'))
        print(f'done: {step} steps, {(time.time() - t0) / 60:.1f} min', flush=True)
    else:
        print(f'paused at step {step}, {(time.time() - t0) / 60:.1f} of {a.minutes} min: resume with the same --run', flush=True)


if __name__ == '__main__':
    main()
