// The attention panel's pieces without a browser: the attn.* URL keys
// round-trip and malformed ones fall back field by field; the softmax panel
// is the reference (TV 0, output error 0) and a sparse normalizer is at a
// positive distance; heat-map pixels are white exactly at zero weights;
// post-softmax quantized rows still sum to 1; mean TV of disjoint one-hot
// rows is 1.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parseHash, serializeState, defaultState, attnState, DEFAULT_ATTN } from '../../web/src/state/url.js';
import { computePanels, heatPixels, quantizeRows, meanTv } from '../../web/src/lib/attentionView.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

describe('attention URL state', () => {
  it('round-trips attn.* keys and leaves defaults out', () => {
    const attn = { example: 'random', n: 128, seed: 7, norms: ['sparsemax', 'ssmax'], linear: ['performer'], causal: true, scale: 0.5, quant: 'pow2', bits: 3 };
    const s = { ...defaultState(), panel: 'attention', attn };
    const hash = serializeState(s);
    expect(hash).toContain('attn.linear=performer');
    expect(parseHash(hash)).toEqual(s);
    expect(serializeState({ ...defaultState(), attn: attnState(defaultState()) })).not.toContain('attn.');
    expect(attnState(defaultState())).toEqual({ ...DEFAULT_ATTN, norms: [...DEFAULT_ATTN.norms], linear: [] });
  });

  it('malformed values fall back field by field', () => {
    const a = attnState(parseHash('#attn.example=poem&attn.n=9999&attn.scale=-1&attn.quant=fp4&attn.linear=cosformer,nope&attn.bits=3'));
    expect(a.example).toBe(DEFAULT_ATTN.example);
    expect(a.n).toBe(DEFAULT_ATTN.n);
    expect(a.scale).toBe(1);
    expect(a.quant).toBe('none');
    expect(a.linear).toEqual(['cosformer']);
    expect(a.bits).toBe(3);
  });
});

describe('attention view', () => {
  it('softmax is the reference; sparsemax is sparse and at a positive distance', () => {
    const a = { ...attnState(defaultState()), norms: ['softmax', 'sparsemax'], linear: ['galerkin'] };
    const v = computePanels(ss, a, {});
    const [soft, sparse, gal] = v.panels;
    expect(soft.tv).toBe(0);
    expect(soft.outErr).toBe(0);
    expect(sparse.tv).toBeGreaterThan(0);
    expect(Array.from(sparse.A).filter((x) => x === 0).length).toBeGreaterThan(0);
    expect(gal.kind).toBe('linear');
    const px = heatPixels(sparse.A, v.n, v.m);
    for (let t = 0; t < v.n * v.m; t++) {
      const white = px[4 * t] === 255 && px[4 * t + 1] === 255 && px[4 * t + 2] === 255;
      expect(white).toBe(sparse.A[t] === 0);
    }
  });

  it('quantized rows sum to 1; disjoint one-hot rows are at TV distance 1', () => {
    const v = computePanels(ss, { ...attnState(defaultState()), norms: ['softmax'] }, {});
    const q = quantizeRows(ss, v.panels[0].A, v.n, v.m, 'pow2', 2);
    for (let i = 0; i < v.n; i++) expect(q.subarray(i * v.m, (i + 1) * v.m).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 5);
    expect(q.filter((x) => x === 0).length).toBeGreaterThan(0);
    expect(meanTv(Float32Array.from([1, 0, 0, 1]), Float32Array.from([0, 1, 1, 0]), 2, 2)).toBe(1);
  });
});
