// The quantization panel's pieces without a browser: the quant.* URL keys
// round-trip and malformed ones fall back field by field; the values of
// each source are what they claim (probability sources sum to 1); the
// histogram counts every value once; levels are the distinct outputs with
// their counts; fitParams keeps parameters valid for the input length; the
// softmax effect of a lossless quantizer is none, and post-softmax
// quantization that rounds mass to zero reports an unbounded KL.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parseHash, serializeState, defaultState, quantState, DEFAULT_QUANT } from '../../web/src/state/url.js';
import { quantSource, histogram, levels, fitParams, softmaxEffect } from '../../web/src/lib/quantView.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ impl: 'scalar' }); });

describe('quantization URL state', () => {
  it('round-trips quant.* keys and leaves them out at the defaults', () => {
    const s = { ...defaultState(), panel: 'quantization', quant: { source: 'weights', n: 256, seed: 4, scheme: 'vq', log: false } };
    const hash = serializeState(s);
    expect(hash).toContain('quant.scheme=vq');
    expect(parseHash(hash)).toEqual(s);
    expect(serializeState({ ...defaultState(), quant: { ...DEFAULT_QUANT } })).not.toContain('quant.');
    expect(quantState(defaultState())).toEqual(DEFAULT_QUANT);
  });

  it('a malformed quant key falls back to its default only', () => {
    const q = quantState(parseHash('#quant.source=bogus&quant.n=1000&quant.seed=-3&quant.scheme=Bad!&quant.log=1'));
    expect(q).toEqual({ ...DEFAULT_QUANT, log: true }); // n = 1000 is not a power of two
  });
});

describe('quantization view', () => {
  it('sources: weights are n values, attention and softmax are probability vectors', () => {
    const logits = [1, 0.5, -2, 3];
    for (const src of ['weights', 'attention', 'softmax']) {
      const x = quantSource(ss, src, 512, 3, logits);
      expect(x.length).toBe(src === 'softmax' ? 4 : 512);
      if (src !== 'weights') expect(x.reduce((a, v) => a + v, 0)).toBeCloseTo(1, 5);
    }
    expect(Array.from(quantSource(ss, 'weights', 64, 9, logits))).toEqual(Array.from(quantSource(ss, 'weights', 64, 9, logits)));
  });

  it('the histogram counts every value once; log bins leave out exact zeros', () => {
    const x = Float32Array.from([0, 0, 1e-4, 1e-3, 0.5, 0.2, 0.2999]);
    const h = histogram(x, 8);
    expect(h.counts.reduce((a, c) => a + c, 0)).toBe(7);
    const hl = histogram(x, 8, true);
    expect(hl.counts.reduce((a, c) => a + c, 0) + hl.zeros).toBe(7);
    expect(hl.zeros).toBe(2);
    expect(hl.lo).toBeCloseTo(-4, 6);
  });

  it('levels are the distinct outputs with their counts', () => {
    const x = quantSource(ss, 'weights', 256, 2, []);
    const y = ss.quantize('uniform', x, { bits: 3 }).output;
    const lv = levels(y);
    expect(lv.length).toBe(new Set(y).size);
    expect(lv.length).toBeLessThanOrEqual(7);
    expect(lv.reduce((a, l) => a + l.count, 0)).toBe(256);
    for (let i = 1; i < lv.length; i++) expect(lv[i].value).toBeGreaterThan(lv[i - 1].value);
  });

  it('fitParams keeps a group dividing n and a codebook within n / dim', () => {
    const uni = ss.kernel('uniform', 'quantizer'), vq = ss.kernel('vq', 'quantizer');
    expect(fitParams(uni, { group: 32, bits: 12 }, 100)).toEqual({ group: 0, bits: 8 });
    expect(fitParams(uni, { group: 25 }, 100)).toEqual({ group: 25 });
    expect(fitParams(vq, { codebook: 64, dim: 3 }, 40)).toEqual({ codebook: 40, dim: 1 });
  });

  it('softmax effect: fp8 of modest logits changes little, 2-bit post-softmax rounds mass to 0', () => {
    const logits = [2, 1, 0.5, -1, 0, 0.25];
    const pre = softmaxEffect(ss, 'fp8_e4m3', {}, null, false, logits);
    expect(pre.where).toBe('pre');
    expect(pre.kl).toBeGreaterThanOrEqual(0);
    expect(pre.kl).toBeLessThan(1e-2);
    expect(pre.argmaxKept).toBe(true);
    const p = quantSource(ss, 'attention', 256, 1, []);
    const post = softmaxEffect(ss, 'uniform', { bits: 2 }, p, true, logits);
    expect(post.where).toBe('post');
    expect(post.kl).toBeNull(); // most entries round to 0: KL(before || after) is infinite
    expect(post.after.reduce((a, v) => a + v, 0)).toBeCloseTo(1, 5);
  });
});
