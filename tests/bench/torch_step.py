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

--model babygpt: nanoGPT's "baby GPT" as softscope's createModel builds it
with { task: 'bigram_backcopy', values: 64, keys: 3, d: 128, heads: 4,
layers: 4, positions: 'learned', norm: 'layernorm', tied: true, adamw lr
1e-3, beta2 0.99, weight_decay 0.1 } (core/src/model): V = 65 tokens (64 and
BOS), token + learned position embeddings, 4 pre-norm blocks (LayerNorm
with gain and bias, eps 1e-5; causal softmax attention, scale 1/sqrt(d/heads);
MLP 4d with GELU tanh; linear layers without bias), a final LayerNorm, the
unembedding tied to the token embedding, cross-entropy at every position
(batch 12 x context 64), AdamW betas (0.9, 0.99), eps 1e-8, weight decay 0.1
on the 2-D tensors only (embeddings and matrices, as softscope's kinds
'embedding' and 'matrix'). Eager, written out as nanoGPT's model.py without
flash attention (torch 1.13 has no scaled_dot_product_attention). The
tokens are a fixed uniform draw (the timing does not depend on them).

The BLAS: Debian's python3-torch is built with BLAS_INFO=generic and calls
whatever libblas.so.3 the alternatives point to (libopenblas0-pthread's
OpenBLAS, or libblas3's netlib reference BLAS); torch.__config__.show()
says only "generic". So the JSON line also says which BLAS the process
actually uses ("blas": the libblas / libopenblas paths of /proc/self/maps
after a matmul, symlinks resolved; "sgemm": the file whose sgemm_ the
process finds (dlsym + dladdr): with LD_PRELOAD of the reference BLAS both
are mapped, and the reference multiplies; "blas_kind": openblas,
reference, mkl or unknown, from that file) and "matmul_gflops": a 512 x 512 x 512 float32 torch.mm on this
one thread (the best of 5 repeats of 8 products on the CPU clock; OpenBLAS
reaches tens of GFLOP/s on an AVX2 core, the reference BLAS ~1-3).

Usage: tests/bench/torch_step.py [--model tiny|babygpt] [--d 64] [--n 64]
                                 [--batch 32] [--heads 4] [--classes 16]
                                 [--layers 4] [--no-mlp] [--repeats 7]
                                 [--steps 10] [--warmup 5]
  (--model babygpt: defaults d 128, n 64, batch 12, heads 4, layers 4,
   classes 65; the given ones win)
"""
import argparse
import json
import math
import os
import sys
import time


def sgemm_provider():
    """The file whose sgemm_ the process's lookups find: LD_PRELOAD'ed and
    global objects first (dlsym(RTLD_DEFAULT)), then the libblas.so.3 that
    libtorch loaded by soname; dladdr names its file. None if neither has it."""
    import ctypes

    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    try:
        main = ctypes.CDLL(None)
        handles = [main]
        try:
            handles.append(ctypes.CDLL("libblas.so.3"))  # the object already loaded under that soname
        except OSError:
            pass
        for h in handles:
            try:
                f = h.sgemm_
            except AttributeError:
                continue
            info = DlInfo()
            if main.dladdr(ctypes.cast(f, ctypes.c_void_p), ctypes.byref(info)) and info.dli_fname:
                return os.path.realpath(info.dli_fname.decode())
    except (OSError, AttributeError):
        pass
    return None


def blas_loaded(torch):
    """The BLAS this process uses (after a matmul, so a lazily loaded one is
    mapped too): the libblas / libopenblas / libmkl paths of /proc/self/maps,
    symlinks resolved; the file that provides sgemm_ (several BLAS may be
    mapped: OpenBLAS's liblapack.so.3 pulls libopenblas in even when the
    reference libblas.so.3 is the one that multiplies); and what it is."""
    a = torch.ones(8, 8)
    (a @ a).sum().item()
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(p)
                if p.startswith("/") and ("blas" in base or base.startswith("libmkl")):
                    r = os.path.realpath(p)
                    if r not in paths:
                        paths.append(r)
    except OSError:
        pass
    sgemm = sgemm_provider()
    lib = sgemm or (paths[0] if len(paths) == 1 else None)
    if lib is None:
        kind = "unknown"
    elif "openblas" in lib:
        kind = "openblas"
    elif "mkl" in os.path.basename(lib):
        kind = "mkl"
    elif "/blas/" in lib or os.path.basename(lib).startswith("libblas.so"):
        kind = "reference"  # netlib's, Debian's libblas3 (/usr/lib/<triplet>/blas/)
    else:
        kind = "unknown"
    return paths, sgemm, kind


def matmul_gflops(torch):
    """GFLOP/s of a 512 x 512 x 512 float32 torch.mm on this thread: the
    best of 5 repeats of 8 products on the CPU clock (and the wall clock's)."""
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(512, 512, generator=g), torch.randn(512, 512, generator=g)
    torch.mm(a, b)
    cpu, wall = [], []
    for _ in range(5):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(8):
            torch.mm(a, b)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    flop = 8 * 2 * 512 ** 3
    return round(flop / max(min(cpu), 1e-9) / 1e9, 2), round(flop / max(min(wall), 1e-9) / 1e9, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["tiny", "babygpt"], default="tiny")
    ap.add_argument("--d", type=int)
    ap.add_argument("--n", type=int)
    ap.add_argument("--batch", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--classes", type=int)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--no-mlp", action="store_true")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--generate", type=int, default=0,
                    help="babygpt: time generating this many tokens nanoGPT's way instead of a training step")
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:  # the row says so; the rest of the bench runs
        print(json.dumps({"peer": "torch", "missing": str(e)}))
        return 0
    torch.set_num_threads(1)
    torch.manual_seed(1)
    dflt = {"tiny": dict(d=64, n=64, batch=32, heads=4, classes=16, layers=1),
            "babygpt": dict(d=128, n=64, batch=12, heads=4, classes=65, layers=4)}[args.model]
    for k, v in dflt.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    blas, sgemm, blas_kind = blas_loaded(torch)
    gflops, gflops_wall = matmul_gflops(torch)
    d, n, B, H, C = args.d, args.n, args.batch, args.heads, args.classes
    mlp = not args.no_mlp
    if args.model == "babygpt" and args.generate:
        step = babygpt_generate(torch, F, d, n, H, C, args.layers, args.generate)
    elif args.model == "babygpt":
        step = babygpt(torch, F, d, n, B, H, C, args.layers)
    else:
        step = tiny(torch, F, d, n, B, H, C, mlp)

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
                      "model": args.model, "d": d, "n": n, "batch": B, "heads": H, "classes": C,
                      "layers": args.layers if args.model == "babygpt" else 1, "mlp": mlp or args.model == "babygpt",
                      "blas": blas, "sgemm": sgemm, "blas_kind": blas_kind, "matmul_gflops": gflops, "matmul_gflops_wall": gflops_wall,
                      "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_CORETYPE",
                                                             "OPENBLAS_L2_SIZE", "LD_PRELOAD") if k in os.environ},
                      "repeats": args.repeats, "steps": args.steps,
                      "ms_per_step": round(median(reps), 3), "min": round(min(reps), 3), "max": round(max(reps), 3),
                      "cpu_ms_per_step": round(median(cpu), 3), "cpu_min": round(min(cpu), 3), "cpu_max": round(max(cpu), 3),
                      "loss": round(loss, 4)}))
    return 0


