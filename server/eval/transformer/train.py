"""Trains a small transformer code-search encoder on this machine's (text -> code) pairs and
exports it as a model folder @huggingface/transformers loads (issue 18: "if a small transformer
trained here the same way beats [the static table] at acceptable cost, ship it as ONNX").

Input: the folder prepare.ts wrote (tokenized pairs, tokenizer files, starting token rows from
the static table). The encoder starts as the static stream: token rows are the static table's
rows times IDF, position rows are zero, and every block's output projections are zero, so the
mean-pooled output of an untrained model is the static vector of the text. Training (symmetric
InfoNCE, in-batch negatives, batches made of runs of pairs from one file for hard negatives) can
then only add what context buys.

    python3 server/eval/transformer/train.py DIR [--layers 2] [--heads 4] [--ffn 512]
        [--epochs 1] [--batch 256] [--run 16] [--lr 5e-4] [--embed-lr 5e-5] [--seed 1]

Writes the model folder (--out, default DIR/model: onnx/model.onnx, config.json, the tokenizer
files); `npm run eval -- retrieval --model FOLDER` measures it. Needs Debian's python3-torch (CPU).
"""
import argparse
import json
import math
import os
import random
import shutil
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    """Pre-norm attention and feed-forward, each added to the residual stream; outputs start at zero."""

    def __init__(self, dims, heads, ffn):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dims)
        self.qkv = nn.Linear(dims, 3 * dims)
        self.out = nn.Linear(dims, dims)
        self.ln2 = nn.LayerNorm(dims)
        self.up = nn.Linear(dims, ffn)
        self.down = nn.Linear(ffn, dims)
        for lin in (self.out, self.down):
            nn.init.zeros_(lin.weight)
            nn.init.zeros_(lin.bias)

    def forward(self, x, bias):
        b, n, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h) + bias
        a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)
        x = x + self.out(a)
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class Encoder(nn.Module):
    def __init__(self, init, layers, heads, ffn, positions):
        super().__init__()
        vocab, dims = init.shape
        self.tok = nn.Embedding(vocab, dims)
        self.tok.weight.data.copy_(torch.from_numpy(init))
        self.pos = nn.Embedding(positions, dims)
        nn.init.zeros_(self.pos.weight)
        self.blocks = nn.ModuleList(Block(dims, heads, ffn) for _ in range(layers))

    def forward(self, input_ids, attention_mask):
        n = input_ids.shape[1]
        x = self.tok(input_ids) + self.pos(torch.arange(n, device=input_ids.device))[None]
        bias = ((1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -1e4)
        for blk in self.blocks:
            x = blk(x, bias)
        return x


def pooled(model, ids):
    """The pipeline's mean pooling over real tokens, normalized."""
    mask = (ids != 0).long()
    h = model(ids, mask)
    m = mask.unsqueeze(-1).to(h.dtype)
    return F.normalize((h * m).sum(1) / m.sum(1).clamp(min=1), dim=-1)


def trim(ids):
    """Drops the padding columns every row of a batch shares."""
    width = int((ids != 0).sum(1).max())
    return ids[:, :max(width, 1)]


def batches(groups, batch, run, rng):
    """Runs of up to `run` pairs from one file, shuffled, cut into batches (the static trainer's recipe)."""
    by = {}
    for i, g in enumerate(groups):
        by.setdefault(g, []).append(i)
    runs = []
    for members in by.values():
        members = members[:]
        rng.shuffle(members)
        runs += [members[k:k + run] for k in range(0, len(members), run)]
    rng.shuffle(runs)
    flat = [i for r in runs for i in r]
    return [flat[k:k + batch] for k in range(0, len(flat), batch) if len(flat[k:k + batch]) >= batch // 2]


def evaluate(model, q, c, idx):
    """MRR@10 of each held-out query against every held-out code (a check on the fit, not the eval)."""
    model.eval()
    with torch.no_grad():
        qv = torch.cat([pooled(model, trim(q[idx[k:k + 512]])) for k in range(0, len(idx), 512)])
        cv = torch.cat([pooled(model, trim(c[idx[k:k + 512]])) for k in range(0, len(idx), 512)])
        s = qv @ cv.T
        rank = (s > s.diag()[:, None]).sum(1) + 1
    model.train()
    return float(torch.where(rank <= 10, 1.0 / rank, torch.zeros_like(rank, dtype=torch.float)).mean())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--layers', type=int, default=2)
    ap.add_argument('--heads', type=int, default=4)
    ap.add_argument('--ffn', type=int, default=512)
    ap.add_argument('--epochs', type=float, default=1)
    ap.add_argument('--batch', type=int, default=256)
    ap.add_argument('--run', type=int, default=16)
    ap.add_argument('--lr', type=float, default=5e-4)
    ap.add_argument('--embed-lr', type=float, default=5e-5)
    ap.add_argument('--temperature', type=float, default=0.05)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--sources', default='', help='train on these pair sources only (comma-separated: docstring,name,jsdoc)')
    ap.add_argument('--out', default='', help='the model folder to write (default DIR/model)')
    ap.add_argument('--limit', type=int, default=0, help='stop after this many batches (timing)')
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = random.Random(a.seed)

    meta = json.load(open(os.path.join(a.dir, 'meta.json')))
    n, dims = meta['pairs'], meta['dims']
    init = np.fromfile(os.path.join(a.dir, 'init.f32'), dtype=np.float32).reshape(meta['vocab'], dims)
    norms = np.linalg.norm(init, axis=1)
    init = init / np.median(norms[norms > 0])
    q = torch.from_numpy(np.fromfile(os.path.join(a.dir, 'query.i32'), dtype=np.int32).reshape(n, meta['queryTokens']).astype(np.int64))
    c = torch.from_numpy(np.fromfile(os.path.join(a.dir, 'code.i32'), dtype=np.int32).reshape(n, meta['codeTokens']).astype(np.int64))

    # 2 % of files held out to watch the fit.
    groups = meta['groups']
    files = sorted(set(groups))
    random.Random(0).shuffle(files)
    held = set(files[:max(1, len(files) // 50)])
    val = torch.tensor([i for i, g in enumerate(groups) if g in held][:2000])
    keep = set(a.sources.split(',')) if a.sources else None
    train_groups = [g if g not in held and (keep is None or src in keep) else None for g, src in zip(groups, meta['sources'])]
    train_idx = [i for i, g in enumerate(train_groups) if g is not None]

    model = Encoder(init, a.layers, a.heads, a.ffn, meta['codeTokens'])
    embed = [model.tok.weight]
    model.tok.weight.requires_grad_(a.embed_lr > 0)
    rest = [p for name, p in model.named_parameters() if name != 'tok.weight']
    param_groups = [{'params': rest, 'lr': a.lr, 'weight_decay': 0.01}] + ([{'params': embed, 'lr': a.embed_lr, 'weight_decay': 0}] if a.embed_lr > 0 else [])
    opt = torch.optim.AdamW(param_groups)
    print(f'{n} pairs ({len(train_idx)} train, {len(val)} held out), {meta["vocab"]} tokens x {dims}, {a.layers} layers', flush=True)
    print(f'held-out MRR@10 at the start (the static rows): {evaluate(model, q, c, val):.3f}', flush=True)

    steps_per_epoch = len(batches([groups[i] for i in train_idx], a.batch, a.run, random.Random(0)))
    total = int(steps_per_epoch * a.epochs) if not a.limit else a.limit
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20) * max(0.0, 1 - s / max(total, 1)))
    step, t0 = 0, time.time()
    while step < total:
        for b in batches([groups[i] for i in train_idx], a.batch, a.run, rng):
            if step >= total:
                break
            ids = torch.tensor([train_idx[i] for i in b])
            qv, cv = pooled(model, trim(q[ids])), pooled(model, trim(c[ids]))
            logits = qv @ cv.T / a.temperature
            labels = torch.arange(len(b))
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            if step % 25 == 0 or step == total:
                el = time.time() - t0
                print(f'step {step}/{total} loss {loss.item():.3f} {el:.0f}s ({el / step:.2f}s a step)', flush=True)
            if step % 200 == 0:
                print(f'  held-out MRR@10 {evaluate(model, q, c, val):.3f}', flush=True)
    print(f'held-out MRR@10 at the end: {evaluate(model, q, c, val):.3f}', flush=True)
    export(model, a, meta)


def export(model, a, meta):
    out = a.out or os.path.join(a.dir, 'model')
    os.makedirs(os.path.join(out, 'onnx'), exist_ok=True)
    for name in ('tokenizer.json', 'tokenizer_config.json'):
        shutil.copyfile(os.path.join(a.dir, 'tokenizer', name), os.path.join(out, name))
    model.eval()
    ids = torch.ones(2, 8, dtype=torch.int64)
    torch.onnx.export(
        model, (ids, torch.ones_like(ids)), os.path.join(out, 'onnx', 'model.onnx'),
        input_names=['input_ids', 'attention_mask'], output_names=['last_hidden_state'],
        dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}, 'attention_mask': {0: 'batch', 1: 'sequence'}, 'last_hidden_state': {0: 'batch', 1: 'sequence'}},
        opset_version=14,
    )
    dims = model.tok.weight.shape[1]
    json.dump({'model_type': 'bert', 'hidden_size': dims, 'vocab_size': meta['vocab'], 'max_position_embeddings': meta['codeTokens'],
               'num_hidden_layers': a.layers, 'num_attention_heads': a.heads, 'intermediate_size': a.ffn}, open(os.path.join(out, 'config.json'), 'w'))
    os.makedirs(os.path.join(out, '1_Pooling'), exist_ok=True)
    json.dump({'word_embedding_dimension': dims, 'pooling_mode_mean_tokens': True}, open(os.path.join(out, '1_Pooling', 'config.json'), 'w'))
    print(f'wrote {out}', flush=True)


if __name__ == '__main__':
    main()
