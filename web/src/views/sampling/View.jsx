// The Sampling view: the logits (a long-tailed LM vocabulary, or a small
// preset to edit as bars), the registry's decoding stages each with its
// toggle and its own parameter, N live categorical draws (the view's
// stepper, a batch per animation frame, reproducible from the seed: draw d
// is Philox number d of (seed, stream)), and the Gumbel-Softmax controls (three logits, τ, M, the
// relaxed sampler and its hard variant, the estimators' target). The figure
// is recomputed by the wasm kernels on every change.
import { N_MIN, N_MAX } from 'softscope/analysis';
import { decodeStages, relaxedKernel, cachedLogits, TRI_LIMIT, TARGET_LIMIT, LM, LM_SIZES, SAMPLING_PRESETS }
  from 'softscope/views/sampling';
import { LogitEditor } from '../../components/LogitEditor.jsx';
import { Slider } from '../../components/Slider.jsx';
import { StageRow } from '../../components/StageRow.jsx';
import { Fields, shown } from '../../controls/Field.jsx';
import { useRunner } from '../../runner/useRunner.js';

const round2 = (v) => Math.round(v * 100) / 100 + 0;

export function SamplingView({ ss, v, state: s, set, colors, controls, Layout }) {
  // the draws run a batch per frame; a change of the logits, the stages, the seed or N restarts them
  const run = useRunner(v, ss, s);
  const data = run.data;
  const x = cachedLogits(s).x;
  const n = x.length;
  const small = data.small;
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'sampling', controls };
  const stages = decodeStages(ss);
  const hardAvailable = relaxedKernel(ss, s.relaxed, true).hardAvailable;
  const setN = (m) => {
    if (s.preset !== 'custom') return set({ n: m });
    return set({ logits: m < s.logits.length ? s.logits.slice(0, m) : [...s.logits, ...new Array(m - s.logits.length).fill(0)] });
  };
  const sizes = LM_SIZES.includes(s.vocab) ? LM_SIZES : [...LM_SIZES, s.vocab].sort((a, b) => a - b);
  const setTri = (i, x) => set((cur) => ({ tri: cur.tri.map((t, j) => (j === i ? round2(x) : t)) }));
  const setTarget = (i, x) => {
    if (Number.isFinite(x) && Math.abs(x) <= TARGET_LIMIT) set((cur) => ({ target: cur.target.map((t, j) => (j === i ? x : t)) }));
  };
  const presetField = { ...v.schema.fields.find((f) => f.key === 'preset'), optionLabel: (o) => SAMPLING_PRESETS[o]?.label ?? 'Custom (edited)',
    disabledOption: (o, st) => o === 'custom' && st.preset !== 'custom' };
  const schema = { ...v.schema, fields: v.schema.fields.map((f) => (f.key === 'preset' ? presetField : f)) };

  const input = (shown(controls, 'logits') || shown(controls, 'preset')) && (
    <div class="card editor-card">
      <div class="card-head">
        <h2>Logits <span class="muted">x ∈ ℝ<sup>{n.toLocaleString('en-US')}</sup></span></h2>
        <div class="controls">
          <Fields {...common} schema={schema} keys={['preset']} />
          {!shown(controls, s.preset === LM ? 'vocab' : 'n') ? null : s.preset === LM ? (
            <label class="inline" for="sampling-vocab">vocabulary{' '}
              <select id="sampling-vocab" value={s.vocab} onChange={(e) => set({ vocab: Number(e.currentTarget.value) })}>
                {sizes.map((x) => <option key={x} value={x}>{x.toLocaleString('en-US')}</option>)}
              </select>
            </label>
          ) : (
            <label class="inline n-control" for="sampling-n">n = {n}
              <input id="sampling-n" type="range" min={N_MIN} max={N_MAX} step={1} value={n} onInput={(e) => setN(Number(e.currentTarget.value))} />
            </label>
          )}
          {shown(controls, 'seed') && (
            <button type="button" onClick={() => set({ seed: s.seed + 1 })} title="next seed: new preset noise and new draws">
              Reroll <span class="muted">seed {s.seed}</span>
            </button>
          )}
        </div>
      </div>
      {small && shown(controls, 'logits') ? (
        <LogitEditor logits={Array.from(x, (l) => l + 0)} onChange={(logits) => set({ logits, preset: 'custom' })} />
      ) : !small && (
        <p class="help lm-note">
          {n.toLocaleString('en-US')} tokens, {SAMPLING_PRESETS[LM].help}. Too many to edit as bars: the figure shows them by rank,
          with the most probable tokens (choose a small preset to edit logits by hand).
        </p>
      )}
    </div>
  );

  const gumbel = ['tri', 'tau', 'm', 'relaxed', 'hard', 'target'].some((k) => shown(controls, k)) && (
    <div class="gumbel-controls" role="group" aria-labelledby="sampling-gumbel-title">
      <h2 id="sampling-gumbel-title">Gumbel-Softmax <span class="muted">and gradient estimators</span></h2>
      <p class="help">
        softmax((x + g) / τ) with Gumbel noise g is a differentiable stand-in for a one-hot draw from softmax(x) (Jang et al. 2017;
        Maddison et al. 2017). The noise depends only on the seed, so the dots move continuously with τ: towards the vertices as
        τ → 0, towards the centre as τ grows. The hard (straight-through) variant outputs the one-hot vector itself. The charts
        compare gradient estimators of ∇ₓ E‖z − target‖² with the exact gradient; ReinMax's authors use τ ≥ 1.
      </p>
      <div class="gumbel-grid">
        <div>
          {shown(controls, 'tri') && [0, 1, 2].map((i) => (
            <Slider key={i} id={`sampling-tri-${i}`} label={`x${i}`} value={s.tri[i]} min={-TRI_LIMIT} max={TRI_LIMIT} onInput={(x) => setTri(i, x)} />
          ))}
        </div>
        <div>
          <Fields {...common} keys={['tau', 'm', 'relaxed']} />
          {shown(controls, 'hard') && (
            <label class="inline check" for="sampling-hard">
              <input id="sampling-hard" type="checkbox" checked={s.hard} disabled={!hardAvailable} onChange={(e) => set({ hard: e.currentTarget.checked })} />
              hard (straight-through)
              {!hardAvailable && <span class="note">no hard variant of {s.relaxed} in this build</span>}
            </label>
          )}
          {shown(controls, 'target') && (
            <div class="controls target-controls">target{' '}
              {[0, 1, 2].map((i) => (
                <input key={i} id={`sampling-target-${i}`} type="number" step="0.5" min={-TARGET_LIMIT} max={TARGET_LIMIT}
                  value={s.target[i]} aria-label={`target ${i}`} onChange={(e) => setTarget(i, Number(e.currentTarget.value))} />
              ))}
            </div>
          )}
        </div>
      </div>
    </div>
  );

  const side = (
    <>
      <div class="stages" role="group" aria-labelledby="sampling-stages-title">
        <h2 id="sampling-stages-title">Decoding pipeline</h2>
        {stages.filter((k) => shown(controls, 'on') || shown(controls, 'stages') || shown(controls, k.name)).map((k) => (
          <StageRow key={k.name} k={k} s={s} row={data.stages.find((r) => r.name === k.name)} n={n} colors={colors} set={set}
            slider={shown(controls, 'stages') || shown(controls, k.name)} />
        ))}
      </div>
      <Fields {...common} keys={['draws']} />
      {run.error && <p class="error" role="alert">{run.error}</p>}
      {gumbel}
    </>
  );

  return (
    <Layout data={data} complete={run.done} caption={(
      <p class="caption">
        <b>Decoding</b>: a language model's next-token logits go through the decoding stages in the order LLM decoders apply
        them (<b>temperature</b>, then filters that drop tokens: <b>top-k</b>, <b>top-p</b>, <b>min-p</b>, <b>typical</b>); each
        stage renormalizes what is left. Tokens are then <b>drawn</b> from that distribution: the live frequencies converge on it,
        with their total-variation distance and a chi-square test. Every stage is a WebAssembly sampler from the library's registry.
      </p>
    )} input={input} side={side} />
  );
}
export default SamplingView;
// The package's view module this View goes with (a widget loads the two together).
export { sampling as view } from 'softscope/views/sampling';
