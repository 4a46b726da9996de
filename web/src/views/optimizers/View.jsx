// The Optimizers view: a race of optimizers over a 2-D test function,
// animated. Each optimizer is a trajectory runner of the wasm engine,
// advanced `speed` steps per animation frame; changing a hyperparameter, the
// function, the start (press or drag on the map, or the arrow keys on the
// start ring), the list, the noise, the clipping or the schedule starts a new
// race (so the race drawn is always its link's). The figure is
// the package's (the same as `softscope figure optimizers`), drawn from the
// race as it stands.
import { fmt } from 'softscope/figures';
import { functionOf } from 'softscope/views/optimizers';
import { Fields, Field, shown } from '../../controls/Field.jsx';
import { Formula } from '../../components/Formula.jsx';
import { useRunner } from '../../runner/useRunner.js';

const round3 = (v) => Math.round(v * 1e3) / 1e3;

export function OptimizersView({ ss, v, state: s, set, colors, controls, Layout }) {
  const fn = functionOf(ss, s);
  // The race: `speed` steps per frame per optimizer while playing; a new
  // race (it plays) when anything but the pace or the shown optimizer
  // changes (the stepper's update()).
  const race = useRunner(v, ss, s);
  const { data, playing } = race;
  const over = race.stepper.over();
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
    <Layout data={data} figure={{ onStart }} complete={over} caption={(
      <p class="caption">
        Optimizers race from the same start (the ring; <b>press or drag</b> on the map to move it, or focus it and use the
        arrow keys) over a test function, drawn as a banded heat map; crosses mark its minima. Every step is computed by
        the library's C update kernels in WebAssembly; changing a hyperparameter runs the race again from the start.
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
          <p class="help"><Formula text={selKernel.formula} /></p>
          <p class="help">{selKernel.paper}</p>
          <Fields {...common} keys={['params']} />
        </div>
      )
    )} below={(
      <div class="controls race-bar" data-step={data.step} data-playing={playing ? '1' : '0'}>
        <button id="optim-play" type="button" onClick={() => {
          if (!playing && over) race.restart({ play: true }); // a finished race plays again from the start
          else race.play(!playing);
        }}>{playing ? 'Pause' : 'Play'}</button>
        <button id="optim-step" type="button" disabled={over}
          onClick={() => { race.play(false); race.stepper.advance(1); race.redraw(); }}>Step</button>
        <button id="optim-reset" type="button" onClick={() => race.restart({ play: false })}>Reset</button>
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
// The package's view module this View goes with (a widget loads the two together).
export { optimizers as view } from 'softscope/views/optimizers';
