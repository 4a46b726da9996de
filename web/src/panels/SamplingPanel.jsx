// Panel 3: sampling. Top: a decoding pipeline as LLM decoders run it
// (temperature → top-k → top-p → min-p → typical, each stage a registry
// sampler with draws = 0, chained through log p), the kept set and the
// renormalized distribution, then N live categorical draws converging on it
// (a batch per animation frame, reproducible from the seed: draw d is
// Philox number d of (seed, stream)). Bottom: Gumbel-Softmax on three
// classes drawn on the triangle, and the bias and variance of four gradient
// estimators against τ. A kernel this build lacks is shown as such.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LogitEditor } from '../components/LogitEditor.jsx';
import { Slider } from '../components/Slider.jsx';
import { RankPlot } from '../components/RankPlot.jsx';
import { DecodeBars } from '../components/DecodeBars.jsx';
import { Simplex } from '../components/Simplex.jsx';
import { TauChart } from '../components/TauChart.jsx';
import { chiSquare } from '../../../wasm/stats.js';
import { N_MIN, N_MAX } from '../presets.js';
import { SAMPLING_PRESETS, SAMPLING_PRESET_NAMES, LM_SIZES, samplingLogits } from '../lib/samplingPresets.js';
import { STAGE_INFO, STAGE_IDS, stageParam, nBound, runPipeline, rankOrder, rankBins, tvDistance } from '../lib/decoding.js';
import { startDraws } from '../lib/drawRunner.js';
import { gumbelKernels, gumbelSamples, estimatorGrid, TAU_GRID } from '../lib/gumbelView.js';
import { sliderRange } from '../lib/params.js';
import { roundSig } from '../lib/sliderScale.js';
import { fmt } from '../lib/format.js';
import {
  samplingState, samplingNRange, SAMPLING_LM, SAMPLING_DRAWS, SAMPLING_TAU, SAMPLING_M, SAMPLING_TRI_LIMIT, SAMPLING_TARGET_LIMIT,
} from '../state/url.js';

const BARS_MAX = N_MAX; // up to here, bars in token order (and the editor); beyond, the rank plot
const NOT_IN_BUILD = 'not in this build';
const round2 = (v) => Math.round(v * 100) / 100 + 0;
const pct = (v) => `${fmt(100 * v, 4)} %`;

