// The CLI under hostile input (issue 17): deeply nested JSON, results that
// are not finite, extreme parameters. Bad input exits 2 with one line naming
// the argument; a non-finite result returned with SS_OK (a kernel defect)
// exits 1 with one line; nothing prints NaN as a success. In-process
// (runInProcess), with one real process for the nesting case.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runInProcess } from '../../wasm/cli/main.js';
import { validInput, validParams, cliArgs, cliReadsInput } from './support/family-calls.js';
import { runCli, runCliWithHeap } from './support/run-cli.js';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });
const softscope = () => ss;

function expectOneLine(r, code, re) {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(re);
}

describe('deeply nested input', () => {
  const deep = (d) => '['.repeat(d) + ']'.repeat(d);

  it('5,000 (and 100,000) levels deep: exit 2 with one line naming the flag, for every command that reads a vector', async () => {
    for (const family of ss.enums.family) {
      const k = ss.kernels(family).find(cliReadsInput);
      if (!k) continue;
      const input = validInput(k, 8), params = validParams(k, 8);
      for (const d of [5000, 100000]) {
        const args = cliArgs(k, input, params);
        const at = args.indexOf('--input');
        args[at + 1] = k.family === 'attention' ? `{"q": ${deep(d)}}` : deep(d);
        expectOneLine(await runInProcess(args, { softscope }), 2, /--input/);
        if (k.input === 'probs_pair') {
          const b = cliArgs(k, input, params);
          b[b.indexOf('--input2') + 1] = deep(d);
          expectOneLine(await runInProcess(b, { softscope }), 2, /--input2/);
        }
      }
    }
  });

  it('as a real process, from a file: exit 2, one line', async () => {
    const k = ss.kernels('normalizer')[0];
    const r = await runCli([...cliArgs(k, validInput(k, 4), {}).slice(0, 2), '--input', '-'], deep(5000));
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^softscope: --input: /);
  });
});

describe('non-finite results are never printed as a success', () => {
  // A stand-in instance whose kernels return NaN with SS_OK, as a kernel
  // defect would: every other method is the real one's.
  function poisoned(what) {
    return new Proxy(ss, {
      get(t, name) {
        const v = Reflect.get(t, name, t);
        if (typeof v !== 'function') return v;
        if (name !== what) return v.bind(t);
        return (...a) => {
          const r = v.apply(t, a);
          const spoil = (arr) => { if (arr && arr.length) arr[0] = NaN; };
          if (r instanceof Float32Array) spoil(r);
          else if (typeof r === 'number') return NaN;
          else if (r && typeof r === 'object') for (const f of ['probs', 'output', 'grad']) if (ArrayBuffer.isView(r[f])) spoil(r[f]);
          return r;
        };
      },
    });
  }
  const METHOD = { normalizer: 'normalize', measure: 'measure', loss: 'loss', sampler: 'sample', quantizer: 'quantize', attention: 'attend' };

  it.each(Object.keys(METHOD))('%s: a NaN from the kernel exits 1 with one line naming the output, nothing on stdout', async (family) => {
    for (const k of ss.kernels(family)) {
      const args = cliArgs(k, validInput(k, 32), validParams(k, 32));
      for (const json of [false, true]) {
        const r = await runInProcess(json ? [...args, '--json'] : args, { softscope: () => poisoned(METHOD[family]) });
        expectOneLine(r, 1, /(output|probs|grad)\[0\] = NaN: the kernel returned a non-finite value with SS_OK/);
      }
    }
  });

  it('sample --param temperature=1e-300 --json: a finite result or one line with exit 1 or 2, never "NaN" (issue 17)', async () => {
    for (const k of ss.kernels('sampler').filter((e) => e.params.some((p) => p.name === 'temperature'))) {
      for (const impl of ['simd', 'scalar']) {
        const inst = await createSoftscope({ impl });
        for (const n of [1, 4, 17]) {
          const args = [...cliArgs(k, validInput(k, n, n), { ...validParams(k, n), temperature: 1e-300 }), '--json'];
          const r = await runInProcess(args, { softscope: () => inst });
          if (r.code === 0) {
            expect(r.stdout).not.toMatch(/NaN|Infinity/);
            expect(r.stderr).toBe('');
          } else {
            expect([1, 2], `${k.name} ${impl} n=${n}: ${r.stderr}`).toContain(r.code);
            expect(r.stdout).toBe('');
            expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
          }
        }
      }
    }
  });

  it('all-zero weights: entropy is null, not NaN', async () => {
    const k = ss.kernels('normalizer').find((e) => e.output === 'weights' && !e.params.length);
    const r = await runInProcess(['normalize', k.name, '--input', '[0, 0, 0]', '--json'], { softscope });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.output).toEqual([0, 0, 0]);
    expect(j.metrics.entropy).toBeNull();
    expect(r.stdout).not.toMatch(/NaN/);
  });
});

