// The PyTorch peer of the training step (issue 27): tests/bench/torch_step.py
// run as a child process (Node only; a page has none), the same model, shapes
// and rounds as the `training` family's candidates (families.js). Python:
// $TORCH_PYTHON, else Debian's /usr/bin/python3 (where apt's python3-torch
// lands; a python3 earlier in PATH, e.g. pyenv's, does not see it), else
// python3. Never throws: a missing torch or interpreter comes back as
// { missing: reason }, so the rest of the benchmark runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'torch_step.py');

export function torchPython() {
  return process.env.TORCH_PYTHON || (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
}

/**
 * One run of torch_step.py: shape { d, n, batch, heads, classes, mlp };
 * rounds { repeats, steps, warmup }. Returns its JSON line ({ version,
 * ms_per_step, cpu_ms_per_step, min, cpu_min, ... }) or { missing }.
 */
export function torchStep(shape, rounds) {
  const args = [SCRIPT, '--d', shape.d, '--n', shape.n, '--batch', shape.batch, '--heads', shape.heads, '--classes', shape.classes,
    ...(shape.mlp ? [] : ['--no-mlp']), '--repeats', rounds.repeats, '--steps', rounds.steps, '--warmup', rounds.warmup].map(String);
  const py = torchPython();
  const r = spawnSync(py, args, { encoding: 'utf8', timeout: 15 * 60e3 });
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
