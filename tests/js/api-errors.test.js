// Bad input: each case throws an Error whose message names the function, the
// kernel and the argument, with the C status it stands for (.status, .code).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope, STATUS, SoftscopeError } from 'softscope';
import { fitParams } from './support/reference.js';
import { thrown } from './support/thrown.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

// Run fn, return the error it throws (fails the test if it does not throw).
const x3 = () => new Float32Array([1, 2, 3]);

describe('input types', () => {
  it.each([
    ['a plain Array', [1, 2, 3], /x must be a Float32Array \(got Array\); use Float32Array\.from\(x\)/],
    ['an Int32Array', new Int32Array([1, 2, 3]), /x must be a Float32Array \(got Int32Array\)/],
    ['a string', '1,2,3', /x must be a Float32Array \(got string "1,2,3"\)/],
    ['undefined', undefined, /x must be a Float32Array \(got undefined\)/],
  ])('normalize rejects %s with a TypeError naming x', (_, bad, re) => {
    const e = thrown(() => ss.normalize('softmax', bad));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^softscope\.normalize\("softmax"\): /);
    expect(e.message).toMatch(re);
    expect(e.code).toBe('SS_ERR_TYPE');
    expect(e.argument).toBe('x');
  });

  it('names y and g in normalizeBackward, p in measure', () => {
    expect(thrown(() => ss.normalizeBackward('softmax', x3(), [1, 2, 3], x3())).message).toMatch(/ y must be a Float32Array/);
    expect(thrown(() => ss.normalizeBackward('softmax', x3(), x3(), 'g')).message).toMatch(/ g must be a Float32Array/);
    expect(thrown(() => ss.measure('entropy', [0.5, 0.5])).message).toMatch(/^softscope\.measure\("entropy"\): p must be a Float32Array/);
  });

  it('params must be an object', () => {
    const e = thrown(() => ss.normalize('softmax', x3(), 5));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/params must be an object/);
  });
});

describe('data rules (C statuses)', () => {
  const cases = [
    ['NaN', [1, 2, NaN, 4], 'SS_ERR_NAN', /x contains NaN \(at index 2\)/, 2],
    ['NaN first of several', [NaN, 1, NaN], 'SS_ERR_NAN', /x contains NaN \(at index 0\)/, 0],
    ['+Inf', [0, Infinity, 1], 'SS_ERR_POS_INF', /x contains \+Inf \(at index 1\)/, 1],
    ['all -Inf', [-Infinity, -Infinity], 'SS_ERR_ALL_MASKED', /x is all -Inf \(every entry masked\)/, undefined],
    ['empty', [], 'SS_ERR_EMPTY', /x is empty \(length 0\)/, undefined],
  ];
  it.each(cases)('%s -> %s, message names x', (_, values, code, re, index) => {
    for (const k of ss.kernels('normalizer')) {
      const e = thrown(() => ss.normalize(k.name, new Float32Array(values), fitParams(k, values.length)));
      expect(e).toBeInstanceOf(SoftscopeError);
      expect(e.message, k.name).toMatch(new RegExp(`^softscope\\.normalize\\("${k.name}"\\): `));
      expect(e.message, k.name).toMatch(re);
      expect(e.code, k.name).toBe(code);
      expect(e.status, k.name).toBe(STATUS[code]);
      expect(e.argument, k.name).toBe('x');
      expect(e.index, k.name).toBe(index);
    }
  });

  it('a Float64Array value that overflows float32 is an error naming its index, either sign (-1e39 is not a mask)', () => {
    for (const [v, i] of [[1e39, 1], [-1e39, 0]]) {
      const x = new Float64Array([1, 2]);
      x[i] = v;
      const e = thrown(() => ss.normalize('softmax', x));
      expect(e.code).toBe('SS_ERR_NONFINITE');
      expect(e.argument).toBe('x');
      expect(e.index).toBe(i);
      expect(e.message).toMatch(new RegExp(`x\\[${i}\\] = ${v < 0 ? '-' : ''}1e\\+39 overflows float32`));
    }
    // -Infinity itself stays a masked logit
    expect(ss.normalize('softmax', new Float64Array([1, -Infinity]))[1]).toBe(0);
  });

  it('n > maxN is rejected before any copy, naming x', () => {
    // A length-only stand-in: the check must happen before the data is read.
    const big = new Float32Array(ss.maxN + 1);
    const e = thrown(() => ss.normalize('softmax', big));
    expect(e.code).toBe('SS_ERR_TOO_LARGE');
    expect(e.message).toMatch(`x has length ${ss.maxN + 1} > maxN (${ss.maxN})`);
  });

  it('normalizeBackward: NaN in g is reported on g, with its index', () => {
    const e = thrown(() => ss.normalizeBackward('softmax', x3(), x3(), new Float32Array([0, 0, NaN])));
    expect(e.code).toBe('SS_ERR_NAN');
    expect(e.message).toMatch(/g contains NaN \(at index 2\)/);
    const f = thrown(() => ss.normalizeBackward('softmax', x3(), x3(), new Float32Array([0, -Infinity, 0])));
    expect(f.code).toBe('SS_ERR_NONFINITE');
    expect(f.message).toMatch(/g contains -Inf \(at index 1\)/);
  });

  it('measure: a negative probability is a domain error naming p and the index', () => {
    const e = thrown(() => ss.measure('entropy', new Float32Array([0.5, 0.7, -0.2])));
    expect(e.code).toBe('SS_ERR_DOMAIN');
    expect(e.message).toMatch(/^softscope\.measure\("entropy"\): p contains a negative value -0\.2\d* \(at index 2\)/);
  });

  it('measure: q is required for two-input measures, must match p, and is refused by one-input ones', () => {
    const p = new Float32Array([0.5, 0.5]);
    expect(thrown(() => ss.measure('kl_divergence', p)).message).toMatch(/q is required/);
    const e = thrown(() => ss.measure('kl_divergence', p, new Float32Array([1, 0, 0])));
    expect(e.code).toBe('SS_ERR_LENGTH');
    expect(e.message).toMatch(/q has length 3 but p has length 2/);
    expect(thrown(() => ss.measure('entropy', p, p)).message).toMatch(/q must be omitted/);
  });

  it('measureBackward: g must be a finite number', () => {
    const p = new Float32Array([0.5, 0.5]);
    expect(thrown(() => ss.measureBackward('entropy', p, '1')).message).toMatch(/g must be a number/);
    const e = thrown(() => ss.measureBackward('entropy', p, Infinity));
    expect(e.code).toBe('SS_ERR_NONFINITE');
    expect(e.message).toMatch(/g = Infinity must be finite/);
  });
});

