// The CLI as a user runs it (node wasm/cli.js ...): the --json shape is a
// contract, the metrics are checked against float64 references computed
// here, inputs come from the argument, stdin or a file, and bad input exits 2
// with "softscope: <message>" on stderr.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refSoftmax, refEntropy } from './support/reference.js';
import { runCli } from './support/run-cli.js';


const run = runCli;

let dir;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'softscope-cli-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The shape every --json result has, and nothing else.
function expectShape(j) {
  expect(Object.keys(j).sort()).toEqual(['build', 'impl', 'kernel', 'metrics', 'output']);
  expect(['simd', 'scalar']).toContain(j.impl);
}

function expectSoftmaxResult(j, x) {
  expectShape(j);
  expect(j.kernel).toBe('softmax');
  const ref = refSoftmax(Float32Array.from(x));
  expect(j.output.length).toBe(x.length);
  j.output.forEach((v, i) => expect(Math.abs(v - ref[i]) / ref[i]).toBeLessThanOrEqual(2e-6));
  expect(Object.keys(j.metrics).sort()).toEqual(['entropy', 'max', 'sum', 'support']);
  expect(Math.abs(j.metrics.sum - 1)).toBeLessThanOrEqual(1e-6);
  expect(j.metrics.support).toBe(x.length);
  expect(Math.abs(j.metrics.entropy - refEntropy(ref))).toBeLessThanOrEqual(1e-6);
  expect(Math.abs(j.metrics.max - Math.max(...ref))).toBeLessThanOrEqual(2e-6);
}

