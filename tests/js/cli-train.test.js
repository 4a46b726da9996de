// `softscope train` as a user runs it: --json is the results file
// ({"softscope", "view": "experiments", "state", "data"}) whose data is the
// view's compute for the same state, --csv parses with a row per curve
// point and test length, flags and --state give the same run, and bad
// input exits 2 with one line naming the flag. `softscope figure
// experiments` trains, then draws.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSoftscope } from 'softscope';
import { experiments } from '../../wasm/views/experiments/index.js';
import { parse, stateEntries } from '../../wasm/state/schema.js';
import { plain } from '../../wasm/views/data.js';
import REGISTRY from '../../wasm/dist/registry.js';
import { parseXml } from './support/xml.js';
import { runCli } from './support/run-cli.js';

let dir;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'softscope-train-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A small run: about 0.3 s of training.
const FLAGS = ['--normalizers', 'softmax,ssmax', '--steps', '30', '--d', '16', '--test-max', '64', '--examples', '16', '--quantizers', '', '--seed', '3'];
const LINK = 'normalizers=softmax,ssmax&steps=30&d=16&testMax=64&examples=16&quantizers=&seed=3';

describe.concurrent('softscope train', () => {
  it('--json: the results file, its data the view\'s compute of the same state (same build)', async () => {
    const r = await runCli(['train', ...FLAGS, '--impl', 'simd', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['softscope', 'view', 'state', 'data']);
    expect(j.softscope).toBe(REGISTRY.version);
    expect(j.view).toBe('experiments');
    expect(j.state).toEqual({ normalizers: 'softmax,ssmax', d: '16', steps: '30', testMax: '64', examples: '16', quantizers: '', seed: '3' });
    expect(j.data.testN).toEqual([16, 32, 64]);
    expect(j.data.runs.map((x) => x.name)).toEqual(['softmax', 'ssmax']);
    for (const run of j.data.runs) {
      expect(Object.keys(run)).toEqual(expect.arrayContaining(['name', 'normParams', 'step', 'diverged', 'reached', 'curve', 'lengths', 'map', 'heads', 'quant', 'floatAccuracy']));
      expect(run.curve.step).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    }
    const ss = await createSoftscope({ impl: 'simd' });
    const { state } = parse(experiments.schema, stateEntries(LINK), ss);
    expect(j.data).toEqual(plain(experiments.compute(ss, state)));
  });

  it('--state LINK gives the same run as the flags; a flag overrides the link', async () => {
    const [a, b, c] = await Promise.all([
      runCli(['train', '--state', `#view=experiments&${LINK}`, '--json']),
      runCli(['train', ...FLAGS, '--json']),
      runCli(['train', '--state', LINK.replace('seed=3', 'seed=9'), '--seed', '3', '--json']),
    ]);
    for (const r of [a, b, c]) expect(r.code, r.err).toBe(0);
    expect(JSON.parse(a.out)).toEqual(JSON.parse(b.out));
    expect(JSON.parse(c.out).data).toEqual(JSON.parse(b.out).data);
  });

  it('--csv: a header, then a row per curve point and per (normalizer, n)', async () => {
    const r = await runCli(['train', ...FLAGS, '--csv']);
    expect(r.code, r.err).toBe(0);
    const rows = r.out.trim().split('\n').map((l) => l.split(','));
    expect(rows[0]).toEqual(['kind', 'normalizer', 'step', 'n', 'quantizer', 'bits', 'loss', 'accuracy', 'entropy', 'maxWeight', 'support']);
    const body = rows.slice(1);
    expect(body.filter((c) => c[0] === 'curve')).toHaveLength(60);
    const test = body.filter((c) => c[0] === 'test');
    expect(test.map((c) => [c[1], Number(c[3])])).toEqual([['softmax', 16], ['softmax', 32], ['softmax', 64], ['ssmax', 16], ['ssmax', 32], ['ssmax', 64]]);
    for (const c of test) {
      expect(Number(c[7])).toBeGreaterThanOrEqual(0);
      expect(Number(c[7])).toBeLessThanOrEqual(1);
      expect(Number(c[8])).toBeLessThanOrEqual(Math.log(Number(c[3])) * (1 + 1e-6));
    }
  });

  it('the text report: a table per normalizer', async () => {
    const r = await runCli(['train', ...FLAGS]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^max_retrieval: 8 classes/);
    expect(r.out).toMatch(/\nssmax: .*\(s=/);
    expect(r.out.match(/^n +accuracy %/gm)).toHaveLength(2);
  });

  it.each([
    [['--normalizers', 'softmax,nope'], /^softscope: --normalizers softmax,nope: unknown: nope\n$/],
    [['--normalizers', 'log_softmax'], /^softscope: --normalizers log_softmax: unknown: log_softmax\n$/],
    [['--steps', '5'], /^softscope: --steps 5: outside \[10, 20000\]/],
    [['--steps', 'many'], /^softscope: --steps many: not a number/],
    [['--d', '48'], /^softscope: --d 48: .*power of 2/],
    [['--param', 'adam.lr=-1'], /^softscope: --param adam\.lr -1: not a value in/],
    [['--param', 'lr=0.1'], /^softscope: --param lr=0.1: expected kernel\.name=value/],
    [['--state', 'steps=3'], /^softscope: --state: steps=3: outside/],
    [['--state', 'view=optimizers'], /^softscope: --state: the link is of view optimizers/],
    [['--bogus', '1'], /^softscope: unknown option --bogus for train/],
    [['--json', '--csv'], /^softscope: --json and --csv: choose one/],
  ])('bad input %j exits 2 with one line', async (args, message) => {
    const r = await runCli(['train', ...args]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('softscope figure experiments trains, then draws (SVG), and --data writes the view\'s numbers', async () => {
    const svg = join(dir, 'e.svg'), json = join(dir, 'e.json');
    const r = await runCli(['figure', 'experiments', '--state', LINK, '--out', svg, '--data', json]);
    expect(r.code, r.err).toBe(0);
    expect(parseXml(readFileSync(svg, 'utf8'))[0].name).toBe('svg');
    const j = JSON.parse(readFileSync(json, 'utf8'));
    expect(j.view).toBe('experiments');
    expect(j.data.runs.map((x) => x.lengths.length)).toEqual([3, 3]);
  });
});