describe('kernels and params', () => {
  it('unknown kernel: names it and lists the known ones of the family', () => {
    const e = thrown(() => ss.normalize('softmaxx', x3()));
    expect(e.code).toBe('SS_ERR_UNKNOWN_KERNEL');
    expect(e.message).toMatch(/^softscope\.normalize: unknown kernel "softmaxx"; known: /);
    for (const k of ss.kernels('normalizer')) expect(e.message).toContain(k.name);
    for (const k of ss.kernels('measure')) expect(e.message.split('known: ')[1].split(', ')).not.toContain(k.name);
  });

  it('a kernel of another family says which family it is', () => {
    const e = thrown(() => ss.normalize('entropy', x3()));
    expect(e.code).toBe('SS_ERR_FAMILY');
    expect(e.message).toMatch(/"entropy" is a measure, not a normalizer/);
  });

  it('unknown param: names it and lists the valid ones', () => {
    const e = thrown(() => ss.normalize('softmax_temperature', x3(), { temprature: 2 }));
    expect(e.message).toMatch(/unknown parameter params\.temprature; valid: temperature/);
    expect(e.argument).toBe('params.temprature');
    expect(thrown(() => ss.normalize('softmax', x3(), { temperature: 2 })).message)
      .toMatch(/unknown parameter params\.temperature; "softmax" takes no parameters/);
  });

  it.each([
    [-1, /params\.temperature = -1 is out of range \(0, \d+\]/],
    [0, /params\.temperature = 0 is out of range \(0, \d+\]/],
    [1e9, /params\.temperature = 1000000000 is out of range/],
    [NaN, /params\.temperature = NaN is not finite/],
    [Infinity, /params\.temperature = Infinity is not finite/],
    ['2', /params\.temperature = string "2" is not a number/],
  ])('out-of-range / non-finite temperature %s', (v, re) => {
    const e = thrown(() => ss.normalize('softmax_temperature', x3(), { temperature: v }));
    expect(e.message).toMatch(/^softscope\.normalize\("softmax_temperature"\): /);
    expect(e.message).toMatch(re);
    expect(e.code).toBe('SS_ERR_PARAM_RANGE');
    expect(e.status).toBe(STATUS.SS_ERR_PARAM_RANGE);
  });

  it('the range in the message is the registry one', () => {
    const p = ss.kernel('softmax_temperature').params[0];
    const e = thrown(() => ss.normalize('softmax_temperature', x3(), { temperature: -1 }));
    expect(e.message).toContain(`${p.min_open ? '(' : '['}${p.min}, ${p.max}${p.max_open ? ')' : ']'}`);
  });

  it('length mismatch in normalizeBackward names the argument and both lengths', () => {
    const e = thrown(() => ss.normalizeBackward('softmax', x3(), new Float32Array(2), x3()));
    expect(e.code).toBe('SS_ERR_LENGTH');
    expect(e.message).toMatch(/^softscope\.normalizeBackward\("softmax"\): y has length 2 but x has length 3/);
    const f = thrown(() => ss.normalizeBackward('softmax', x3(), x3(), new Float32Array(4)));
    expect(f.message).toMatch(/g has length 4 but x has length 3/);
  });

  it('a kernel without backward says so', () => {
    const k = ss.kernels('measure').find((m) => !m.has_backward && m.input === 'probs');
    const e = thrown(() => ss.measureBackward(k.name, new Float32Array([0.5, 0.5])));
    expect(e.code).toBe('SS_ERR_NO_BACKWARD');
    expect(e.message).toContain(`"${k.name}" has no backward pass`);
  });

  it('an error leaves the instance usable', () => {
    thrown(() => ss.normalize('softmax', new Float32Array([NaN])));
    const y = ss.normalize('softmax', new Float32Array([0, 0]));
    expect(Array.from(y)).toEqual([0.5, 0.5]);
  });
});
