// The Normalizers view: edit the logits (drag bars, mask with −∞, presets),
// choose normalizers, move the temperature and their parameters; the figure
// shows every output side by side, recomputed by the wasm kernels on every
// change (microseconds at n ≤ 64), including each pointer move of a drag.
import { useMemo, useState } from 'preact/hooks';
import { PRESETS } from 'softscope/analysis';
import { fmt } from 'softscope/figures';
import { LogitEditor } from '../../components/LogitEditor.jsx';
import { Fields, shown } from '../../controls/Field.jsx';
import { useWidth } from '../../hooks.js';

export function NormalizersView({ ss, v, state: s, set, colors, controls, Layout }) {
  const data = useMemo(() => v.compute(ss, s), [ss, s]);
  const n = s.logits.length;
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'norm', controls };
  const editable = shown(controls, 'logits');
  const [box, boxWidth] = useWidth(760);
  // Choosing a preset replaces edited logits: the last edit can be had back.
  const [undo, setUndo] = useState(null);
  const choose = (patch) => {
    if (s.preset === 'custom' && patch.preset && patch.preset !== 'custom') setUndo(s.logits);
    set(patch);
  };
  return (
    <Layout data={data} figure={{ input: !editable }} caption={(
      <p class="caption">
        A <b>normalizer</b> turns a vector of scores (<i>logits</i>) into a distribution. Drag the bars to edit the logits,
        or pick a preset; every chosen normalizer is recomputed by the WebAssembly kernels on each move. Under each chart:
        its <b>entropy</b> (nats; ln n = {fmt(Math.log(n), 3)} is the uniform maximum), its largest probability and its
        <b> support</b> (entries that are not exactly zero).
      </p>
    )} editor={editable && (
      <div class="card editor-card">
        <div class="card-head">
          <h2>Logits <span class="muted">x ∈ ℝ<sup>{n}</sup></span></h2>
          <div class="controls">
            <Fields {...common} set={choose} keys={['preset']} />
            {s.preset !== 'custom' && (
              <button type="button" title="same preset, next seed" onClick={() => set({ seed: s.seed + 1 })}>
                Reroll <span class="muted">seed {s.seed}</span>
              </button>
            )}
            <label class="inline n-control" for="norm-n">
              n = {n}
              <input id="norm-n" type="range" min={2} max={64} step={1} value={n}
                onInput={(e) => {
                  const m = Number(e.currentTarget.value);
                  if (s.preset !== 'custom') set({ n: m });
                  else set({ logits: m < n ? s.logits.slice(0, m) : [...s.logits, ...new Array(m - n).fill(0)] });
                }} />
            </label>
          </div>
        </div>
        <div ref={box}>
          <LogitEditor logits={s.logits} width={boxWidth} onChange={(logits) => { setUndo(null); set({ logits, preset: 'custom' }); }} />
        </div>
        {undo && s.preset !== 'custom' && (
          <p class="undo" role="status">Your edited logits were replaced by the preset.{' '}
            <button type="button" class="link-button" onClick={() => { set({ logits: undo, preset: 'custom' }); setUndo(null); }}>Undo</button></p>
        )}
        <p class="help">Drag a bar up or down (Shift: paint across bars). Click the strip under a bar, or press M, to mask it
          with −∞. Keyboard: ←/→ pick a bar, ↑/↓ change it. Range ±8. {PRESETS[s.preset]?.help ?? ''}</p>
      </div>
    )} side={<Fields {...common} keys={['kernels', 'temperature', 'params']} />} />
  );
}
export default NormalizersView;
// The package's view module this View goes with (a widget loads the two together).
export { normalizers as view } from 'softscope/views/normalizers';