describe.concurrent('softscope CLI', () => {
  it('list --json parses and holds softmax and the metric measures', async () => {
    const r = await run(['list', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    const names = j.kernels.map((k) => k.name);
    for (const n of ['softmax', 'entropy', 'max_prob', 'support', 'sum']) expect(names).toContain(n);
    // the header's SS_VERSION, which scripts/gen-registry.js holds package.json to
    expect(j.version).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    const m = JSON.parse((await run(['list', '--json', '--family', 'measure'])).out);
    expect(m.kernels.length).toBeGreaterThan(0);
    expect(m.kernels.every((k) => k.family === 'measure')).toBe(true);
  });

  it('list prints a table with every kernel', async () => {
    const r = await run(['list']);
    expect(r.code).toBe(0);
    const j = JSON.parse((await run(['list', '--json'])).out);
    for (const k of j.kernels) expect(r.out).toMatch(new RegExp(`^${k.name}\\s`, 'm'));
  });

  it('normalize softmax --input [1,2,3] --json: shape, output and metrics', async () => {
    const r = await run(['normalize', 'softmax', '--input', '[1,2,3]', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expectSoftmaxResult(JSON.parse(r.out), [1, 2, 3]);
  });

  it('--input - reads stdin', async () => {
    const r = await run(['normalize', 'softmax', '--input', '-', '--json'], '[0.5, -1, 2, 2]\n');
    expect(r.code, r.err).toBe(0);
    expectSoftmaxResult(JSON.parse(r.out), [0.5, -1, 2, 2]);
  });

  it('--input @file reads a file (and a --json result can be fed back in)', async () => {
    const f = join(dir, 'logits.json');
    writeFileSync(f, '[3, 1, 4, 1, 5]');
    const r = await run(['normalize', 'softmax', '--input', `@${f}`, '--json']);
    expect(r.code, r.err).toBe(0);
    expectSoftmaxResult(JSON.parse(r.out), [3, 1, 4, 1, 5]);
    const g = join(dir, 'probs.json');
    writeFileSync(g, r.out);
    const h = await run(['measure', 'entropy', '--input', `@${g}`, '--json']);
    expect(h.code, h.err).toBe(0);
    expect(Math.abs(JSON.parse(h.out).output - JSON.parse(r.out).metrics.entropy)).toBeLessThanOrEqual(1e-6);
  });

  it('--impl scalar and --impl simd are reported back', async () => {
    for (const impl of ['scalar', 'simd']) {
      const r = await run(['normalize', 'softmax', '--input', '[1,2]', '--impl', impl, '--json']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out).impl).toBe(impl);
    }
  });

  it('a masked logit: support counts the non-zero entries, -Infinity accepted as input', async () => {
    const r = await run(['normalize', 'softmax', '--input', '[1, -Infinity, 2]', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.output[1]).toBe(0);
    expect(j.metrics.support).toBe(2);
  });

  it('log_softmax: output as log-probabilities, metrics of exp(output)', async () => {
    const r = await run(['normalize', 'log_softmax', '--input', '[1, 2, -Infinity]', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expectShape(j);
    expect(j.output[2]).toBe('-Infinity'); // non-finite numbers are strings in JSON
    const ref = refSoftmax(new Float32Array([1, 2]));
    expect(Math.abs(j.output[0] - Math.log(ref[0]))).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(j.metrics.sum - 1)).toBeLessThanOrEqual(1e-6);
    expect(j.metrics.support).toBe(2);
  });

  it('--param is passed through (softmax_temperature)', async () => {
    const r = await run(['normalize', 'softmax_temperature', '--input', '[1,2,3]', '--param', 'temperature=0.5', '--json']);
    expect(r.code, r.err).toBe(0);
    const ref = refSoftmax(new Float32Array([1, 2, 3]), 0.5);
    JSON.parse(r.out).output.forEach((v, i) => expect(Math.abs(v - ref[i]) / ref[i]).toBeLessThanOrEqual(4e-6));
  });

  it('measure with two inputs; Infinity is written as a string', async () => {
    const r = await run(['measure', 'kl_divergence', '--input', '[0.5,0.5]', '--input2', '[1,0]', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expectShape(j);
    expect(j.output).toBe('Infinity');
  });

  it('without --json: a readable table of x and y and the metrics', async () => {
    const r = await run(['normalize', 'softmax', '--input', '[1,2,3]']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/softmax \((simd|scalar)\), n = 3/);
    expect(r.out).toMatch(/^2\s+3\s+0\.665241$/m);
    expect(r.out).toMatch(/support 3/);
  });

  it.each([
    [['normalize', 'softmax', '--input', '[1, "NaN", 3]'], /^softscope: normalize softmax: --input contains NaN \(at index 1\)$/m],
    [['normalize', 'softmax', '--input', '[1, 2, Infinity]'], /--input contains \+Inf \(at index 2\)/],
    [['normalize', 'softmax', '--input', '[-Infinity]'], /--input is all -Inf/],
    [['normalize', 'softmax', '--input', '[]'], /--input is empty \(length 0\)/],
    [['normalize', 'softmax', '--input', '[1, x]'], /^softscope: --input: item 1 \("x"\) is not a number$/m],
    [['normalize', 'sofmax', '--input', '[1]'], /unknown kernel "sofmax"; known: .*softmax/],
    [['normalize', 'softmax_temperature', '--input', '[1]', '--param', 'temperature=-1'], /--param temperature = -1 is out of range \(0, /],
    [['normalize', 'softmax', '--input', '[1]', '--param', 'alpha=2'], /unknown parameter --param alpha/],
    [['normalize', 'softmax', '--input', `@/nonexistent/x.json`], /--input: cannot read \/nonexistent\/x\.json \(ENOENT\)/],
    [['normalize', 'softmax'], /--input is required/],
    [['normalize', 'softmax', '--input', '[1]', '--impl', 'avx'], /--impl must be auto, relaxed, simd or scalar/],
    [['measure', 'entropy', '--input', '[0.5, -0.5]'], /--input contains a negative value -0\.5 \(at index 1\)/],
    [['measure', 'kl_divergence', '--input', '[1]'], /--input2 is required/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['list', '--colour'], /unknown option --colour/],
    [[], /no command/],
  ])('bad input %j exits 2 with the message on stderr', async (args, re) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^softscope: /);
    expect(r.err).toMatch(re);
  });

  it('an internal error (here: a corrupt wasm module) exits 1, not 2', async () => {
    const bad = join(dir, 'bad.wasm');
    writeFileSync(bad, 'not wasm');
    const r = await run(['normalize', 'softmax', '--input', '[1]'], '', { SOFTSCOPE_WASM: bad });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^softscope: internal error: /);
  });

  it('SOFTSCOPE_WASM selects the module: the scalar build reports scalar under --impl auto', async () => {
    const scalar = fileURLToPath(new URL('../../wasm/dist/softscope-scalar.wasm', import.meta.url));
    const r = await run(['normalize', 'softmax', '--input', '[1,2,3]', '--json'], '', { SOFTSCOPE_WASM: scalar });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).impl).toBe('scalar');
  });

  it('--help lists every command and exits 0; <command> --help prints that command\'s options only', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const cmd of ['list', 'describe', 'normalize', 'measure', 'loss', 'sample', 'quantize', 'attend', 'optimize', 'sweep', 'figure', 'check', '--impl', '--json'])
      expect(r.out).toContain(cmd);
    const n = await run(['normalize', '--help']);
    expect(n.code).toBe(0);
    expect(n.out).toMatch(/^usage: softscope normalize <kernel> --input <x>/);
    for (const opt of ['--input', '--param', '--json']) expect(n.out).toContain(opt);
    for (const other of ['--n-max', '--normalizers', '--example', '--fn']) expect(n.out).not.toContain(other);
    expect((await run(['help', 'figure'])).out).toMatch(/^usage: softscope figure <view>/);
  });
});