def tiny(torch, F, d, n, B, H, C, mlp):
    """The tiny attention model of issue 27 (the module's docstring); returns step()."""
    dh = d // H

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

    return step


def babygpt(torch, F, d, n, B, H, V, L):
    """nanoGPT's baby GPT as softscope builds it (the module's docstring);
    returns step()."""
    dh = d // H
    std, pstd = 0.02, 0.02 / math.sqrt(2 * L)  # nanoGPT's init (c_proj scaled)

    def normal(*shape, s=std):
        return torch.nn.Parameter(torch.randn(*shape) * s)

    def ones(k):
        return torch.nn.Parameter(torch.ones(k))

    def zeros(k):
        return torch.nn.Parameter(torch.zeros(k))

    wte, wpe = normal(V, d), normal(n, d)
    blocks = [{"ln1_w": ones(d), "ln1_b": zeros(d), "wq": normal(d, d), "wk": normal(d, d), "wv": normal(d, d),
               "wo": normal(d, d, s=pstd), "ln2_w": ones(d), "ln2_b": zeros(d),
               "w1": normal(4 * d, d), "w2": normal(d, 4 * d, s=pstd)} for _ in range(L)]
    lnf_w, lnf_b = ones(d), zeros(d)
    params = [wte, wpe, lnf_w, lnf_b] + [p for b in blocks for p in b.values()]
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    tokens = torch.randint(0, V, (B, n + 1))
    x_in, target = tokens[:, :-1], tokens[:, 1:]
    pos = torch.arange(n)
    mask = torch.tril(torch.ones(n, n, dtype=torch.bool))
    scale = 1.0 / math.sqrt(dh)

    def step():
        h = wte[x_in] + wpe[pos]
        for b in blocks:
            x = F.layer_norm(h, (d,), b["ln1_w"], b["ln1_b"], 1e-5)
            q = (x @ b["wq"].T).view(B, n, H, dh).transpose(1, 2)
            k = (x @ b["wk"].T).view(B, n, H, dh).transpose(1, 2)
            v = (x @ b["wv"].T).view(B, n, H, dh).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * scale
            att = torch.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
            o = (att @ v).transpose(1, 2).reshape(B, n, d)
            h = h + o @ b["wo"].T
            x = F.layer_norm(h, (d,), b["ln2_w"], b["ln2_b"], 1e-5)
            h = h + F.gelu(x @ b["w1"].T, approximate="tanh") @ b["w2"].T
        logits = F.layer_norm(h, (d,), lnf_w, lnf_b, 1e-5) @ wte.T
        loss = F.cross_entropy(logits.reshape(B * n, V), target.reshape(B * n))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def babygpt_generate(torch, F, d, n, H, V, L, tokens):
    """nanoGPT's model.generate on the baby GPT (batch 1): each new token runs
    the forward on the whole context (the last n tokens: idx[:, -block_size:]),
    then temperature 0.8, softmax and torch.multinomial; returns step(), one
    step = `tokens` tokens from a one-token start (ms per step / tokens = ms
    per token)."""
    dh = d // H
    g = torch.Generator().manual_seed(1)

    def normal(*shape, s=0.02):
        return torch.randn(*shape, generator=g) * s

    wte, wpe = normal(V, d), normal(n, d)
    blocks = [{"ln1_w": torch.ones(d), "ln1_b": torch.zeros(d), "wq": normal(d, d), "wk": normal(d, d),
               "wv": normal(d, d), "wo": normal(d, d), "ln2_w": torch.ones(d), "ln2_b": torch.zeros(d),
               "w1": normal(4 * d, d), "w2": normal(d, 4 * d)} for _ in range(L)]
    lnf_w, lnf_b = torch.ones(d), torch.zeros(d)
    scale = 1.0 / math.sqrt(dh)

    def forward(idx):
        t = idx.shape[1]
        h = wte[idx] + wpe[torch.arange(t)]
        mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
        for b in blocks:
            x = F.layer_norm(h, (d,), b["ln1_w"], b["ln1_b"], 1e-5)
            q = (x @ b["wq"].T).view(1, t, H, dh).transpose(1, 2)
            k = (x @ b["wk"].T).view(1, t, H, dh).transpose(1, 2)
            v = (x @ b["wv"].T).view(1, t, H, dh).transpose(1, 2)
            att = torch.softmax(((q @ k.transpose(-2, -1)) * scale).masked_fill(~mask, float("-inf")), dim=-1)
            h = h + (att @ v).transpose(1, 2).reshape(1, t, d) @ b["wo"].T
            x = F.layer_norm(h, (d,), b["ln2_w"], b["ln2_b"], 1e-5)
            h = h + F.gelu(x @ b["w1"].T, approximate="tanh") @ b["w2"].T
        return F.layer_norm(h, (d,), lnf_w, lnf_b, 1e-5) @ wte.T

    @torch.no_grad()
    def step():
        idx = torch.zeros((1, 1), dtype=torch.long)
        for _ in range(tokens):
            logits = forward(idx[:, -n:])[:, -1, :] / 0.8
            nxt = torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1, generator=g)
            idx = torch.cat((idx, nxt), dim=1)
        return float(idx.shape[1])

    return step


if __name__ == "__main__":
    sys.exit(main())
