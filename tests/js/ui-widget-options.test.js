// The widget's own attributes (web/src/embed/options.js), read by the state
// parser: none given is every control, the figure's own height and the auto
// theme; "none" is no control; a list names the controls; what cannot be used
// keeps its default, with a notice naming the attribute as written.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { VIEWS } from '../../wasm/views/index.js';
import { widgetOptions } from '../../web/src/embed/options.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

describe('widgetOptions', () => {
  it('no attribute: every control, no height, the auto theme, no notice (every view)', () => {
    for (const v of VIEWS) expect(widgetOptions(ss, {}, v), v.id).toEqual({ controls: 'all', height: undefined, theme: 'auto', notices: [] });
  });

  it('controls="none", a list, "all"; a height in px; a theme', () => {
    const v = VIEWS.find((x) => x.id === 'normalizers');
    expect(widgetOptions(ss, { controls: 'none' }, v).controls).toEqual(new Set());
    expect(widgetOptions(ss, { controls: 'temperature, alpha' }, v).controls).toEqual(new Set(['temperature', 'alpha']));
    expect(widgetOptions(ss, { controls: 'all' }, v).controls).toBe('all');
    expect(widgetOptions(ss, { height: '360px', theme: 'dark' }, v)).toMatchObject({ height: 360, theme: 'dark', notices: [] });
  });

  it('what cannot be used keeps its default, with a notice', () => {
    const v = VIEWS.find((x) => x.id === 'normalizers');
    const o = widgetOptions(ss, { controls: 'tempreature', height: 'abc', theme: 'purple' }, v);
    expect(o).toMatchObject({ controls: 'all', height: undefined, theme: 'auto' });
    expect(o.notices.map((n) => [n.key, n.value])).toEqual([['controls', 'tempreature'], ['height', 'abc'], ['theme', 'purple']]);
  });
});
