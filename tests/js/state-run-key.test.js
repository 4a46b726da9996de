// The run key (state/schema.js runKey): the state without the schema's
// display fields. One rule decides whether a new state is the same run
// (taken in place) or a new one, for the playground's runner, its worker and
// the steppers' update(): a change of a display field keeps the key, any
// other change gives another key. Checked on the views' real schemas.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { defaults, runKey, toHash } from '../../wasm/state/schema.js';
import { VIEWS } from '../../wasm/views/index.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
const V = (id) => VIEWS.find((v) => v.id === id);

describe('runKey', () => {
  it('every view: a display field changed keeps the key; any other field changed changes it', () => {
    for (const v of VIEWS) {
      const d = defaults(v.schema, ss);
      const key = runKey(v.schema, d);
      for (const f of v.schema.fields) {
        const other = runKey(v.schema, { ...d, [f.key]: { changed: f.key } });
        if (f.display) expect(other, `${v.id}.${f.key} (display)`).toBe(key);
        else expect(other, `${v.id}.${f.key}`).not.toBe(key);
      }
    }
  });

  it('real changes: the run shown, a layer, a prompt and a decoding stage keep a training; its size, steps or seed do not', () => {
    const exp = V('experiments').schema, lang = V('language').schema;
    const e = defaults(exp, ss), l = defaults(lang, ss);
    expect(runKey(exp, { ...e, sel: e.normalizers[1] })).toBe(runKey(exp, e));
    expect(runKey(exp, { ...e, steps: e.steps * 2 })).not.toBe(runKey(exp, e));
    expect(runKey(exp, { ...e, seed: e.seed + 1 })).not.toBe(runKey(exp, e));
    for (const change of [{ sel: l.normalizers[1] }, { layer: 1 }, { prompt: 'ROMEO:' }, { on: ['top_p'] }, { stages: { top_p: 0.5 } },
      { genSeed: 9 }, { length: 30 }, { head: 2 }, { genStep: 3 }])
      expect(runKey(lang, { ...l, ...change }), JSON.stringify(change)).toBe(runKey(lang, l));
    for (const change of [{ d: 32 }, { context: 32 }, { steps: 100 }, { seed: 3 }, { corpus: 'bigram_backcopy' }, { params: { 'adamw.lr': 0.01 } }])
      expect(runKey(lang, { ...l, ...change }), JSON.stringify(change)).not.toBe(runKey(lang, l));
  });

  it('does not depend on the order of the keys', () => {
    const { schema } = V('language');
    const l = defaults(schema, ss);
    const reversed = Object.fromEntries(Object.entries(l).reverse());
    expect(runKey(schema, reversed)).toBe(runKey(schema, l));
  });

  it('a link still holds display fields (only the run key leaves them out)', () => {
    const { schema } = V('language');
    expect(toHash(schema, { ...defaults(schema, ss), prompt: 'ROMEO:', layer: 1 }, ss)).toMatch(/prompt=ROMEO.*layer=1|layer=1.*prompt=ROMEO/);
  });

  it('the steppers take a display change in place and start over for any other (update follows the run key)', () => {
    const cases = [
      ['optimizers', { speed: 20, sel: 'adam' }, { steps: 100 }],
      ['sampling', { tau: 2, hard: true }, { draws: 100 }],
    ];
    for (const [id, same, other] of cases) {
      const v = V(id), s = defaults(v.schema, ss);
      expect(runKey(v.schema, { ...s, ...same }), id).toBe(runKey(v.schema, s));
      const st = v.start(ss, s);
      expect(st.update({ ...s, ...same }), `${id} ${JSON.stringify(same)}`).toBe(true);
      expect(st.update({ ...s, ...same, ...other }), `${id} ${JSON.stringify(other)}`).toBe(false);
      st.stop?.();
    }
  });
});
