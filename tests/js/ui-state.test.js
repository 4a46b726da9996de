// @vitest-environment happy-dom
// The playground's URL state: what is serialized comes back identical, and a
// malformed hash gives defaults (field by field) without throwing.
import { describe, it, expect, vi, afterEach } from 'vitest';
import { parseHash, serializeState, defaultState, createHashWriter, DEFAULT_N } from '../../web/src/state/url.js';
import { makePreset } from '../../web/src/presets.js';

describe('URL state', () => {
  it('round-trips a full state', () => {
    const s = {
      panel: 'normalizers',
      preset: 'custom',
      seed: 7,
      logits: [1.2, -0.5, 0, 3.125, -7.999, 1e-3],
      normalizers: ['softmax', 'softmax_temperature', 'log_softmax'],
      params: { temperature: 0.7, alpha: 1.5 },
      dispersion: defaultState().dispersion,
    };
    const hash = serializeState(s);
    expect(parseHash('#' + hash)).toEqual(s);
    expect(parseHash(hash)).toEqual(s); // a leading '#' is optional
    // The serialized form is stable: serializing the parsed state gives the same string.
    expect(serializeState(parseHash(hash))).toBe(hash);
  });

  it('round-trips the default state and an empty normalizer list', () => {
    const d = defaultState();
    expect(parseHash(serializeState(d))).toEqual(d);
    const none = { ...d, normalizers: [] };
    expect(parseHash(serializeState(none)).normalizers).toEqual([]);
  });

  it('writes readable logits (commas unescaped) and parameters by registry name', () => {
    const hash = serializeState({ ...defaultState(), logits: [1, -2.5], params: { temperature: 0.5 } });
    expect(hash).toContain('logits=1,-2.5');
    expect(hash).toContain('temperature=0.5');
  });

  it('gives the defaults for an empty or garbage hash, without throwing', () => {
    const d = defaultState();
    for (const h of ['', '#', '#%%%', '#&&&', '#=', '#logits', '#☃=☃', '#__proto__=1', undefined, null]) {
      expect(parseHash(h)).toEqual(d);
    }
  });

  it('rejects malformed fields one by one and keeps the good ones', () => {
    const d = defaultState();
    // Non-numeric, non-finite, empty entries, too few, too many, out of editor range.
    for (const logits of ['1,abc,2', '1,NaN', '1,Infinity', '1,,2', '3', Array(65).fill(1).join(','), '1,9']) {
      const s = parseHash(`#logits=${logits}&seed=3&temperature=0.25`);
      expect(s.logits).toEqual(makePreset(d.preset, DEFAULT_N, 3));
      expect(s.seed).toBe(3);
      expect(s.params).toEqual({ temperature: 0.25 });
    }
    const s = parseHash('#panel=nope&preset=nope&seed=-4&temperature=hot&normalizers=softmax,Bad-Name,,softmax&n=9999');
    expect(s.panel).toBe(d.panel);
    expect(s.preset).toBe(d.preset);
    expect(s.seed).toBe(d.seed);
    expect(s.params).toEqual({});
    expect(s.normalizers).toEqual(['softmax']);
    expect(s.logits).toHaveLength(DEFAULT_N);
  });

  it('regenerates the preset from n and seed when logits are absent', () => {
    const s = parseHash('#preset=two_modes&n=5&seed=9');
    expect(s.logits).toEqual(makePreset('two_modes', 5, 9));
    // "custom" without logits has nothing to regenerate: back to the default preset.
    expect(parseHash('#preset=custom&n=4').preset).toBe(defaultState().preset);
  });

  describe('hash writer', () => {
    afterEach(() => vi.useRealTimers());
    it('uses replaceState, throttled, and the last state always lands', () => {
      vi.useFakeTimers();
      const calls = [];
      const win = { location: { hash: '' }, history: { replaceState: (_s, _t, h) => { calls.push(h); win.location.hash = h; } } };
      const w = createHashWriter(200, win);
      const base = defaultState();
      for (let i = 0; i < 50; i++) w.write({ ...base, seed: i });
      expect(calls).toHaveLength(0);
      vi.advanceTimersByTime(250);
      expect(calls).toHaveLength(1);
      expect(parseHash(calls[0]).seed).toBe(49);
      w.write({ ...base, seed: 49 }); // same hash: no call
      vi.advanceTimersByTime(250);
      expect(calls).toHaveLength(1);
    });
  });
});
