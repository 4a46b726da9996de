#!/usr/bin/env python3
"""The PyTorch peer of softscope's training step (issue 27's speed target):
the same tiny model as core/src/model (softscope.h, "The tiny attention
model"), the same shapes, PyTorch eager on one thread, AdamW.

  h0_j = E_a[a_j] + E_b[b_j] + f_j u            (no positions: a set)
  h = h + Wo Attn(Wq x_{n-1}, Wk x, Wv x),  x = RMSNorm(h)   (query row only)
  h = h + W2 GELU_tanh(W1 RMSNorm(h))
  logits = W_U RMSNorm(h);  loss = cross-entropy

Linear layers without bias, RMSNorm with a gain and eps 1e-5 (torch 1.13 has
no nn.RMSNorm: written out), softmax attention with scale 1/sqrt(d/heads).
As in softscope, the last (here: only) layer computes its queries, MLP and
readout on the query row alone. The batch is fixed (its generation is not
timed, as in softscope's measurement). Prints one JSON line:
{"peer": "torch", "version": ..., "threads": 1, "ms_per_step": median of 7
repeats of 10 steps after 5 warm-up steps (wall clock), "cpu_ms_per_step":
the same repeats on the process's CPU clock (time.process_time: every
thread's user + system time, as `make bench`'s cpu clock counts Node's),
"min", "cpu_min", ...}; where torch is missing,
{"peer": "torch", "missing": "..."} and exit 0, so a benchmark run goes on.
`make bench` runs it as a child process (tests/bench/torch-peer.js), with
--repeats and --steps from its rounds.

Usage: tests/bench/torch_step.py [--d 64] [--n 64] [--batch 32] [--heads 4]
                                 [--classes 16] [--no-mlp] [--repeats 7]
                                 [--steps 10] [--warmup 5]
"""
import argparse
import json
import math
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--classes", type=int, default=16)
    ap.add_argument("--no-mlp", action="store_true")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:  # the row says so; the rest of the bench runs
        print(json.dumps({"peer": "torch", "missing": str(e)}))
        return 0
    torch.set_num_threads(1)
    torch.manual_seed(1)
    d, n, B, H, C = args.d, args.n, args.batch, args.heads, args.classes
    dh = d // H
    mlp = not args.no_mlp

    def normal(*shape, std=0.02):
        return torch.nn.Parameter(torch.randn(*shape) * std)

    P = {
        "embed_a": normal(C + 1, d), "embed_b": normal(1, d), "feature": normal(d),
        "attn_norm": torch.nn.Parameter(torch.ones(d)),
        "wq": normal(d, d), "wk": normal(d, d), "wv": normal(d, d),
        "wo": normal(d, d, std=0.02 / math.sqrt(2)),
        "final_norm": torch.nn.Parameter(torch.ones(d)), "unembed": normal(C, d),
    }
    if mlp:
        P.update({"mlp_norm": torch.nn.Parameter(torch.ones(d)), "w1": normal(4 * d, d),
                  "w2": normal(d, 4 * d, std=0.02 / math.sqrt(2))})
    opt = torch.optim.AdamW(P.values(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)

    def rmsnorm(x, g):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * g

    # max_retrieval: values below C, priorities U(0, 1), the query last
    a = torch.randint(0, C, (B, n))
    a[:, -1] = C
    f = torch.rand(B, n)
    f[:, -1] = 0
    b = torch.zeros(B, n, dtype=torch.long)
    target = a.gather(1, f[:, :-1].argmax(1, keepdim=True)).squeeze(1)

    def step():
        h = P["embed_a"][a] + P["embed_b"][b] + f.unsqueeze(-1) * P["feature"]
        x = rmsnorm(h, P["attn_norm"])
        q = (x[:, -1:] @ P["wq"].T).view(B, 1, H, dh).transpose(1, 2)
        k = (x @ P["wk"].T).view(B, n, H, dh).transpose(1, 2)
        v = (x @ P["wv"].T).view(B, n, H, dh).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), dim=-1)
        o = (att @ v).transpose(1, 2).reshape(B, d)
        hl = h[:, -1] + o @ P["wo"].T
        if mlp:
            hl = hl + F.gelu(rmsnorm(hl, P["mlp_norm"]) @ P["w1"].T, approximate="tanh") @ P["w2"].T
        logits = rmsnorm(hl, P["final_norm"]) @ P["unembed"].T
        loss = F.cross_entropy(logits, target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(args.warmup):
        step()
    reps, cpu = [], []
    for _ in range(args.repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(args.steps):
            loss = step()
        reps.append((time.perf_counter() - t0) / args.steps * 1e3)
        cpu.append((time.process_time() - c0) / args.steps * 1e3)

    def median(v):
        v = sorted(v)
        m = len(v) // 2
        return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])

    print(json.dumps({"peer": "torch", "version": torch.__version__, "threads": torch.get_num_threads(),
                      "d": d, "n": n, "batch": B, "heads": H, "mlp": mlp,
                      "repeats": args.repeats, "steps": args.steps,
                      "ms_per_step": round(median(reps), 3), "min": round(min(reps), 3), "max": round(max(reps), 3),
                      "cpu_ms_per_step": round(median(cpu), 3), "cpu_min": round(min(cpu), 3), "cpu_max": round(max(cpu), 3),
                      "loss": round(loss, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
