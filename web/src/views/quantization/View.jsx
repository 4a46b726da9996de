// The Quantization view: the values (weights, a long attention row, or the
// softmax of the view's own logits), the scheme (every registry quantizer)
// with its parameters from the registry, and the logits whose softmax shows
// the effect of quantization. The figure — histogram with the levels, the
// error measures, the softmax before and after, and with AdaRound a layer
// rounded both ways — is recomputed by the wasm kernels on every change.
import { useMemo } from 'preact/hooks';
import { makePreset, PRESETS, PRESET_NAMES, N_MIN, N_MAX } from 'softscope/analysis';
import { schemeKernel, learnsLayer } from 'softscope/views/quantization';
import { LogitEditor } from '../../components/LogitEditor.jsx';
import { Fields, shown } from '../../controls/Field.jsx';

export function QuantizationView({ ss, v, state: s, set, colors, controls, Layout }) {
  const data = useMemo(() => v.compute(ss, s), [ss, s]);
  const k = schemeKernel(ss, s);
  const n = s.logits.length;
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'quant', controls };
  const setN = (m) => set({ logits: m < n ? s.logits.slice(0, m) : [...s.logits, ...new Array(m - n).fill(0)] });
  const editor = shown(controls, 'logits') && (
    <div class="card editor-card">
      <div class="card-head">
        <h2>Logits <span class="muted">x ∈ ℝ<sup>{n}</sup>: {s.source === 'softmax' ? 'the values are softmax(x)' : s.source === 'weights'
          ? 'quantized before the softmax, for the effect' : 'not used by this source'}</span></h2>
        <div class="controls">
          <label class="inline" for="quant-preset">preset{' '}
            <select id="quant-preset" value="" onChange={(e) => e.currentTarget.value && set({ logits: makePreset(e.currentTarget.value, n, s.seed) })}>
              <option value="">set to…</option>
              {PRESET_NAMES.map((p) => <option key={p} value={p} title={PRESETS[p].help}>{PRESETS[p].label}</option>)}
            </select>
          </label>
          <label class="inline n-control" for="quant-logits-n">n = {n}
            <input id="quant-logits-n" type="range" min={N_MIN} max={N_MAX} step={1} value={n} onInput={(e) => setN(Number(e.currentTarget.value))} />
          </label>
        </div>
      </div>
      <LogitEditor logits={s.logits} onChange={(logits) => set({ logits })} />
    </div>
  );
  const side = (
    <>
      <h2>Values</h2>
      <div class="controls column">
        <Fields {...common} keys={['source']} />
        {s.source !== 'softmax' && <Fields {...common} keys={['n']} />}
        {s.source !== 'softmax' && shown(controls, 'seed') && (
          <button type="button" onClick={() => set({ seed: s.seed + 1 })} title="new values (and a new seed for the scheme)">
            Reroll <span class="muted">seed {s.seed}</span>
          </button>
        )}
        {s.source !== 'weights' && <Fields {...common} keys={['log']} />}
      </div>
      <h2>Scheme</h2>
      <Fields {...common} keys={['scheme']} />
      {k && <p class="summary-line">{k.summary}</p>}
      <Fields {...common} keys={['params']} />
      {learnsLayer(s) && <Fields {...common} keys={['rows']} />}
      {k?.paper && <p class="paper">{k.paper}</p>}
    </>
  );
  return (
    <Layout data={data} editor={editor} side={side} caption={(
      <p class="caption">
        A <b>quantizer</b> stores each value as a small integer <i>code</i> and reads it back on a grid of <i>levels</i>.
        The histogram shows the values; each vertical line is a level the quantizer used (its height: how many values landed
        there). Post-softmax values are power-law: most of them are tiny, which is what power-of-two and logarithmic quantizers
        are for, and what rounds entries of a long attention row to 0 (then KL is infinite). <b>AdaRound</b> learns, for each
        weight of a layer, whether to round up or down so that the layer's <i>output</i> on calibration inputs changes least:
        the grid marks the weights it rounds the other way from nearest. Every number is computed by the WebAssembly kernels.
      </p>
    )} />
  );
}
export default QuantizationView;
// The package's view module this View goes with (a widget loads the two together).
export { quantization as view } from 'softscope/views/quantization';
