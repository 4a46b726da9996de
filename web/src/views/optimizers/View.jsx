// The Optimizers view: a race of optimizers over a 2-D test function,
// animated. Each optimizer is a trajectory runner of the wasm engine,
// advanced `speed` steps per animation frame; a hyperparameter acts on the
// running race from the next step, while changing the function, the start
// (press or drag on the map, or the arrow keys on the start ring), the list,
// the noise, the clipping or the schedule starts a new race. The figure is
// the package's (the same as `softscope figure optimizers`), drawn from the
// race as it stands.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Fields, Field, shown } from '../../controls/Field.jsx';
import { startRace, advanceRace, raceOver, setRaceParams, raceData, functionOf } from '../../../../wasm/views/optimizers/model.js';
import { fmt } from '../../../../wasm/figures/format.js';

const round3 = (v) => Math.round(v * 1e3) / 1e3;

export function OptimizersView({ ss, v, state: s, set, colors, controls, Layout }) {
  const fn = functionOf(ss, s);
  const [playing, setPlaying] = useState(true);
  // (a ref too, so a pause lands before the next frame, not after the re-render)
  const live = useRef(playing);
  const play = (on) => { live.current = on; setPlaying(on); };
  const [gen, setGen] = useState(0); // a new race on Reset, or when a finished race gets new hyperparameters
  const [, setTick] = useState(0);

  // A new race whenever what the runs start from changes; it plays.
  const raceKey = JSON.stringify([s.fn, s.start, s.kernels, s.steps, s.noise, s.clip, s.seed, s.schedule, s.warmup]);
  const race = useMemo(() => startRace(ss, s), [ss, raceKey, gen]);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    play(true);
  }, [raceKey]);

  // Hyperparameters act from the next step of the running race. A finished
  // race starts over with them, and so does one whose stopped optimizer
  // (a rejected hyperparameter) got new ones.
  const lastParams = useRef(s.params);
  useEffect(() => {
    const before = lastParams.current;
    if (before === s.params) return;
    lastParams.current = s.params;
    const keys = new Set([...Object.keys(before), ...Object.keys(s.params)].filter((k) => before[k] !== s.params[k]));
    const touched = (name) => [...keys].some((k) => k.startsWith(`${name}.`));
    if (raceOver(race) || race.runs.some((r) => r.error && touched(r.name))) {
      setGen((g) => g + 1);
      play(true);
    } else setRaceParams(ss, race, s);
  }, [s.params]);

  // The animation: `speed` steps per frame per optimizer while playing.
  const speed = useRef(s.speed);
  speed.current = s.speed;
  useEffect(() => {
    live.current = playing;
    if (!playing) return undefined;
    let id = 0;
    const frame = () => {
      if (!live.current) return;
      const more = advanceRace(race, speed.current);
      setTick((t) => t + 1);
      if (more) id = requestAnimationFrame(frame);
      else play(false);
    };
    id = requestAnimationFrame(frame);
    return () => cancelAnimationFrame(id);
  }, [playing, race]);

  const data = raceData(race);
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'optim', controls };
  const field = (key) => v.schema.fields.find((f) => f.key === key);
  const sel = s.sel ?? s.kernels[0];
  const selKernel = ss.kernel(sel, 'optimizer');
  // A new function starts from its own start; a newly added optimizer shows its hyperparameters.
  const setFn = (p) => set({ ...p, start: null });
  const setList = (p) => {
    const added = p.kernels?.find((n) => !s.kernels.includes(n));
    set(added ? { ...p, sel: added } : p);
  };
  const onStart = (p) => set({ start: p && [round3(p[0]), round3(p[1])] });
  const start = s.start ?? fn.start;
  const any = (keys) => keys.some((k) => shown(controls, k));
  const RACE = ['speed', 'steps', 'noise', 'clip', 'warmup', 'schedule'];

  return (
    <Layout data={data} figure={{ onStart }} complete={raceOver(race)} caption={(
      <p class="caption">
        Optimizers race from the same start (the ring; <b>press or drag</b> on the map to move it, or focus it and use the
        arrow keys) over a test function, drawn as a banded heat map; crosses mark its minima. Every step is computed by
        the library's C update kernels in WebAssembly, and hyperparameters act on the running race from the next step.
        Beside the map: f − f* against the step, on a log scale; a run that diverges ends in a ×.
      </p>
    )} input={any(['fn', 'kernels', ...RACE]) && (
      <div class="card editor-card">
        <div class="card-head">
          <h2>{fn.name} <span class="muted">{fn.summary}</span></h2>
          {shown(controls, 'fn') && <div class="controls"><Field f={field('fn')} {...common} set={setFn} /></div>}
        </div>
        <Fields {...common} set={setList} keys={['kernels']} />
        {any(RACE) && <h2>Race</h2>}
        <div class="field-grid"><Fields {...common} keys={RACE} /></div>
      </div>
    )} side={(
      selKernel && (
        <div class="optim-hyper">
          <h2>{shown(controls, 'sel') ? <Field f={{ ...field('sel'), options: s.kernels }} {...common} state={{ ...s, sel }} /> : `hyperparameters of ${sel}`}</h2>
          <p class="help"><code class="formula">{selKernel.formula}</code></p>
          <p class="help">{selKernel.paper}</p>
          <Fields {...common} keys={['params']} />
        </div>
      )
    )} below={(
      <div class="controls race-bar" data-step={data.step} data-playing={playing ? '1' : '0'}>
        <button id="optim-play" type="button" onClick={() => {
          if (!playing && raceOver(race)) setGen((g) => g + 1); // a finished race plays again from the start
          play(!playing);
        }}>{playing ? 'Pause' : 'Play'}</button>
        <button id="optim-step" type="button" disabled={raceOver(race)}
          onClick={() => { play(false); advanceRace(race, 1); setTick((t) => t + 1); }}>Step</button>
        <button id="optim-reset" type="button" onClick={() => { setGen((g) => g + 1); play(false); }}>Reset</button>
        <span class="muted" data-optim-step aria-live="off">step {data.step} / {s.steps}</span>
        <span class="muted">start ({fmt(start[0], 4)}, {fmt(start[1], 4)})</span>
        {s.start && <button type="button" class="link-button" onClick={() => onStart(null)}>the function's start</button>}
        <button type="button" onClick={() => set({ seed: s.seed + 1 })} disabled={!(s.noise > 0)}
          title="the gradient noise's seed">New noise <span class="muted">seed {s.seed}</span></button>
      </div>
    )} />
  );
}
export default OptimizersView;