export function SamplingPanel({ ss, state, update }) {
  const s = samplingState(state);
  const setS = (patch) => update((st) => {
    const cur = samplingState(st);
    return { sampling: { ...cur, ...(typeof patch === 'function' ? patch(cur) : patch) } };
  });
  const kernels = useMemo(() => new Map(ss.kernels('sampler').map((k) => [k.name, k])), [ss]);

  // ---- decoding ----
  const x = useMemo(() => samplingLogits(s), [s.preset, s.n, s.seed, s.logits]);
  const n = x.length;
  const order = useMemo(() => (n > BARS_MAX ? rankOrder(x) : null), [x]);
  const pipe = useMemo(() => runPipeline(ss, x, s, kernels), [ss, x, kernels, s.on.join(','), JSON.stringify(s.values)]);

  const [draws, setDraws] = useState(null);
  useEffect(() => {
    setDraws(null);
    if (!pipe.final) return undefined;
    const probs = pipe.final;
    const t0 = performance.now();
    const job = startDraws(ss, probs, {
      seed: s.seed, total: s.draws,
      onProgress: (r) => setDraws({ probs, ...r, running: r.done < r.total, wallMs: performance.now() - t0 }),
      onError: (e) => setDraws({ probs, error: e.message }),
    });
    return () => job.cancel();
  }, [ss, pipe, s.seed, s.draws]);
  const live = draws && draws.probs === pipe.final ? draws : null;
  const done = live?.done ?? 0;

  const stats = useMemo(() => {
    if (!live || !done) return null;
    return { tv: tvDistance(live.counts, done, pipe.final), chi: chiSquare(live.indices.subarray(0, done), pipe.final) };
  }, [live, done]);
  const bins = order && pipe.final ? rankBins(order, pipe.base, pipe.final, live?.counts, done) : null;

  const setPreset = (p) => {
    const r = samplingNRange(p);
    setS({ preset: p, logits: null, n: s.n >= r.min && s.n <= r.max && p !== SAMPLING_LM ? s.n : r.default });
  };
  const setN = (m) => {
    if (s.preset !== 'custom') return setS({ n: m });
    const xs = s.logits;
    return setS({ n: m, logits: m < xs.length ? xs.slice(0, m) : [...xs, ...new Array(m - xs.length).fill(0)] });
  };
  const toggleStage = (id, on) => setS((cur) => ({ on: STAGE_IDS.filter((k) => (k === id ? on : cur.on.includes(k))) }));
  const setValue = (id, v) => setS((cur) => ({ values: { ...cur.values, [id]: v } }));
  const small = n <= BARS_MAX;
  const lmSizes = LM_SIZES.includes(s.n) || s.preset !== SAMPLING_LM ? LM_SIZES : [...LM_SIZES, s.n].sort((a, b) => a - b);

  return (
    <section class="panel sampling" aria-labelledby="tab-sampling">
      <p class="caption">
        <b>Decoding</b>: a language model's next-token logits go through <b>temperature</b>, then filters that drop tokens
        (<b>top-k</b>, <b>top-p</b>, <b>min-p</b>, <b>typical</b>), in the order LLM decoders apply them; each stage renormalizes
        what is left. The tokens are then <b>drawn</b> from that distribution: the live histogram converges on it, with its
        total-variation distance and a chi-square test. Every stage is a WebAssembly sampler from the library's registry.
      </p>

      <div class="top-row">
        <div class="card">
          <div class="card-head">
            <h2>Logits <span class="muted">x ∈ ℝ<sup>{n.toLocaleString('en-US')}</sup></span></h2>
            <div class="controls">
              <label class="inline">
                preset{' '}
                <select id="sampling-preset" value={s.preset} onChange={(e) => e.currentTarget.value !== 'custom' && setPreset(e.currentTarget.value)}>
                  {SAMPLING_PRESET_NAMES.map((p) => <option key={p} value={p} title={SAMPLING_PRESETS[p].help}>{SAMPLING_PRESETS[p].label}</option>)}
                  <option value="custom" disabled={s.preset !== 'custom'}>Custom (edited)</option>
                </select>
              </label>
              {s.preset === SAMPLING_LM ? (
                <label class="inline">
                  vocabulary{' '}
                  <select id="sampling-n" value={s.n} onChange={(e) => setN(Number(e.currentTarget.value))}>
                    {lmSizes.map((v) => <option key={v} value={v}>{v.toLocaleString('en-US')}</option>)}
                  </select>
                </label>
              ) : (
                <label class="inline n-control">
                  n = {n}
                  <input id="sampling-n" type="range" min={N_MIN} max={N_MAX} step={1} value={n} aria-label="number of logits"
                    onInput={(e) => setN(Number(e.currentTarget.value))} />
                </label>
              )}
              <button type="button" onClick={() => setS({ seed: s.seed + 1 })} title="next seed: new preset noise and new draws">
                Reroll <span class="muted">seed {s.seed}</span>
              </button>
            </div>
          </div>
          {small ? (
            <LogitEditor logits={Array.from(x, (v) => v + 0)} onChange={(next) => setS({ preset: 'custom', logits: next, n: next.length })} />
          ) : (
            <>
              <p class="help lm-note">
                {n.toLocaleString('en-US')} tokens, {SAMPLING_PRESETS[SAMPLING_LM].help}. Too many to edit as bars: the chart below
                shows them by rank (choose a small preset to edit logits by hand). The most probable tokens:
              </p>
              {pipe.final && <TopTokens order={order} x={x} base={pipe.base} final={pipe.final} />}
            </>
          )}
        </div>

        <div class="card side-card stages">
          <h2>Decoding pipeline</h2>
          {STAGE_IDS.map((id) => (
            <StageRow key={id} id={id} n={n} info={kernels.get(STAGE_INFO[id].kernel)} on={s.on.includes(id)}
              value={s.values[id]} result={pipe.stages.find((r) => r.id === id)} onToggle={toggleStage} onValue={setValue} />
          ))}
        </div>
      </div>

      <div class="card decode-card" data-kept={pipe.kept ?? ''} data-kept-mass={pipe.keptMass ?? ''} data-n={n}
        data-draws-done={done} data-draws-total={s.draws} data-tv={stats ? stats.tv : ''} data-chi2-p={stats ? stats.chi.pValue : ''}>
        <div class="card-head">
          <h2>Distribution and draws</h2>
          <div class="legend">
            <span><i class="key key-base" /> softmax(x / T)</span>
            <span><i class="key key-kept" /> kept, renormalized</span>
            <span><i class="key key-dropped" /> dropped</span>
            <span><i class="key key-emp" /> draws (frequency)</span>
          </div>
        </div>
        {pipe.error && <p class="error" role="alert">{pipe.error}</p>}
        {pipe.final && (
          <div class="decode-body">
            <div class="decode-chart">
              {small
                ? <DecodeBars base={pipe.base} final={pipe.final} counts={live?.counts} done={done} />
                : <RankPlot bins={bins} n={n} kept={pipe.kept} showEmpirical={done > 0} />}
            </div>
            <div class="decode-side">
              <dl class="metrics stacked">
                <div class="metric"><dt>kept tokens</dt><dd data-value="kept">{pipe.kept.toLocaleString('en-US')}<span class="sub">of {n.toLocaleString('en-US')}</span></dd></div>
                <div class="metric"><dt>kept mass</dt><dd data-value="kept-mass">{pct(pipe.keptMass)}<span class="sub">of softmax(x / T)</span></dd></div>
                <div class="metric"><dt>draws</dt><dd data-value="draws">{done.toLocaleString('en-US')}<span class="sub">of {s.draws.toLocaleString('en-US')}{live?.running ? ' …' : ''}</span></dd></div>
                <div class="metric"><dt>TV distance</dt><dd data-value="tv">{stats ? fmt(stats.tv, 3) : '—'}<span class="sub">empirical vs kept; shrinks like 1/√N</span></dd></div>
                <div class="metric"><dt>chi-square p</dt><dd data-value="chi2">{stats ? fmt(stats.chi.pValue, 3) : '—'}
                  <span class="sub">{stats ? `χ² = ${fmt(stats.chi.chi2, 4)}, ${stats.chi.dof} dof` : 'draws vs kept distribution'}</span></dd></div>
              </dl>
              <Slider id="sampling-draws" label="N draws" value={s.draws} min={SAMPLING_DRAWS.min} max={SAMPLING_DRAWS.max} log integer
                help="drawn in batches per frame; any move restarts them" onInput={(v) => setS({ draws: roundSig(v, 2) })} />
              {live?.error && <p class="error">{live.error}</p>}
            </div>
          </div>
        )}
      </div>

      <GumbelSection ss={ss} s={s} setS={setS} kernels={kernels} />
    </section>
  );
}

