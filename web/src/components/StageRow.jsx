// One decoding stage as a control (the Sampling view's pipeline, and the
// Language view's generation): its toggle, its swatch and name, how many
// tokens it kept, and a slider for its own parameter while it is on (an
// n-bounded one, top-k, ends at the vocabulary); off, its summary. The
// state's shape is the Sampling view's: `on` (the stages on) and `stages`
// (each stage's value by name). row: what the last run of the pipeline says
// of this stage ({ value, kept, error }), when there is one.
import { stageParam } from 'softscope/analysis';
import { Slider } from './Slider.jsx';
import { sliderRange } from '../lib/params.js';
import { roundSig } from '../lib/sliderScale.js';

// the largest value an n-bounded parameter takes at n tokens (analysis/decoding.js nBound)
const bound = (p, n) => (p.n_bound === 'le' ? n : p.n_bound === 'lt' ? n - 1 : Infinity);

export function StageRow({ k, s, row, n, colors, set, slider, idPrefix = 'sampling' }) {
  const p = stageParam(k);
  const on = s.on.includes(k.name);
  let range = p ? sliderRange(p) : null;
  if (range && p.n_bound) range = { ...range, max: Math.max(range.min + 1, Math.min(range.max, bound(p, n))) };
  const toggle = (checked) => set((cur) => ({ on: checked ? [...cur.on, k.name] : cur.on.filter((x) => x !== k.name) }));
  const put = (v) => set((cur) => ({ stages: { ...cur.stages, [k.name]: range.integer ? Math.round(v) : roundSig(v, 3) } }));
  const reset = () => set((cur) => {
    const { [k.name]: _, ...rest } = cur.stages;
    return { stages: rest };
  });
  return (
    <div class={`stage${on ? ' on' : ''}`} data-stage={k.name} data-stage-on={on ? '1' : '0'}>
      <div class="stage-head">
        <label class="inline" for={`${idPrefix}-on-${k.name}`}>
          <input id={`${idPrefix}-on-${k.name}`} type="checkbox" checked={on} onChange={(e) => toggle(e.currentTarget.checked)} />
          <span class="swatch" style={{ background: colors?.get(k.name) }} aria-hidden="true" />
          <b>{k.name}</b>
        </label>
        {on && Number.isInteger(row?.kept) && <span class="stage-kept">→ {row.kept.toLocaleString('en-US')} kept</span>}
      </div>
      {p && on && slider && (
        <Slider id={`${idPrefix}-${k.name}`} label={p.name} value={row?.value ?? s.stages[k.name] ?? p.default} min={range.min} max={range.max}
          log={range.log} integer={range.integer} onInput={put} onReset={reset} isDefault={!Number.isFinite(s.stages[k.name])} />
      )}
      {on && row?.error && <p class="error" role="alert">{row.error}</p>}
      {!on && <p class="help">{k.summary}</p>}
    </div>
  );
}
