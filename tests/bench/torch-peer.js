// The PyTorch peer of the training step (issue 27): tests/bench/torch_step.py
// run as a child process (Node only; a page has none), the same model, shapes
// and rounds as the `training` family's candidates (families.js). Python:
// $TORCH_PYTHON, else Debian's /usr/bin/python3 (where apt's python3-torch
// lands; a python3 earlier in PATH, e.g. pyenv's, does not see it), else
// python3. Never throws: a missing torch or interpreter comes back as
// { missing: reason }, so the rest of the benchmark runs.
//
// The BLAS (issue 37, "honest peers"): Debian's python3-torch is built with
// BLAS_INFO=generic and calls whatever libblas.so.3 the alternatives
// (libblas.so.3-x86_64-linux-gnu) point to. tests/install-deps.sh bench
// installs libopenblas0-pthread next to python3-torch, whose libblas.so.3
// (priority 100) wins over libblas3's netlib reference BLAS (priority 10) in
// the alternatives' auto mode. Should the alternatives still point to the
// reference BLAS (set by hand) while OpenBLAS is installed, the child gets
// OpenBLAS's libblas.so.3 through LD_PRELOAD (the soname is then loaded
// when libtorch asks for it): a user running PyTorch has a real BLAS. The
// child runs with OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1 (one thread,
// as softscope's step), and without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
// (a host may set them, e.g. CORETYPE=Haswell, which keeps OpenBLAS off
// its AVX-512 kernels): that child's environment only. torch_step.py
// reports the BLAS it actually mapped (/proc/self/maps) and the GFLOP/s of
// a 512^2 matmul; a row whose torch ran on the reference BLAS gives no
// ratio (families.js).
import { spawnSync } from 'node:child_process';
export { blasName, onReferenceBlas } from './torch-blas.js';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'torch_step.py');

export function torchPython() {
  return process.env.TORCH_PYTHON || (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
}

const LIBDIR = '/usr/lib/x86_64-linux-gnu';
const ALTERNATIVE = `${LIBDIR}/libblas.so.3`; // -> /etc/alternatives/libblas.so.3-x86_64-linux-gnu -> ...
const OPENBLAS = `${LIBDIR}/openblas-pthread/libblas.so.3`;

/** The child's environment: one BLAS thread, no host overrides of OpenBLAS's
    core type, OpenBLAS preloaded where the alternatives chose the reference BLAS. */
export function torchEnv(env = process.env) {
  const out = { ...env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' };
  delete out.OPENBLAS_CORETYPE;
  delete out.OPENBLAS_L2_SIZE;
  let chosen = null;
  try {
    chosen = realpathSync(ALTERNATIVE);
  } catch { /* no libblas.so.3 at all: torch reports what it loaded */ }
  // TORCH_BLAS=<a libblas.so.3>: that one instead (e.g. the reference BLAS,
  // /usr/lib/x86_64-linux-gnu/blas/libblas.so.3, to see the row without a ratio)
  const preload = env.TORCH_BLAS || (chosen && chosen.startsWith(`${LIBDIR}/blas/`) && existsSync(OPENBLAS) ? OPENBLAS : null);
  if (preload) out.LD_PRELOAD = [preload, env.LD_PRELOAD].filter(Boolean).join(':');
  delete out.TORCH_BLAS;
  return out;
}

/**
 * One run of torch_step.py: shape { model ('tiny' | 'babygpt'), d, n, batch,
 * heads, classes, layers, mlp }; rounds { repeats, steps, warmup }. Returns
 * its JSON line ({ version, ms_per_step, cpu_ms_per_step, min, cpu_min,
 * blas, blas_kind, matmul_gflops, ... }) or { missing }.
 */
export function torchStep(shape, rounds) {
  const args = [SCRIPT, '--model', shape.model ?? 'tiny', '--d', shape.d, '--n', shape.n, '--batch', shape.batch, '--heads', shape.heads,
    '--classes', shape.classes, ...(shape.layers ? ['--layers', shape.layers] : []),
    ...(shape.mlp === false ? ['--no-mlp'] : []), ...(shape.generate ? ['--generate', shape.generate] : []),
    '--repeats', rounds.repeats, '--steps', rounds.steps, '--warmup', rounds.warmup].map(String);
  const py = torchPython();
  const r = spawnSync(py, args, { encoding: 'utf8', timeout: 15 * 60e3, env: torchEnv() });
  if (r.error) return { missing: `${py}: ${r.error.code ?? r.error.message}` };
  const line = r.stdout.trim().split('\n').pop();
  try {
    const out = JSON.parse(line);
    if (r.status !== 0 || (!out.missing && !(out.ms_per_step > 0))) throw new Error('no time');
    return out.missing ? { missing: `${py}: ${out.missing}` } : { ...out, python: py };
  } catch {
    return { missing: `${py} ${path.basename(SCRIPT)} failed (exit ${r.status}): ${(r.stderr || line || '').trim().split('\n').pop()}` };
  }
}
