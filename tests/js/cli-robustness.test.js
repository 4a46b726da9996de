// The CLI under hostile input (issue 17): deeply nested JSON, results that
// are not finite, extreme parameters. Bad input exits 2 with one line naming
// the argument; a non-finite result returned with SS_OK (a kernel defect)
// exits 1 with one line; nothing prints NaN as a success. In-process
// (runInProcess), with one real process for the nesting case.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runInProcess } from '../../wasm/cli/main.js';
import { validInput, validParams, cliArgs, cliReadsInput } from './support/family-calls.js';
import { runCli } from './support/run-cli.js';

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
