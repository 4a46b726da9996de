// `softscope sweep dispersion` as a user runs it: the --json result is the
// API's sweep (kernel "dispersion", impl, n, series, inputs) with numbers
// checked against the closed form for constant distractors, the text table
// has a row per n, --svg writes well-formed XML holding every curve, and bad
// input exits 2 with "softscope: <message>".
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSoftscope } from 'softscope';
import { dispersionSweep } from 'softscope/analysis';
import { parseXml } from './support/xml.js';
import { runCli } from './support/run-cli.js';


const run = runCli;

let dir;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'softscope-sweep-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pow2 = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => 2 ** (a + i));
const BASE = ['sweep', 'dispersion', '--normalizers', 'softmax,softmax_temperature', '--n-max', '1024', '--distractor', 'constant', '--margin', '2'];

describe.concurrent('softscope sweep dispersion', () => {
  it('--json: the shape, the grid, and softmax on the closed form e^(m/T) / (e^(m/T) + n - 1)', async () => {
    const r = await run([...BASE, '--param', 'temperature=0.5', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    const j = JSON.parse(r.out);
    expect(Object.keys(j).sort()).toEqual(['build', 'impl', 'inputs', 'kernel', 'n', 'series']);
    expect(j.kernel).toBe('dispersion');
    expect(['simd', 'scalar']).toContain(j.impl);
    expect(j.n).toEqual(pow2(1, 10));
    expect(j.series.map((s) => [s.name, s.params])).toEqual([['softmax', {}], ['softmax_temperature', { temperature: 0.5 }]]);
    for (const s of j.series) {
      expect(Object.keys(s).sort()).toEqual(['entropy', 'errors', 'keyProb', 'maxProb', 'name', 'output', 'params', 'sum', 'support']);
      const T = s.params.temperature ?? 1;
      j.n.forEach((n, i) => {
        const e = Math.exp(2 / T), p = e / (e + n - 1);
        expect(Math.abs(s.keyProb[i] / p - 1)).toBeLessThanOrEqual(2e-6);
        expect(s.support[i]).toBe(n);
      });
    }
    expect(j.inputs).toMatchObject({ nMin: 2, nMax: 1024, margin: 2, distractor: { kind: 'constant' }, pointsPerOctave: 1 });
  });

  it('--json is the API result for the same options (one source of truth)', async () => {
    const args = ['sweep', 'dispersion', '--normalizers', 'softmax,log_softmax', '--n-max', '2^12', '--n-min', '3', '--margin', '1.5',
      '--distractor', 'uniform', '--scale', '2', '--seed', '9', '--points-per-octave', '2', '--key', 'random', '--impl', 'scalar', '--json'];
    const r = await run(args);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.impl).toBe('scalar');
    const ss = await createSoftscope({ impl: 'scalar' });
    const api = dispersionSweep(ss, {
      normalizers: ['softmax', 'log_softmax'], nMax: 4096, nMin: 3, margin: 1.5, distractor: { kind: 'uniform', scale: 2 },
      seed: 9, pointsPerOctave: 2, keyPosition: 'random',
    });
    expect({ n: j.n, series: j.series, inputs: j.inputs }).toEqual(JSON.parse(JSON.stringify(api)));
  });

  it('--param kernel.name=value sets one normalizer only', async () => {
    const r = await run(['sweep', 'dispersion', '--normalizers', 'softmax_temperature,softmax', '--n-max', '8',
      '--param', 'softmax_temperature.temperature=2', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).inputs.normalizers).toEqual([
      { name: 'softmax_temperature', params: { temperature: 2 } }, { name: 'softmax', params: {} }]);
  });

  it('without --json: a table per normalizer, one row per n', async () => {
    const r = await run(BASE);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^dispersion sweep \((simd|scalar)\): margin 2, distractors constant, seed 1, key first, n = 2\.\.1024$/m);
    expect(r.out).toMatch(/^softmax$/m);
    expect(r.out).toMatch(/^softmax_temperature \(temperature=1\)$/m);
    expect(r.out.match(/^n\s+key\s+max\s+entropy\s+support\s+sum$/gm)).toHaveLength(2);
    for (const n of pow2(1, 10)) expect(r.out.match(new RegExp(`^${n}\\s`, 'gm'))).toHaveLength(2);
    // n = 2, m = 2: p = e^2 / (e^2 + 1) = 0.880797 (6 digits)
    expect(r.out).toMatch(/^2\s+0\.880797\s+0\.880797\s/m);
  });

  it('--svg writes a well-formed SVG with the three panels and every curve through every n', async () => {
    const file = join(dir, 'd.svg');
    const r = await run(['sweep', 'dispersion', '--normalizers', 'softmax,softmax_temperature', '--n-max', '2^16', '--distractor', 'constant',
      '--margin', '2', '--svg', file, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(file)).toBe(true);
    const els = parseXml(readFileSync(file, 'utf8'));
    expect(els[0].name).toBe('svg');
    expect(els[0].attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    const panels = els.filter((e) => e.name === 'g' && e.attrs['data-chart']).map((e) => e.attrs['data-chart']);
    expect(panels).toEqual(['probability', 'entropy', 'support']);
    const n = JSON.parse(r.out).n;
    expect(n).toEqual(pow2(1, 16));
    for (const series of ['softmax', 'softmax_temperature']) {
      for (const metric of ['maxProb', 'keyProb', 'entropy', 'support']) {
        const paths = els.filter((e) => e.name === 'path' && e.attrs['data-series'] === series && e.attrs['data-metric'] === metric);
        expect(paths, `${series} ${metric}`).toHaveLength(1);
        const pts = [...paths[0].attrs.d.matchAll(/([ML])(-?[\d.]+),(-?[\d.]+)/g)].map((m) => [m[1], Number(m[2]), Number(m[3])]);
        expect(pts).toHaveLength(n.length); // a point per n, no gap
        expect(pts[0][0]).toBe('M');
        for (let i = 1; i < pts.length; i++) expect(pts[i][1]).toBeGreaterThan(pts[i - 1][1]); // log x: increasing
        // log2 x axis: equal steps in log n are equal steps in x
        const dx = pts.slice(1).map((p, i) => p[1] - pts[i][1]);
        for (const d of dx) expect(Math.abs(d - dx[0])).toBeLessThan(0.02);
      }
      // the key probability falls with n: its y (pixels, downwards) grows
      const key = els.find((e) => e.attrs['data-series'] === series && e.attrs['data-metric'] === 'keyProb');
      const ys = [...key.attrs.d.matchAll(/[ML]-?[\d.]+,(-?[\d.]+)/g)].map((m) => Number(m[1]));
      expect(ys[ys.length - 1]).toBeGreaterThan(ys[0] + 50);
    }
    expect(els.filter((e) => e.name === 'g' && e.attrs['data-legend-item']).map((e) => e.attrs['data-legend-item'])).toEqual(['softmax', 'softmax_temperature']);
    // what is drawn is the sweep: each curve's data-value holds the numbers of the JSON
    const j = JSON.parse(r.out);
    for (const s of j.series) {
      const path = els.find((e) => e.attrs['data-series'] === s.name && e.attrs['data-metric'] === 'maxProb');
      expect(path.attrs['data-value'].split(',').map(Number)).toEqual(s.maxProb);
    }
  });

  it('the XML checker used above rejects malformed documents', () => {
    for (const bad of ['<a><b></a>', '<a x=1/>', '<a>&</a>', '<a/><b/>', '<a x="1" x="2"/>', '<a>', 'x<a/>'])
      expect(() => parseXml(bad), bad).toThrow(/^XML: /);
    expect(parseXml('<?xml version="1.0"?>\n<a k="&amp;"><b/>t&lt;</a>\n')).toEqual([
      { name: 'a', attrs: { k: '&' }, depth: 0, text: 't<' }, { name: 'b', attrs: {}, depth: 1, text: '' }]);
  });

  it.each([
    [['--normalizers', 'sofmax', '--n-max', '16'], /^softscope: --normalizers: unknown kernel "sofmax"; known: .*softmax/],
    [['--normalizers', 'entropy', '--n-max', '16'], /--normalizers: "entropy" is a measure, not a normalizer/],
    [['--normalizers', 'softmax', '--n-max', '2^21'], /^softscope: --n-max = 2097152 must be an integer in \[2, 1048576\]/],
    [['--normalizers', 'softmax', '--n-max', '1'], /--n-max = 1 must be an integer/],
    [['--normalizers', 'softmax', '--n-max', 'lots'], /--n-max lots: not a number/],
    [['--normalizers', 'softmax', '--n-max', '64', '--n-min', '128'], /--n-min = 128 must be an integer in \[2, 64\]/],
    [['--normalizers', 'softmax', '--n-max', '16', '--distractor', 'cauchy'], /--distractor = "cauchy" is not a distractor kind; known: constant, gaussian, uniform/],
    [['--normalizers', 'softmax', '--n-max', '16', '--scale', '-1'], /--scale = -1 must be a finite number >= 0/],
    [['--normalizers', 'softmax', '--n-max', '16', '--margin', 'inf'], /--margin = Infinity must be a finite number/],
    [['--normalizers', 'softmax', '--n-max', '16', '--seed', '1.5'], /--seed = 1\.5 must be an integer/],
    [['--normalizers', 'softmax', '--n-max', '16', '--points-per-octave', '0'], /--points-per-octave = 0 must be an integer in \[1, 16\]/],
    [['--normalizers', 'softmax', '--n-max', '16', '--key', 'middle'], /--key = "middle" must be one of first, random/],
    [['--normalizers', 'softmax', '--n-max', '16', '--param', 'temperature=2'], /--param temperature: none of softmax has a parameter "temperature"/],
    [['--normalizers', 'softmax_temperature', '--n-max', '16', '--param', 'temperature=-1'], /--param softmax_temperature\.temperature = -1 is out of range \(0, /],
    [['--normalizers', 'softmax', '--n-max', '16', '--param', 'log_softmax.x=1'], /"log_softmax" is not in --normalizers/],
    [['--normalizers', 'softmax,softmax', '--n-max', '16'], /--normalizers: "softmax" given twice/],
    [['--normalizers', 'softmax', '--n-max', '16', '--svg', '/nonexistent/dir/d.svg'], /--svg: cannot write \/nonexistent\/dir\/d\.svg \(ENOENT\)/],
    [['--normalizers', 'softmax', '--n-max', '16', '--input', '[1]'], /unknown option --input for sweep/],
    [['--n-max', '16'], /--normalizers is required/],
    [['--normalizers', 'softmax'], /--n-max is required/],
  ])('bad input %j exits 2 with the message on stderr', async (args, re) => {
    const r = await run(['sweep', 'dispersion', ...args]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^softscope: /);
    expect(r.err).toMatch(re);
  });

  it('unknown sweep, missing sweep, and sweep options on other commands exit 2', async () => {
    expect((await run(['sweep', 'frobnicate'])).err).toMatch(/^softscope: sweep: unknown sweep "frobnicate" \(dispersion\)/);
    expect((await run(['sweep'])).err).toMatch(/which sweep\?/);
    const r = await run(['normalize', 'softmax', '--input', '[1, 2]', '--n-max', '4']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option --n-max for normalize \(see softscope normalize --help\)/);
  });

  it('sweep --help documents the sweep (and only it)', async () => {
    const r = await run(['sweep', '--help']);
    expect(r.out).not.toContain('softscope normalize');
    expect(r.code).toBe(0);
    for (const s of ['softscope sweep dispersion', '--normalizers', '--n-max', '--margin', '--distractor', '--scale', '--seed',
      '--points-per-octave', '--param k.name=value', '--svg FILE']) expect(r.out).toContain(s);
  });
});
