// The Language view: a tiny GPT trained live per normalizer (1-4 side by
// side on the same batches), then validated, inspected for attention sinks,
// made to generate through the registry's decoding stages and quantized. The
// controls come from the schema (the generic Field controls); over the figure
// stand TensorFlow-Playground-style run controls (play/pause, a single step,
// reset, the step counter, tokens per second and a progress bar: the layout's
// `actions`, shown by a widget even with controls="none"). Training runs in
// the Web Worker of useRunner (web/src/runner/): the main thread only draws
// the data it posts.
//   - the run key changed (state/schema.js runKey): the run ends and the
//     figure empties ("press Train"); a display field (the run shown, layer,
//     head, the generation's prompt, length, stages and seed, the step whose
//     candidates are drawn) goes to the running worker, which keeps its
//     models and redoes only the generation or the inspection
//   - corpus 'text': the text is pasted or opened here (UTF-8, at most
//     LANGUAGE_LIMITS.textChars characters) and goes to the worker beside the
//     state, never into the state or the address
//   - Save weights: the shown run's model file (the view's worker call
//     'save') as a download; Open weights: a model file run in the worker
//     (the view's worker start 'open', views/language/opened.js) that then
//     generates without training; a bad file gives a notice
//   - a widget with model="file.ssm" opens that file the same way at once,
//     and with results="run.json" draws that file's curves and measures, the
//     model's live generation in place of the file's
// Nothing from a file reaches the DOM as markup: texts are text nodes, the
// figure writes them as SVG text.
import { useEffect, useRef, useState } from 'preact/hooks';
import { decodeStages, LANGUAGE_LIMITS } from 'softscope/analysis';
import { runKey } from 'softscope/state';
import { useRunner } from '../../runner/useRunner.js';
import { Fields, Field, shown } from '../../controls/Field.jsx';
import { StageRow } from '../../components/StageRow.jsx';

const PHASE = { train: 'training', evaluate: 'validating and measuring every length', inspect: 'inspecting the attention',
  generate: 'generating', quantize: 'quantizing the weights', done: 'done' };
const n0 = (x) => Math.round(x).toLocaleString('en-US');
const live = (r) => r.error === null && r.diverged === null;

// The data with sel (an index into runs) of the state's sel (a normalizer's name; null: `fallback`, else the first).
function withSel(d, s, fallback) {
  const i = d.runs.findIndex((r) => r.name === (s.sel ?? fallback ?? d.runs[0]?.name));
  return i < 0 || i === d.sel ? d : { ...d, sel: i };
}

// A results file's data with a model's live generation in place of the generation of the model's run (its
// normalizer's): { data, problem }.
function withModel(file, model) {
  const m = model.runs[0];
  const i = file.runs.findIndex((r) => r.name === m.name);
  if (i < 0) return { data: model, problem: `the model is of ${m.name}; the results file has no run of it: the model alone is drawn` };
  const runs = file.runs.map((r, j) => (j === i ? { ...r, generation: m.generation } : r));
  return { data: { ...file, runs, decoding: model.decoding, prompt: model.prompt, genSeed: model.genSeed, genStep: model.genStep }, problem: null };
}

// A file's text: { text } or { error } (UTF-8, not empty, at most LANGUAGE_LIMITS.textChars characters).
async function readText(file) {
  const max = LANGUAGE_LIMITS.textChars;
  if (file.size > 4 * max) return { error: `${file.name} is ${n0(file.size)} bytes: more than ${n0(max)} characters` };
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch (e) {
    return { error: e instanceof TypeError ? `${file.name} is not UTF-8 text` : `${file.name} could not be read: ${e?.message ?? e}` };
  }
  return textProblem(text, file.name);
}
function textProblem(text, name) {
  if (!text.length) return { error: `${name} is empty` };
  if (text.length > LANGUAGE_LIMITS.textChars) return { error: `${name} has ${n0(text.length)} characters: at most ${n0(LANGUAGE_LIMITS.textChars)}` };
  return { text };
}

