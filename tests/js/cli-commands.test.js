// The commands added with the view modules: list and describe from the
// registry, `figure` (the same figure as the playground, as SVG and PNG, and
// its numbers as CSV and JSON), `check`, and the input rules every command
// shares (a normalizer's output read as a distribution by one rule; finite
// values beyond float32 are errors, not masks; nested input exits 2).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSoftscope } from 'softscope';
import { parseXml } from './support/xml.js';
import { runCli as run } from './support/run-cli.js';

let dir, ss;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'softscope-cli-'));
  ss = await createSoftscope();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('list and describe', () => {
  it('list: one line per kernel within 100 columns', async () => {
    const r = await run(['list']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
    for (const k of ss.kernels()) expect(lines.some((l) => l.startsWith(`${k.name} `)), k.name).toBe(true);
    expect(lines.find((l) => l.startsWith('softmax_temperature '))).toMatch(/normalizer\s+temperature=1$/);
  });

  it('list <family> filters; a bad family exits 2 naming the families', async () => {
    const r = await run(['list', 'quantizer']);
    const names = r.out.split('\n').filter((l) => /^\w+ +quantizer /.test(l)).map((l) => l.split(/ +/)[0]);
    expect(names).toEqual(ss.kernels('quantizer').map((k) => k.name));
    const bad = await run(['list', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown family .*"nope".*normalizer/);
  });

  it('describe <kernel>: formula, paper, every parameter with its range and default', async () => {
    const r = await run(['describe', 'entmax_bisect']);
    expect(r.code, r.err).toBe(0);
    const k = ss.kernel('entmax_bisect');
    expect(r.out).toContain(k.formula);
    expect(r.out).toContain(k.paper);
    for (const p of k.params) expect(r.out).toMatch(new RegExp(`${p.name} \\(${p.type}\\) = `));
    expect(JSON.parse((await run(['describe', 'top_p', '--json'])).out)).toEqual(JSON.parse(JSON.stringify(ss.kernel('top_p'))));
  });
});

describe.concurrent('figure', () => {
  it('normalizers: the SVG draws the numbers the kernels compute; CSV and JSON hold the same numbers', async () => {
    const svg = join(dir, 'n.svg'), csv = join(dir, 'n.csv'), json = join(dir, 'n.json');
    const state = 'kernels=softmax,sparsemax&logits=2,1,0.1,-1&temperature=0.5';
    const r = await run(['figure', 'normalizers', '--state', state, '--out', svg, '--data', csv]);
    expect(r.code, r.err).toBe(0);
    expect((await run(['figure', 'normalizers', '--state', `#view=normalizers&${state}`, '--data', json])).code).toBe(0);
    const els = parseXml(readFileSync(svg, 'utf8'));
    expect(els[0].name).toBe('svg');
    const x = Float32Array.from([2, 1, 0.1, -1], (v) => v / 0.5);
    for (const k of ['softmax', 'sparsemax']) {
      const want = Array.from(ss.normalize(k, x));
      const g = els.findIndex((e) => e.attrs['data-bars'] === k);
      const bars = els.slice(g).filter((e) => e.name === 'rect' && e.attrs['data-index'] !== undefined).slice(0, 4);
      expect(bars.map((b) => Number(b.attrs['data-value']))).toEqual(want);
    }
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('kernel,i,x,y');
    expect(rows).toHaveLength(1 + 8);
    const j = JSON.parse(readFileSync(json, 'utf8'));
    expect(j.view).toBe('normalizers');
    expect(j.data.series.map((s) => s.name)).toEqual(['softmax', 'sparsemax']);
    expect(j.data.series[1].y).toEqual(Array.from(ss.normalize('sparsemax', x)));
  });

  it('--out .png writes a PNG (resvg) of the requested size at 2x', async () => {
    const png = join(dir, 'd.png');
    const r = await run(['figure', 'dispersion', '--state', 'kernels=softmax,sparsemax nmax=256', '--out', png, '--width', '600', '--theme', 'dark']);
    expect(r.code, r.err).toBe(0);
    const b = readFileSync(png);
    expect(b.subarray(1, 4).toString()).toBe('PNG');
    expect(b.readUInt32BE(16)).toBe(1200); // IHDR width
  });

  it('without --out the SVG goes to stdout', async () => {
    const r = await run(['figure', 'normalizers']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^<\?xml[^>]*>\n<svg /);
  });

  it.each([
    [['figure', 'nope'], /unknown view "nope"; views: normalizers, dispersion/],
    [['figure', 'normalizers', '--state', 'temperature=abc'], /--state: temperature=abc: not a number/],
    [['figure', 'normalizers', '--state', 'kernels=sofmax'], /--state: kernels=sofmax: unknown: sofmax/],
    [['figure', 'normalizers', '--state', 'bogus=1'], /--state: bogus=1: not a setting of this view/],
    [['figure', 'normalizers', '--state', '#view=dispersion'], /--state: the link is of view dispersion, not normalizers/],
    [['figure', 'normalizers', '--out', 'x.jpg'], /--out x\.jpg: the file name must end in \.svg or \.png/],
    [['figure', 'normalizers', '--width', '10'], /--width 10: an integer number of pixels/],
    [['figure', 'normalizers', '--theme', 'sepia'], /--theme sepia: light or dark/],
  ])('bad input %j exits 2 with one line', async (args, re) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(re);
  });
});

describe.concurrent('check and input rules', () => {
  it('check: every kernel has a row, nothing fails, exit 0, well under 10 s', async () => {
    const t0 = Date.now();
    const r = await run(['check', '--json']);
    expect(r.code, r.out.slice(0, 500)).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.rows.map((x) => x.kernel)).toEqual(ss.kernels().map((k) => k.name));
    expect(j.failed).toBe(0);
    expect(j.passed).toBeGreaterThan(ss.kernels().length);
    expect(Date.now() - t0).toBeLessThan(10000);
  });

  // Exported numbers name the wasm build that computed them: "impl" is the
  // C impl ('simd' on the relaxed build too), "build" the module.
  it.each([
    [['normalize', 'softmax', '--input', '[1,2,3]']],
    [['measure', 'entropy', '--input', '[0.25,0.75]']],
    [['loss', 'cross_entropy', '--input', '[1,2,3]', '--param', 'target=1']],
    [['sample', 'top_p', '--input', '[1,2,3]']],
    [['quantize', 'uniform', '--input', '[0.1,-0.5,0.9]']],
    [['optimize', 'adam', '--steps', '3']],
    [['attend', 'sdpa', '--example', 'random', '--n', '4']],
    [['sweep', 'dispersion', '--normalizers', 'softmax', '--n-max', '64']],
    [['list', '--family', 'loss']],
  ])('%j --json names the build, and --impl scalar gives build "scalar"', async (args) => {
    const a = await run([...args, '--json']);
    expect(a.code, a.err).toBe(0);
    expect(JSON.parse(a.out).build).toBe(ss.build);
    const b = await run([...args, '--json', '--impl', 'scalar']);
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ impl: 'scalar', build: 'scalar' });
  });

  it('normalize sa_softmax: its weights (some negative) are measured as |w| / sum |w|, not rejected', async () => {
    const r = await run(['normalize', 'sa_softmax', '--input', '[2,-3,0.5,-1]', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    const y = ss.normalize('sa_softmax', Float32Array.from([2, -3, 0.5, -1]));
    const abs = Array.from(y, Math.abs), s = abs.reduce((a, b) => a + b, 0);
    const h = -abs.reduce((a, v) => a + (v > 0 ? (v / s) * Math.log(v / s) : 0), 0);
    expect(Math.abs(j.metrics.entropy - h)).toBeLessThan(1e-5);
    expect(Math.abs(j.metrics.sum - Array.from(y).reduce((a, b) => a + b, 0))).toBeLessThan(1e-6);
  });

  it.each([
    ['-1e39 (not a mask)', ['normalize', 'softmax', '--input', '[-1e39, 1, 2]'], /--input: item 0 \(-1e\+39\) overflows float32/],
    ['+1e39', ['normalize', 'softmax', '--input', '[1, 1e39]'], /--input: item 1 \(1e\+39\) overflows float32/],
    ['input nested 5000 deep', ['normalize', 'softmax', '--input', `${'['.repeat(5000)}1${']'.repeat(5000)}`], /--input: (row 0 )?item 0 is an array, not a number|nested too deeply/],
  ])('%s exits 2 naming the item', async (label, args, re) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(re);
  });

  it.each([
    ['[1,2', /^softscope: --input: malformed JSON: the "\[" is not closed$/],
    ['1,2]', /^softscope: --input: malformed JSON: a "\]" closes no "\["$/],
    ['{"output": [1, 2', /^softscope: --input: malformed JSON \(.+\)$/],
  ])('malformed JSON %j exits 2 with one line naming the problem, nothing on stdout', async (input, re) => {
    const r = await run(['normalize', 'softmax', '--input', input]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err.trim()).toMatch(re);
  });
});

describe('the README figure', () => {
  it('docs/figure-normalizers.svg is what softscope figure draws today for the README\'s command', async () => {
    const out = join(dir, 'readme.svg');
    const r = await run(['figure', 'normalizers', '--state', 'kernels=softmax,sparsemax,entmax15&logits=2,1,0.1,-1,-0.5,1.5&temperature=0.8', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain("figure normalizers --state 'kernels=softmax,sparsemax,entmax15&logits=2,1,0.1,-1,-0.5,1.5&temperature=0.8' --out docs/figure-normalizers.svg");
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(new URL('../../docs/figure-normalizers.svg', import.meta.url), 'utf8'));
  });
});