function TopTokens({ order, x, base, final, rows = 8 }) {
  return (
    <table class="top-tokens" data-top-tokens={rows}>
      <thead><tr><th>rank</th><th>token id</th><th>logit</th><th>softmax(x / T)</th><th>sampled p</th></tr></thead>
      <tbody>
        {Array.from(order.subarray(0, rows), (i, r) => (
          <tr key={r} class={final[i] > 0 ? 'kept' : 'dropped'}>
            <td>{r + 1}</td><td>#{i}</td><td>{fmt(x[i], 3)}</td><td>{fmt(base[i], 3)}</td>
            <td>{final[i] > 0 ? fmt(final[i], 3) : 'dropped'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function StageRow({ id, n, info, on, value, result, onToggle, onValue }) {
  const meta = STAGE_INFO[id];
  const p = stageParam(id, info);
  let range = p ? sliderRange(p) : null;
  if (range && p.n_bound) range = { ...range, max: Math.max(range.min + 1, Math.min(range.max, nBound(p, n))) };
  const round = (v) => (range.integer ? Math.round(v) : roundSig(v, 3));
  const shown = result && result.value !== undefined && range?.integer ? result.value : value;
  return (
    <div class={`stage${on && info ? ' on' : ''}${info ? '' : ' missing'}`} data-stage={id} data-stage-on={on ? '1' : '0'}
      data-stage-kept={result?.kept ?? ''} data-missing={info ? '0' : '1'}>
      <div class="stage-head">
        <label class="inline">
          <input id={`sampling-on-${id}`} type="checkbox" checked={on && !!info} disabled={!info}
            onChange={(e) => onToggle(id, e.currentTarget.checked)} />
          <b>{meta.label}</b>
        </label>
        {!info && <span class="note" data-note="missing">{NOT_IN_BUILD}</span>}
        {info && on && result?.kept != null && <span class="stage-kept">→ {result.kept.toLocaleString('en-US')} kept</span>}
      </div>
      {info && p && on && (
        <Slider id={`sampling-${id}`} label={p.name} value={shown} min={range.min} max={range.max} log={range.log} integer={range.integer}
          onInput={(v) => onValue(id, round(v))} />
      )}
      {info && on && result?.error && <p class="error">{result.error}</p>}
      {info && !on && <p class="help">{meta.help}</p>}
    </div>
  );
}

function GumbelSection({ ss, s, setS, kernels }) {
  const gk = useMemo(() => gumbelKernels(kernels), [kernels]);
  const x3 = s.tri;
  const softmax = useMemo(() => ss.sample('temperature', Float32Array.from(x3), { temperature: 1, draws: 0 }).probs, [ss, x3.join(',')]);
  const g = useMemo(() => gumbelSamples(ss, gk, x3, { tau: s.tau, seed: s.seed, m: s.m, hard: s.hard }),
    [ss, gk, x3.join(','), s.tau, s.seed, s.m, s.hard]);
  const est = useMemo(() => estimatorGrid(ss, x3, s.target, s.seed), [ss, x3.join(','), s.target.join(','), s.seed]);
  const setTri = (i, v) => setS((cur) => ({ tri: cur.tri.map((t, j) => (j === i ? round2(v) : t)) }));
  const setTarget = (i, v) => {
    if (!Number.isFinite(v) || Math.abs(v) > SAMPLING_TARGET_LIMIT) return;
    setS((cur) => ({ target: cur.target.map((t, j) => (j === i ? v : t)) }));
  };

  return (
    <>
      <p class="caption gumbel-caption">
        <b>Gumbel-Softmax</b> (Jang et al. 2017; Maddison et al. 2017): softmax((x + g) / τ) with Gumbel noise g is a
        differentiable stand-in for a one-hot draw from softmax(x). On three classes every sample is a point of the triangle.
        The noise depends only on the seed, so the dots move continuously as τ changes: towards the vertices as τ → 0
        (nearly one-hot), towards the centre as τ grows. The hard (straight-through) variant outputs the one-hot vector itself.
      </p>
      <div class="top-row gumbel-row">
        <div class="card simplex-card" data-gumbel={g.missing ? 'missing' : g.error ? 'error' : 'ok'}>
          <div class="card-head">
            <h2>Samples on the simplex <span class="muted">M = {s.m}</span></h2>
            <label class="inline">
              <input id="sampling-hard" type="checkbox" checked={s.hard} disabled={!gk.hard} onChange={(e) => setS({ hard: e.currentTarget.checked })} />
              hard (straight-through)
              {!gk.hard && <span class="note">{NOT_IN_BUILD}</span>}
            </label>
          </div>
          <div class="simplex-body">
            {g.samples ? (
              <Simplex samples={g.samples} m={g.m} softmax={softmax} mean={g.mean} counts={g.counts} />
            ) : (
              <p class="note big-note" data-note="missing">{g.missing ? `Gumbel-Softmax is ${NOT_IN_BUILD}.` : g.error}</p>
            )}
            <div class="simplex-controls">
              {[0, 1, 2].map((i) => (
                <Slider key={i} id={`sampling-tri-${i}`} label={`x${i}`} value={x3[i]} min={-SAMPLING_TRI_LIMIT} max={SAMPLING_TRI_LIMIT}
                  onInput={(v) => setTri(i, v)} />
              ))}
              <Slider id="sampling-tau" label="τ" value={s.tau} min={SAMPLING_TAU.min} max={SAMPLING_TAU.max} log
                onInput={(v) => setS({ tau: roundSig(v, 3) })} />
              <Slider id="sampling-m" label="M samples" value={s.m} min={SAMPLING_M.min} max={SAMPLING_M.max} log integer
                onInput={(v) => setS({ m: roundSig(v, 2) })} />
              <p class="help">
                <span class="key-star">★</span> softmax(x) = ({Array.from(softmax, (v) => fmt(v, 3)).join(', ')})
                {g.mean && <> · <span class="key-ring">○</span> sample mean = ({Array.from(g.mean, (v) => fmt(v, 3)).join(', ')})</>}
                {g.counts && <> · counts ({g.counts.join(', ')}), expected ({Array.from(softmax, (v) => fmt(v * g.m, 3)).join(', ')})</>}
              </p>
            </div>
          </div>
        </div>

        <div class="card estimator-card" data-estimators={est.missing ? 'missing' : 'ok'}>
          <div class="card-head">
            <h2>Gradient estimators <span class="muted">vs τ</span></h2>
          </div>
          <p class="help">
            Bias and variance of estimators of ∇<sub>x</sub> E[‖z − target‖²], z one-hot ~ softmax(x), against the exact
            gradient (by enumeration), {est.samples} samples each. ReinMax's authors use τ ≥ 1; below it its bias grows.
          </p>
          <div class="controls target-controls">
            target{' '}
            {[0, 1, 2].map((i) => (
              <input key={i} id={`sampling-target-${i}`} type="number" step="0.5" min={-SAMPLING_TARGET_LIMIT} max={SAMPLING_TARGET_LIMIT}
                value={s.target[i]} aria-label={`target ${i}`} onChange={(e) => setTarget(i, Number(e.currentTarget.value))} />
            ))}
          </div>
          {est.missing ? (
            <p class="note big-note" data-note="missing">Estimator statistics are {NOT_IN_BUILD}.</p>
          ) : (
            <>
              <div class="legend">
                {est.lines.map((l) => (
                  <span key={l.name} data-estimator={l.name}><i class="key" style={{ background: l.color }} /> {l.name}
                    {l.error && <span class="note"> ({l.error})</span>}</span>
                ))}
              </div>
              <div class="tau-charts">
                <TauChart id="bias" title="bias ‖E[ĝ] − ∇‖" taus={TAU_GRID} tau={s.tau}
                  lines={est.lines.map((l) => ({ name: l.name, color: l.color, values: l.bias }))} />
                <TauChart id="variance" title="variance E‖ĝ − E[ĝ]‖²" taus={TAU_GRID} tau={s.tau}
                  lines={est.lines.map((l) => ({ name: l.name, color: l.color, values: l.variance }))} />
              </div>
            </>
          )}
        </div>
      </div>
    </>
  );
}