function download(bytes, name) {
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// The text to train on (corpus 'text'): a textarea to paste into and a file to open; a file's text is shown as a
// preview (a text node), not put in the textarea.
function TextInput({ text, setText, note, setNote }) {
  const pasted = text.source === 'pasted' ? text.value : '';
  const symbols = text.value ? new Set(text.value).size : 0;
  return (
    <div class="lm-text" data-text-input>
      <label class="text-field" for="language-text">
        <span>your text <span class="muted">(UTF-8, at most {n0(LANGUAGE_LIMITS.textChars)} characters; the last 10 % validates)</span></span>
        <textarea id="language-text" rows={4} spellcheck={false} value={pasted}
          placeholder={text.source === 'file' ? `${text.name}: opened (type here to paste a text instead)` : 'paste a text here, or open a file'}
          onInput={(e) => {
            const r = textProblem(e.currentTarget.value, 'the pasted text');
            if (r.error && e.currentTarget.value.length) { setNote(r.error); return; }
            setNote(null);
            setText({ value: e.currentTarget.value, source: 'pasted', name: null });
          }} />
      </label>
      <div class="lm-files">
        <label for="language-text-file">open a text file</label>
        <input id="language-text-file" type="file" accept=".txt,text/plain" data-text-file onChange={async (e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (!f) return;
          const r = await readText(f);
          if (r.error) { setNote(r.error); return; }
          setNote(null);
          setText({ value: r.text, source: 'file', name: f.name });
        }} />
      </div>
      {text.value && (
        <p class="help" data-text-size={text.value.length}>
          {text.source === 'file' ? text.name : 'pasted'}: {n0(text.value.length)} characters, {n0(symbols)} distinct
          {symbols > LANGUAGE_LIMITS.symbols ? ` (more than ${LANGUAGE_LIMITS.symbols}: its UTF-8 bytes are the tokens)` : ' (each is a token, and BOS)'}
        </p>
      )}
      {text.source === 'file' && <pre class="preview" data-text-preview>{text.value.slice(0, 600)}</pre>}
      {note && <p class="error" role="alert" data-text-error>{note}</p>}
    </div>
  );
}

export function LanguageView({ ss, v, state: s, set, colors, controls, Layout, results = null, model = null }) {
  const [text, setText] = useState({ value: '', source: null, name: null });
  const [textNote, setTextNote] = useState(null);
  const [fileNote, setFileNote] = useState(null); // a save's or an open's problem
  const [saving, setSaving] = useState(false);
  const kinds = useRef(new Map()); // run -> { via: 'train' } | { via: 'open', from: 'file' | 'attribute', name }
  const attrDone = useRef(null); // the model="…" bytes opened (or tried) since the last reset
  const key = runKey(v.schema, s);
  const textKey = s.corpus === 'text' ? `${text.value.length}|${text.name}|${text.value.slice(0, 64)}` : '';

  const saveAs = useRef(null); // the file name of the model file asked for
  function onMessage(m) {
    const kind = kinds.current.get(m.run);
    if (m.id === 'save') {
      setSaving(false);
      if (m.type === 'reply') download(m.value.bytes, saveAs.current);
      else setFileNote(`Save weights: ${m.message}`);
    } else if (m.type === 'started' && kind?.via === 'open') {
      setFileNote(null);
      // a file opened here: the state takes the model's shape (Train then trains that model again); the run is of it
      if (kind.from === 'file') { set(statePatch(m.info.options)); runner.adopt(); }
    } else if (m.type === 'error' && m.about === 'start' && kind?.via === 'open') {
      // (the run or model the worker had stays)
      if (kind.from === 'attribute') model?.problem?.(m.message);
      else setFileNote(`${kind.name ?? 'the model file'}: ${m.message}`);
    }
  }
  const runner = useRunner(v, ss, s, { worker: true, input: s.corpus === 'text' ? { text: text.value } : undefined, inputKey: textKey, onMessage });
  const kind = kinds.current.get(runner.run);
  const idle = runner.status === 'idle';
  const trained = kind?.via === 'train' && !idle ? runner.data : null;
  const opened = kind?.via === 'open' && !idle && runner.data ? { data: runner.data, name: kind.name, from: kind.from, steps: runner.info?.steps } : null;
  const busy = kind?.via === 'open' && runner.status === 'starting' ? 'load' : saving ? 'save' : null;
  const run = { status: kind?.via === 'train' || runner.status === 'error' ? runner.status : 'idle', error: runner.error };

  const reset = () => { runner.reset(); setSaving(false); attrDone.current = null; };
  const begin = (opts) => {
    if (s.corpus === 'text' && !text.value) { setTextNote('corpus text: paste a text or open a file first'); return; }
    setFileNote(null);
    kinds.current.set(runner.restart(opts), { via: 'train' });
  };
  const canContinue = run.status === 'paused' && trained;
  const onPlay = () => (canContinue ? runner.play(true) : begin({ play: true }));
  const onPause = () => runner.play(false);
  const onStep = () => (canContinue ? runner.step() : begin({ play: false, step: true }));
  // (the worker ends its run only when the file opens: a bad file leaves the run as it was)
  const openModel = (bytes, from, name) => {
    setFileNote(null);
    kinds.current.set(runner.restart({ via: 'open', play: false, input: { bytes }, transfer: [bytes.buffer] }), { via: 'open', from, name });
  };
  const shownName = (d) => d?.runs?.[d.sel ?? 0]?.name;
  const save = () => {
    setSaving(true);
    setFileNote(null);
    saveAs.current = `softscope-language-${shownName(trained ? withSel(trained, s) : opened?.data)}.ssm`;
    runner.call('save');
  };

  // model="file.ssm" (a widget): opened once its bytes are here, for the state it was given with
  const attrKey = useRef(null);
  useEffect(() => {
    // (a results file sets the widget's state once read: the model is of that state)
    if (!model?.bytes || results?.loading || (attrKey.current === null && results?.data && runKey(v.schema, results.state) !== key)) return;
    attrKey.current ??= key;
    if (attrKey.current !== key || attrDone.current === model.bytes || opened || trained || run.status !== 'idle' || busy) return;
    attrDone.current = model.bytes;
    openModel(model.bytes.slice(), 'attribute', model.url);
  }, [model?.bytes, results, key, opened, trained, run.status, busy]);

  // what is drawn: a training's numbers, else a model's (on a results file's, when both are given), else the file's
  const fromFile = results?.data && runKey(v.schema, results.state) === key ? results.data : null;
  let base = trained, mergeProblem = null;
  if (!base && opened?.data) {
    if (fromFile && opened.from === 'attribute') ({ data: base, problem: mergeProblem } = withModel(fromFile, opened.data));
    else base = opened.data;
  }
  if (!base && run.status === 'idle' && !busy) base = fromFile;
  const modelName = opened?.data?.runs?.[0]?.name;
  const data = base && withSel(base, s, modelName);
  const running = run.status === 'running' || run.status === 'starting';
  const status = trained ? run.status : opened?.data ? 'model' : busy === 'load' || model?.loading ? 'loading'
    : fromFile && run.status === 'idle' ? 'results' : results?.loading && run.status === 'idle' ? 'loading' : run.status;
  const pct = status === 'done' || status === 'results' || status === 'model' ? 100 : data ? Math.round(100 * Math.min(1, Math.max(0, data.progress ?? 0))) : 0;
  const runs = trained?.runs ?? [];
  const stepNow = runs.length ? Math.min(...runs.filter(live).map((r) => r.step).concat(runs.length && runs.every((r) => !live(r)) ? [0] : [])) : 0;
  const rates = runs.map((r) => r.tokensPerSecond).filter((x) => Number.isFinite(x));
  const rate = rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : null;
  const canSave = runner.hasWorker && !busy && ((trained && runs.some((r) => r.step > 0)) || !!opened?.data);

  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'language', controls };
  const any = (keys) => keys.some((k) => shown(controls, k));
  const group = (title, keys, grid = true) => any(keys) && (
    <>
      <h2>{title}</h2>
      {grid ? <div class="field-grid"><Fields {...common} keys={keys} /></div> : <Fields {...common} keys={keys} />}
    </>
  );
  const field = (k) => v.schema.fields.find((f) => f.key === k);
  const selOptions = data?.runs?.map((r) => r.name) ?? s.normalizers;
  // (values and keys: Bigram-Backcopy's only)
  const CORPUS = ['corpus', 'values', 'keys'].filter((k) => field(k).when?.(s) ?? true);
  const MODEL = ['d', 'heads', 'layers', 'context', 'positions', 'norm', 'tied', 'mlp'];
  const TRAINING = ['steps', 'batch', 'seed'];
  const stages = decodeStages(ss);
  const dec = data?.decoding;
  const stageShown = stages.filter((k) => shown(controls, 'on') || shown(controls, 'stages') || shown(controls, k.name));
  const vocabN = Number.isInteger(data?.vocab) ? data.vocab - 1 : 256;

  const fileControls = (
    <div class="lm-files" data-model-files>
      <button type="button" onClick={save} disabled={!canSave} data-save title="download the shown run's weights as a model file (.ssm)">Save weights</button>
      <label for="language-model-file">open weights</label>
      <input id="language-model-file" type="file" accept=".ssm,application/octet-stream" data-model-file onChange={async (e) => {
        const f = e.currentTarget.files?.[0];
        e.currentTarget.value = '';
        if (!f) return;
        if (f.size > LANGUAGE_LIMITS.fileBytes) { setFileNote(`${f.name}: ${n0(f.size)} bytes, more than a model file holds (${n0(LANGUAGE_LIMITS.fileBytes)})`); return; }
        openModel(new Uint8Array(await f.arrayBuffer()), 'file', f.name);
      }} />
      {busy === 'load' && <span class="muted" role="status">opening…</span>}
      {opened && <span class="muted" data-opened={opened.name}>{opened.name}: {modelName}, trained {n0(opened.steps ?? 0)} steps; it generates here without training</span>}
      {fileNote && <p class="error" role="alert" data-file-error>{fileNote}</p>}
    </div>
  );

  return (
    <div data-language-status={status}>
      <Layout data={data} complete={!!data && !running && status !== 'paused'}
        placeholder={(
          <div class="figure-placeholder" data-placeholder>
            <p>{running ? 'loading the model…' : status === 'loading' ? 'loading…'
              : 'Press Train (▶): a tiny GPT trains here per normalizer, in a Web Worker, with live loss curves; then its validation loss, its attention sinks, a generated text through the decoding stages, and its loss after quantisation. Step trains a few steps at a time.'}</p>
          </div>
        )}
        caption={(
          <div class="caption">
            <p>
              <b>Language</b>: a small causal transformer (token embedding, positions, pre-norm attention layers whose attention
              normalizer is the one chosen, a GELU MLP, an unembedding) trained in this page by the library's C kernels in WebAssembly,
              one model per normalizer on the same batches and seed, to predict each next token of the corpus.
            </p>
            <dl class="defs">
              <dt>loss</dt><dd>: the mean cross-entropy of the next token, in nats per token (bits: nats / ln 2); training loss is the batches', validation loss the held-out windows'.</dd>
              <dt>tokens/s</dt><dd>: tokens trained on (steps × batch × context) per second of that run's own training time.</dd>
              <dt>BOS mass</dt><dd>: the mean attention weight on BOS (position 0) of the queries at positions ≥ 1.</dd>
              <dt>sink</dt><dd>: a head whose (non-trigger) queries put more than 0.3 on BOS.</dd>
              <dt>dormant</dt><dd>: on Bigram-Backcopy, a head that parks its weight on BOS after non-trigger tokens, where it has nothing to copy (Guo et al. 2024); after a trigger it is active: it copies the token before the trigger.</dd>
            </dl>
          </div>
        )}
        actions={(
          <div class="perf-run" data-run-controls>
            {running
              ? <button type="button" class="primary" onClick={onPause} data-pause aria-label="pause">⏸ Pause</button>
              : <button type="button" class="primary" onClick={onPlay} data-train aria-label={canContinue ? 'continue' : 'train'}>
                {canContinue ? '▶ Continue' : run.status === 'done' ? '▶ Train again' : '▶ Train'}</button>}
            <button type="button" onClick={onStep} disabled={running || run.status === 'done'} data-step title="train every run one slice (10 steps), then pause">Step</button>
            <button type="button" onClick={reset} disabled={run.status === 'idle' && !trained && !opened} data-reset title="end the run and empty the figure">Reset</button>
            <span class="step-count" data-step-count={trained ? stepNow : ''} title="training steps every run has done (of the state's steps)">
              {trained ? `step ${n0(stepNow)} / ${n0(trained.steps)}` : opened ? `trained ${n0(opened.steps ?? 0)} steps` : 'step 0'}
            </span>
            <div class="progress" role="progressbar" aria-label="training progress" aria-valuemin="0" aria-valuemax="100" aria-valuenow={pct}>
              <div class="progress-bar" style={{ width: `${pct}%` }} />
            </div>
            <p class="muted status" role="status" aria-live="polite" data-status={status}>
              {running && (trained ? `${PHASE[trained.phase] ?? trained.phase}…` : 'loading the model…')}
              {status === 'paused' && `paused (${PHASE[trained?.phase] ?? 'training'})`}
              {status === 'done' && trained && 'done'}
              {rate !== null && <span data-tokens-per-second={Math.round(rate)} title="tokens trained on per second of training, the mean of the runs">{` · ${n0(rate)} tokens/s`}</span>}
              {status === 'results' && 'trained earlier: the numbers of the results file (Train runs it again here)'}
              {status === 'model' && (mergeProblem ?? (fromFile && opened?.from === 'attribute' ? 'the results file\u2019s numbers; the text is generated live by the model file' : 'a model file: generated live, without training'))}
            </p>
            {run.status === 'error' && <p class="error" role="alert" data-run-error>{run.error}</p>}
            {(shown(controls, 'corpus') || s.corpus === 'text') && s.corpus === 'text' && (
              <TextInput text={text} setText={(t) => { setText(t); setTextNote(null); }} note={textNote} setNote={setTextNote} />
            )}
            {fileNote && controls !== 'all' && <p class="error" role="alert" data-file-error>{fileNote}</p>}
          </div>
        )}
        input={any([...CORPUS, 'normalizers', 'trainNorm', ...MODEL, ...TRAINING, 'quantizers']) && (
          <div class="card">
            <div class="card-head"><h2>Model and data</h2></div>
            <Fields {...common} keys={CORPUS} />
            <Fields {...common} keys={['normalizers', 'trainNorm']} />
            {/* each normalizer's own parameters (ssmax.s=0.43): their starting values when trainNorm trains them */}
            {s.normalizers.filter((name) => ss.kernel(name, 'normalizer')?.params.length).map((name) => (
              <Field key={name} f={{ ...field('normParams'), current: () => name }} {...common} />
            ))}
            {group('Model', MODEL)}
            {group('Training', TRAINING)}
            <Fields {...common} keys={['quantizers']} />
          </div>
        )}
        side={(
          <div class="optim-hyper">
            {any(['prompt', 'length', 'genSeed', 'genStep', 'on', 'stages', ...stages.map((k) => k.name)]) && <h2>Generate</h2>}
            <Fields {...common} keys={['prompt', 'length']} />
            {stageShown.length > 0 && (
              <div class="stages" role="group" aria-label="decoding stages">
                {stageShown.map((k) => (
                  <StageRow key={k.name} k={k} s={s} idPrefix="language" n={vocabN} colors={colors} set={set}
                    row={dec?.values && Number.isFinite(dec.values[k.name]) ? { value: dec.values[k.name] } : null}
                    slider={shown(controls, 'stages') || shown(controls, k.name)} />
                ))}
              </div>
            )}
            <Fields {...common} keys={['genSeed', 'genStep']} />
            {any(['sel', 'layer', 'head']) && <h2>Figure</h2>}
            {shown(controls, 'sel') && (
              <Field f={{ ...field('sel'), options: selOptions }} {...common} state={{ ...s, sel: selOptions.includes(s.sel) ? s.sel : selOptions[0] }} />
            )}
            <Fields {...common} keys={['layer', 'head']} />
            {controls === 'all' && (
              <>
                <h2>Weights</h2>
                {fileControls}
              </>
            )}
            {group('Optimizer', ['optimizer', 'schedule', 'warmup'], false)}
            <Fields {...common} keys={['params']} />
          </div>
        )} />
    </div>
  );
}
export default LanguageView;

// The state's training keys of a model file's options (the file opened in the page: Train then trains that model again).
function statePatch(o) {
  const patch = {};
  for (const k of ['corpus', 'd', 'heads', 'layers', 'context', 'positions', 'norm', 'tied', 'mlp', 'optimizer', 'schedule', 'batch', 'seed']) if (o[k] !== undefined) patch[k] = o[k];
  if (o.corpus === 'bigram_backcopy') Object.assign(patch, { values: o.values, keys: o.keys });
  if (typeof o.normalizer === 'string') patch.normalizers = [o.normalizer];
  patch.trainNorm = !!o.trainNormParams;
  if (Number.isInteger(o.steps)) patch.steps = o.steps;
  if (Number.isInteger(o.warmup)) patch.warmup = o.warmup;
  return patch;
}

// The package's view module this View goes with (a widget loads the two together): its display part (schema,
// figure, table, describe; no compute or start: the worker trains and generates), so the widget's bundle holds no
// training code.
export { languageDisplay as view } from 'softscope/views/language';
// A widget of this view opens a model file (model="file.ssm").
export const opensModel = true;
