// The Experiments view: a tiny attention model trained live, 1-4 normalizers
// side by side on the same data and seed. The controls (task, normalizers,
// model size, optimizer and its hyperparameters, schedule, steps, test and
// quantisation) set the state; Train, Stop and a progress bar stand over the
// figure (the layout's `actions`: a widget shows them even with
// controls="none"). Training runs in the Web Worker of useRunner (the
// view's stepper): the main thread only draws the data it posts, so the page
// keeps painting. Stop holds the run and keeps its last numbers, marked
// stopped; a state of another run key (state/schema.js runKey) ends the run
// and empties the figure ("press Train"); a display field (sel: whose
// attention map and head measures) only redraws.
// A widget with results="file.json" draws that file's numbers (checked
// against the view's dataShape) until its state changes or Train is pressed.
import { Fields, Field, shown } from '../../controls/Field.jsx';
import { runKey } from 'softscope/state';
import { useRunner } from '../../runner/useRunner.js';

// The data with sel (an index into runs) of the state's sel (a normalizer's name; null: the first).
function withSel(d, s) {
  const i = d.runs.findIndex((r) => r.name === (s.sel ?? s.normalizers[0]));
  return i < 0 || i === d.sel ? d : { ...d, sel: i };
}

const stepsDone = (d) => Math.max(0, ...d.runs.map((r) => r.step ?? 0));
const PHASE = { train: 'training', test: 'testing every length', quantize: 'quantizing the weights', done: 'finishing' };

export function ExperimentsView({ ss, v, state: s, set, colors, controls, Layout, results = null }) {
  const runner = useRunner(v, ss, s, { worker: true });
  // (Stop pauses the worker's run: its last numbers stay, marked stopped)
  const run = { status: runner.status === 'starting' ? 'running' : runner.status === 'paused' ? 'stopped' : runner.status,
    error: runner.error, ms: runner.wallMs };
  const trained = runner.status === 'idle' ? null : runner.data;
  const train = () => runner.restart();
  const stop = () => runner.play(false);

  // the file's numbers while the state is the file's and nothing was trained
  const fromFile = !trained && run.status === 'idle' && results?.data && runKey(v.schema, results.state) === runKey(v.schema, s) ? results.data : null;
  const base = trained ?? fromFile;
  const data = base && withSel(base, s);
  const running = run.status === 'running';
  const status = fromFile ? 'results' : results?.loading && run.status === 'idle' ? 'loading' : run.status;
  const pct = run.status === 'done' || fromFile ? 100 : data ? Math.round(100 * Math.min(1, Math.max(0, data.progress ?? 0))) : 0;
  const steps = data ? `step ${stepsDone(data).toLocaleString('en-US')} of ${data.steps.toLocaleString('en-US')}` : '';

  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'experiments', controls };
  const any = (keys) => keys.some((k) => shown(controls, k));
  const group = (title, keys, grid = true) => any(keys) && (
    <>
      <h2>{title}</h2>
      {grid ? <div class="field-grid"><Fields {...common} keys={keys} /></div> : <Fields {...common} keys={keys} />}
    </>
  );
  const selField = v.schema.fields.find((f) => f.key === 'sel');
  const normField = v.schema.fields.find((f) => f.key === 'normParams');
  const TASK = ['task', 'values', 'keys'];
  const MODEL = ['d', 'heads', 'layers', 'positions', 'mlp'];
  const TRAINING = ['steps', 'batch', 'trainMax', 'seed'];
  const TEST = ['testMax', 'examples', 'mapN'];

  return (
    <div data-experiments-status={status}>
      <Layout data={data} complete={!!data && !running}
        placeholder={(
          <div class="figure-placeholder" data-placeholder>
            <p>{running ? 'loading the model…' : status === 'loading' ? 'loading the results…'
              : 'Press Train: the model trains here, in a Web Worker, with live loss and accuracy curves; then the test at every length, the attention map and the quantisation panel.'}</p>
          </div>
        )}
        caption={(
          <p class="caption">
            <b>Experiments</b>: a tiny attention model (embeddings, one or two attention layers, an optional MLP) trained in this page by
            the library's C kernels in WebAssembly, one model per normalizer on the same batches and seed. Live: training loss and accuracy
            against the step. Then the trained models at test lengths past the training length (accuracy and attention entropy against n),
            the attention map of a test example by layer and head with each head's sink rate, kurtosis and max/median, and the accuracy
            after post-training quantisation of the weights against bits.
          </p>
        )}
        actions={(
          <div class="perf-run">
            <button type="button" class="primary" onClick={train} disabled={running} data-train>{run.status === 'done' ? 'Train again' : 'Train'}</button>
            {running && <button type="button" data-stop onClick={stop}>Stop</button>}
            <div class="progress" role="progressbar" aria-label="training progress" aria-valuemin="0" aria-valuemax="100" aria-valuenow={pct}>
              <div class="progress-bar" style={{ width: `${pct}%` }} />
            </div>
            <p class="muted status" role="status" aria-live="polite" data-status={status}>
              {running && (data ? `${PHASE[data.phase] ?? data.phase}… ${steps}` : 'loading the model…')}
              {run.status === 'done' && `done in ${(run.ms / 1000).toFixed(1)} s`}
              {run.status === 'stopped' && (data ? `stopped at ${steps}` : 'stopped')}
              {status === 'results' && 'trained earlier: the numbers of the results file (Train runs it again here)'}
            </p>
            {run.status === 'error' && <p class="error" role="alert">{run.error}</p>}
          </div>
        )}
        input={any([...TASK, 'normalizers', 'trainNorm', ...MODEL, ...TRAINING, ...TEST, 'quantizers']) && (
          <div class="card">
            <div class="card-head"><h2>Experiment</h2></div>
            <Fields {...common} keys={TASK} />
            <Fields {...common} keys={['normalizers', 'trainNorm']} />
            {/* each normalizer's own parameters (ssmax.s=0.43): their starting values when trainNorm trains them */}
            {s.normalizers.filter((name) => ss.kernel(name, 'normalizer')?.params.length).map((name) => (
              <Field key={name} f={{ ...normField, current: () => name }} {...common} />
            ))}
            {group('Model', MODEL)}
            {group('Training', TRAINING)}
            {group('Test', TEST)}
            <Fields {...common} keys={['quantizers']} />
          </div>
        )}
        side={(
          <div class="optim-hyper">
            {group('Optimizer', ['optimizer', 'schedule', 'warmup'], false)}
            <Fields {...common} keys={['params']} />
            {shown(controls, 'sel') && (
              <>
                <h2>Figure</h2>
                <Field f={{ ...selField, options: s.normalizers }} {...common} state={{ ...s, sel: s.sel ?? s.normalizers[0] }} />
              </>
            )}
          </div>
        )} />
    </div>
  );
}
export default ExperimentsView;
// The package's view module this View goes with (a widget loads the two together): its display part (schema,
// figure, table, describe; no compute or start: the worker trains), so the widget's bundle holds no training code.
export { experimentsDisplay as view } from 'softscope/views/experiments';
