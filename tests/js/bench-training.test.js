// The benchmark's training row (issue 27; tests/bench/families.js
// `training`): the step of the default model through createModel, and its
// PyTorch peer, a child process (torch-peer.js) stood in for here by a fake
// that reports fixed times, so the plumbing is checked without torch and
// without timing: which of the child's clocks the row takes, the repeats it
// asks for, the note and the "not measured" target where torch is missing,
// and the tables. Runs the harness itself (SIMD build, rounds of a
// millisecond; no time of ours is asserted).
import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadBuilds } from '../bench/raw.js';
import { runFamilies } from '../bench/run.js';
import { computeTargets } from '../../scripts/bench/targets.js';
import { familyTable } from '../../scripts/bench/report.js';
import { benchSections } from '../../scripts/bench/tables.js';
import { torchStep } from '../bench/torch-peer.js';

const DIST = fileURLToPath(new URL('../../wasm/dist', import.meta.url));
const ST = { rounds: 3, roundMs: 1, warmupMs: 0, minCalls: 1 };

// torch_step.py's JSON line, as the child prints it
const fakeTorch = (calls) => ({
  step: (shape, rounds) => {
    calls.push({ shape, rounds });
    return { peer: 'torch', version: '1.13-fake', python: 'fake', threads: 1, repeats: rounds.repeats, steps: rounds.steps,
      ms_per_step: 30, min: 28, max: 33, cpu_ms_per_step: 20, cpu_min: 19, cpu_max: 22, loss: 2.5 };
  },
});

async function run(peers, clock) {
  const builds = await loadBuilds(DIST, ['simd']);
  const families = await runFamilies({ builds, peers }, { families: ['training'], clock }, ST, () => {});
  return { machine: { date: '2026-12-07T00:00:00.000Z', cpu: 'x', cores: 2, node: 'v20', git: 'g' }, settings: { clock, peers: peers.versions, rounds: 3, roundMs: 1 }, families };
}

describe('bench: training step row', () => {
  it('times the step in the build and takes PyTorch on the run\'s clock (CPU: the child\'s process time), with as many repeats as rounds', async () => {
    const calls = [];
    const res = await run({ versions: {}, torch: fakeTorch(calls) }, 'cpu');
    const [row] = res.families.training.rows;
    expect(row).toMatchObject({ kernel: 'step', shape: 'd64 n64 b32', n: 1 });
    expect(row.error).toBeUndefined();
    expect(row.results.simd.ns_per_elem > 0).toBe(true);
    // the model torch_step.py builds: the default
    expect(calls).toEqual([{ shape: expect.objectContaining({ model: 'tiny', d: 64, n: 64, batch: 32, heads: 4, classes: 16, mlp: true, layers: 1 }),
      rounds: { repeats: 3, steps: 10, warmup: 5 } },
    // issue 35's baby GPT, the second row: its own rounds (3), 10 steps a repeat after 5
    { shape: expect.objectContaining({ model: 'babygpt', d: 128, n: 64, batch: 12, heads: 4, classes: 65, layers: 4 }),
      rounds: { repeats: 3, steps: 10, warmup: 5 } }]);
    // 20 ms of CPU a step (the wall clock's 30 is not the cpu run's figure); a unit is a step: ns per step
    expect(row.results.torch).toMatchObject({ ns_per_elem: 20e6, min: 19e6, max: 22e6, wall_ms_per_step: 30, cpu_ms_per_step: 20 });
    expect(res.settings.peers.torch).toBe('1.13-fake (fake, eager, 1 thread)');
    const [tg] = computeTargets(res).filter((t) => t.family === 'training' && t.name.includes('simd'));
    expect(tg.values).toEqual([{ at: 'd64 n64 b32', value: 20e6 / row.results.simd.ns_per_elem }]);
    // the docs' table: the torch column in ms and the ratio torch / SIMD
    const table = benchSections(res).training();
    const line = table.split('\n').find((l) => l.startsWith('| d64 n64 b32 |')).split(' | ');
    expect(line[4]).toBe('20.0');
    const want = 20e6 / row.results.simd.ns_per_elem; // shown with 3 significant digits
    expect(line[6]).toMatch(/^\d+(\.\d+)?x$/);
    expect(Math.abs(parseFloat(line[6]) - want) / want).toBeLessThan(0.01);
  });

  it('on the wall clock takes the child\'s wall time', async () => {
    const res = await run({ versions: {}, torch: fakeTorch([]) }, 'wall');
    expect(res.families.training.rows[0].results.torch).toMatchObject({ ns_per_elem: 30e6, min: 28e6, max: 33e6 });
  });

  it('without torch: the row notes why, the target is not measured, the tables say so, and the builds are still timed', async () => {
    const res = await run({ versions: {}, torch: { step: () => ({ missing: '/usr/bin/python3: No module named \'torch\'' }) } }, 'cpu');
    const [row] = res.families.training.rows;
    expect(row.results.torch).toBeUndefined();
    expect(row.results.simd.ns_per_elem > 0).toBe(true);
    expect(row.notes).toEqual({ torch: 'PyTorch not measured: /usr/bin/python3: No module named \'torch\'' });
    const tgs = computeTargets(res).filter((t) => t.family === 'training' && !t.name.startsWith('baby GPT'));
    expect(tgs.map((t) => t.status)).toEqual(['not measured', 'not measured']);
    for (const t of tgs) expect(t.note).toBe(row.notes.torch);
    expect(familyTable(res.families.training)).toContain(`  torch (d64 n64 b32): ${row.notes.torch}\n`);
    expect(benchSections(res).training()).toContain(`PyTorch eager (1 thread): ${row.notes.torch}`);
  });

  it('torch-peer: an interpreter that does not exist gives { missing }, not an exception', () => {
    const old = process.env.TORCH_PYTHON;
    process.env.TORCH_PYTHON = '/nonexistent/python3';
    try {
      expect(torchStep({ d: 64, n: 64, batch: 32, heads: 4, classes: 16, mlp: true }, { repeats: 1, steps: 1, warmup: 0 }))
        .toEqual({ missing: '/nonexistent/python3: ENOENT' });
    } finally {
      if (old === undefined) delete process.env.TORCH_PYTHON;
      else process.env.TORCH_PYTHON = old;
    }
  });
});