// Issue 25, "Inputs and interfaces": names the user writes are checked as
// own keys, what the user wrote is quoted with its control characters
// escaped, and a call's memory is bounded by what it prints.
describe('issue 25: inherited names, control characters, memory', () => {
  const INHERITED = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf'];

  it('--param __proto__=1 (and every other inherited name) exits 2 like any unknown name, in every command that takes --param', async () => {
    const withParam = (k) => cliArgs(k, validInput(k, 8), validParams(k, 8));
    const lines = [];
    for (const family of ss.enums.family) {
      const k = ss.kernels(family)[0];
      if (k) lines.push(withParam(k));
    }
    lines.push(['sweep', 'dispersion', '--normalizers', 'softmax', '--n-max', '64']);
    for (const base of lines) {
      for (const name of INHERITED) {
        const r = await runInProcess([...base, '--param', `${name}=1`], { softscope });
        expectOneLine(r, 2, new RegExp(name));
        if (base[0] === 'sweep') expectOneLine(await runInProcess([...base, '--param', `softmax.${name}=1`], { softscope }), 2, new RegExp(name));
      }
    }
  });

  it('an option named --__proto__ or --constructor is an unknown option (exit 2), not "given twice" or ignored', async () => {
    for (const name of INHERITED)
      for (const form of [[`--${name}`, '1'], [`--${name}=1`]])
        expectOneLine(await runInProcess(['normalize', 'softmax', '--input', '1', ...form], { softscope }), 2,
          new RegExp(`unknown option --${name} for normalize`));
  });

  it('--state __proto__=1 / constructor=1 exits 2 naming the key; attend reads only own keys of its JSON', async () => {
    for (const name of INHERITED)
      expectOneLine(await runInProcess(['figure', 'normalizers', '--state', `${name}=1`], { softscope }), 2, new RegExp(`--state: ${name}=1`));
    const rows = '[[1,0],[0,1]]';
    expectOneLine(await runInProcess(['attend', 'sdpa', '--input', `{"__proto__": {"q": ${rows}, "k": ${rows}, "v": ${rows}}}`], { softscope }), 2,
      /--input: "q" must be a non-empty array/);
  });

  // Every byte a terminal acts on: C0 (ESC, BEL, CR, LF, BS), DEL, C1 (CSI U+009B, OSC U+009D), bidi overrides.
  const HOSTILE = ['\x1b[31mred\x1b[0m', '\x1b]0;title\x07', '\x9b2J', '\x9d0;t\x9c', 'a\rb\bc\x7f', 'x\ny', '\u202eevil'];
  const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it('a kernel name or a --state value with terminal control sequences is shown escaped (\\x1b), on one line, exit 2', async () => {
    for (const bad of HOSTILE) {
      for (const argv of [['normalize', `soft${bad}`, '--input', '1'], ['figure', 'normalizers', '--state', `kernels=${bad}`],
        ['figure', 'normalizers', '--state', `${bad}=1`], [`cmd${bad}`], ['normalize', 'softmax', `--in${bad}put`, '1'],
        ['normalize', 'softmax', '--input', `[1, "${bad}"]`], ['optimize', 'adam', '--fn', bad]]) {
        const r = await runInProcess(argv, { softscope });
        expect(r.code, `${JSON.stringify(argv)}: ${r.stderr}`).toBe(2);
        expect(r.stderr.endsWith('\n')).toBe(true);
        const text = r.stderr.slice(0, -1);
        expect(text, JSON.stringify(argv)).not.toMatch(RAW_CONTROL);
        expect(text.split('\n'), JSON.stringify(argv)).toHaveLength(1);
      }
    }
    const r = await runInProcess(['normalize', '\x1b[2Jx', '--input', '1'], { softscope });
    expect(r.stderr).toContain('"\\x1b[2Jx"');
    expect((await runInProcess(['normalize', '\x9bx', '--input', '1'], { softscope })).stderr).toContain('\\x9bx');
    expect((await runInProcess(['normalize', '\u202ex', '--input', '1'], { softscope })).stderr).toContain('\\u202ex');
  });

  it('optimize --steps 1e7 --json exits 2 at once with one line naming --every (it would print 10^7 points)', async () => {
    const r = await runInProcess(['optimize', 'adam', '--steps', '1e7', '--json'], { softscope });
    expectOneLine(r, 2, /--json with --steps 1e7 prints 10000002 points \(at most 262144\).*MiB.*add --every 39 \(or more\)/);
    const c = await runInProcess(['optimize', 'adam', '--steps', '1e6', '--compare', 'sgd,lion', '--json'], { softscope });
    expectOneLine(c, 2, /prints 3000006 points.*add --every 12 \(or more\)/);
  });

  it('sample --param draws=2^24 --json exits 2 at once naming the draws that fit (before: 1 GB and 34 s of JSON)', async () => {
    expectOneLine(await runInProcess(['sample', 'categorical', '--input', '[1, 2]', '--param', 'draws=16777216', '--json'], { softscope }), 2,
      /^softscope: --json with --param draws=16777216 prints 16777218 numbers \(at most 2097152\).*MiB.*lower draws to 2097150 or less, or leave out --json/);
    // relaxed draws print argmax and the n values of each draw
    expectOneLine(await runInProcess(['sample', 'gumbel_softmax', '--input', '[1, 2, 3]', '--param', 'draws=1000000', '--json'], { softscope }), 2,
      /prints 4000003 numbers.*lower draws to 524287 or less/);
    // the table needs no such bound
    const r = await runInProcess(['sample', 'categorical', '--input', '[1, 2]', '--param', 'draws=16777216'], { softscope });
    expect(r.code, r.stderr).toBe(0);
  }, 30000);

  it('optimize --every K: the points of steps 0, K, 2K, ... and the last of the full run, bit for bit; the metrics over every step', async () => {
    const base = ['optimize', 'adam', '--fn', 'rosenbrock', '--steps', '1003', '--noise', '0.3', '--seed', '7', '--param', 'lr=0.01', '--json'];
    const full = JSON.parse((await runInProcess(base, { softscope })).stdout);
    expect(full.output).toHaveLength(1004);
    expect(full.every).toBeUndefined();
    for (const every of [1, 7, 1003, 5000]) {
      const r = await runInProcess([...base, '--every', String(every)], { softscope });
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      const steps = [];
      for (let s = 0; s <= 1003; s += every) steps.push(s);
      if (steps[steps.length - 1] !== 1003) steps.push(1003);
      expect(j.output).toEqual(steps.map((s) => full.output[s]));
      expect(j.metrics).toEqual(full.metrics);
      if (every > 1) expect(j.every).toBe(every);
    }
    // the API's form: every, and a run past one slice (2^16 steps) equal to its first steps run alone
    const long = ss.trajectory({ optimizer: 'sgd', fn: 'rosenbrock', steps: 70000, noise: 0.1, seed: 3, every: 10000 });
    const path = ss.trajectory({ optimizer: 'sgd', fn: 'rosenbrock', steps: 70000, noise: 0.1, seed: 3 }).output;
    expect(long.output).toEqual([0, 10000, 20000, 30000, 40000, 50000, 60000, 70000].map((s) => path[s]));
    expect(() => ss.trajectory({ optimizer: 'sgd', every: 0 })).toThrow(/options\.every = number 0 must be an integer in \[1, 10000000\]/);
  });

  it('optimize --steps 2e6 (the table) runs in bounded memory: a process with a 128 MB JS heap prints it', async () => {
    // (kept whole, the path of 2e6 steps took 600 MB; 1e7 steps 2.8 GB)
    const r = await runCliWithHeap(['optimize', 'adam', '--steps', '2e6'], 128);
    expect(r.code, r.err.slice(0, 300)).toBe(0);
    expect(r.out).toMatch(/^adam \(\w+\) on rosenbrock, 2000000 steps, defaults; one step in 20 shown\n/);
    expect(r.out).toMatch(/\n1999980 +[-\d.e]+ +[-\d.e]+ +[-\d.e]+\n2000000 +/);
  }, 60000);

  it('sample at temperature 1e-39 and 1e-300 (which C and JS accept): exit 0, kept_mass as softmax(x / t) in float64', async () => {
    // x = [1e-38, 0, -1] (1e-38 is a float32 subnormal): at t = 1e-39 the
    // kept entry 0 has mass 1 / (1 + e^(-x0 / t) + e^(-(x0 + 1) / t)).
    const x0 = Math.fround(1e-38);
    for (const [t, want] of [[1e-39, 1 / (1 + Math.exp(-x0 / 1e-39))], [1e-300, 1]]) {
      for (const impl of ['simd', 'scalar']) {
        const inst = await createSoftscope({ impl });
        const r = await runInProcess(['sample', 'top_k', '--input', '[1e-38, 0, -1]', '--param', 'k=1', '--param', `temperature=${t}`, '--json'],
          { softscope: () => inst });
        expect(r.code, r.stderr).toBe(0);
        const j = JSON.parse(r.stdout);
        expect(j.output).toEqual([0]);
        expect(Math.abs(j.metrics.kept_mass - want), `t=${t} ${impl}: ${j.metrics.kept_mass} vs ${want}`).toBeLessThanOrEqual(1e-15);
      }
    }
    for (const k of ss.kernels('sampler').filter((e) => e.input === 'logits' && e.params.some((p) => p.name === 'temperature'))) {
      for (const t of ['1e-39', '1e-300']) {
        const args = cliArgs(k, { x: Float32Array.of(3, 2, 1, -2), x2: null }, { ...validParams(k, 4), temperature: Number(t) });
        const r = await runInProcess([...args, '--json'], { softscope });
        expect(r.code, `${k.name} t=${t}: ${r.stderr}`).toBe(0);
        expect(JSON.parse(r.stdout).metrics.kept_mass).toBe(1); // the max alone holds the mass
      }
    }
  });

  it('figure --out x.png past 2^25 pixels (drawn at 2x) exits 2 naming --width and --height, before drawing', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'ss-issue25-')), 'never.png');
    const t0 = Date.now();
    const r = await runInProcess(['figure', 'normalizers', '--width', '8000', '--height', '8000', '--out', out], { softscope });
    expectOneLine(r, 2, /^softscope: --width 8000 --height 8000: the PNG \(drawn at 2x: 16000 x 16000\) would be 244 M pixels, more than the 32 M a PNG may have/);
    expect(Date.now() - t0).toBeLessThan(20000);
    expect(existsSync(out)).toBe(false);
    // 2048 x 4096 at 2x is exactly 2^25: allowed; one more row is not
    const { pngPixels, MAX_PNG_PIXELS } = await import('../../wasm/figures/png.js');
    expect(pngPixels(2048, 4096)).toBe(MAX_PNG_PIXELS);
    expect(pngPixels(2048, 4097)).toBeGreaterThan(MAX_PNG_PIXELS);
  });
});
