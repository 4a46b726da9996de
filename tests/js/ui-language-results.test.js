// @vitest-environment happy-dom
// The Language widget's files, checked before anything draws them: a results
// file's data against the view's declared data shape (views/language/
// data-shape.js) — the view's own data passes, each field the figure reads
// broken (a name that is not a registry kernel, markup as a name, a string
// for a number, lists of unequal lengths or longer than a run writes, a map
// of the wrong size, a token text that is a paragraph) gives an Error naming
// that field's path, at once however large the list; the widget's
// loadResults turns it into a notice; a results file draws
// in the View with no worker, its strings as text; a model="…" file
// (web/src/embed/model-file.js) that cannot be fetched, is too large, or is
// given to another view gives a notice. And the 'text' field's control (the
// prompt) writes its value as text.
import { describe, it, expect, beforeAll, afterEach, vi } from 'vitest';
import { h, render } from 'preact';
import { createSoftscope } from 'softscope';
import { LANGUAGE_LIMITS } from '../../wasm/analysis/language.js';
import { view, parse, stateEntries, toHash, plain } from '../../wasm/views/index.js';
import { check } from '../../wasm/views/shape.js';
import LanguageView, { opensModel } from '../../web/src/views/language/View.jsx';
import { loadResults } from '../../web/src/embed/results.js';
import { loadModelFile, MAX_BYTES } from '../../web/src/embed/model-file.js';
import { Field } from '../../web/src/controls/Field.jsx';
import { WASM } from './support/wasm-paths.js';

const TINY = 'normalizers=softmax,softpick&d=16&heads=2&layers=1&context=16&batch=4&steps=20&quantizers=uniform&length=12';
let ss, v, shape, state, data;
beforeAll(async () => {
  ss = await createSoftscope({ wasm: WASM });
  v = view('language');
  shape = await v.dataShape();
  ({ state } = parse(v.schema, stateEntries(TINY), ss));
  data = JSON.parse(JSON.stringify(plain(v.compute(ss, state))));
});
afterEach(() => { vi.unstubAllGlobals(); document.body.innerHTML = ''; });

// the problem check finds in the data (null: none)
const resultsProblem = (d) => {
  try {
    check(shape, d, ss);
    return null;
  } catch (e) {
    return e.message;
  }
};
const broken = (edit) => { const d = structuredClone(data); edit(d); return resultsProblem(d); };

describe('the Language data shape on results files', () => {
  it('the view\'s own data passes: a run to its end, and a stepper\'s data before its first step', () => {
    expect(data.runs.every((r) => r.inspect && r.generation && r.quant.length)).toBe(true); // (every part checked)
    expect(resultsProblem(data)).toBe(null);
    const st = v.start(ss, state);
    try {
      expect(resultsProblem(JSON.parse(JSON.stringify(plain(st.data()))))).toBe(null);
    } finally {
      st.stop();
    }
  });

  it('names that are no kernel of this build, markup as a name, an unknown corpus, phase or stage', () => {
    expect(resultsProblem(null)).toBe('data is null');
    expect(broken((d) => { d.runs[0].name = '<img src=x onerror=alert(1)>'; })).toBe('data.runs[0].name "<img src=x onerror=alert(1)>" is not a normalizer of this build');
    expect(broken((d) => { d.runs[1].quant[0].quantizer = '<b>'; })).toBe('data.runs[1].quant[0].quantizer "<b>" is not a quantizer of this build');
    expect(broken((d) => { d.corpus = 'web'; })).toMatch(/^data\.corpus "web" is not one of grammar/);
    expect(broken((d) => { d.phase = 'dancing'; })).toMatch(/^data\.phase "dancing"/);
    expect(broken((d) => { d.decoding.on = ['beam']; })).toBe('data.decoding.on[0] "beam" is not a decoding stage of this build');
    expect(broken((d) => { d.runs[0].generation.steps[0].top[0].stages = { beam: 0.5 }; })).toBe('data.runs[0].generation.steps[0].top[0].stages key "beam" is not a decoding stage of this build');
    expect(broken((d) => { d.sel = 2; })).toBe('data: sel 2 is not the index of a run');
    expect(broken((d) => { d.runs = []; })).toBe('data.runs holds 0 items; at least 1 expected');
  });

  it('numbers that are strings or past float range, curves of unequal lengths, a map of the wrong size', () => {
    expect(broken((d) => { d.runs[0].curve.loss[0] = '1'; })).toBe('data.runs[0].curve.loss[0] is not a number');
    expect(broken((d) => { d.runs[0].val.loss = JSON.parse('[1e999]'); })).toBe('data.runs[0].val.loss[0] is not a number');
    expect(broken((d) => { d.runs[1].curve.seconds.pop(); })).toBe('data.runs[1].curve: step, seconds, loss differ in length');
    expect(broken((d) => { d.runs[0].valLoss = 'low'; })).toBe('data.runs[0].valLoss is not a number');
    expect(broken((d) => { d.runs[0].inspect.maps.pop(); })).toBe('data.runs[0].inspect: maps does not hold heads × n × n weights');
    expect(broken((d) => { d.runs[0].inspect.n = 4096; })).toBe('data.runs[0].inspect.n is 4096, outside [1, 128]');
    expect(broken((d) => { d.vocab = 1e308; })).toBe('data.vocab is 1e+308, outside [2, 257]');
    expect(broken((d) => { d.steps = 1e308; })).toMatch(/^data\.steps is 1e\+308, outside/);
  });

  it('lists longer than a run writes and texts longer than a token are refused at once (issue 38 R4/R5)', () => {
    const t0 = performance.now();
    expect(broken((d) => { d.runs[0].curve = { step: new Array(1e6).fill(1), seconds: new Array(1e6).fill(1), loss: new Array(1e6).fill(1) }; }))
      .toBe('data.runs[0].curve.step holds 1000000 items; a run writes at most 1000');
    expect(broken((d) => { d.runs[0].lengths[0].positionLoss = new Array(1e6).fill(1); })).toMatch(/positionLoss holds 1000000 items/);
    expect(broken((d) => { d.runs[0].generation.steps = new Array(1e5).fill(d.runs[0].generation.steps[0]); })).toMatch(/generation\.steps holds 100000 items/);
    expect(broken((d) => { d.runs[0].generation.steps[0].text = 'x'.repeat(1e6); })).toBe('data.runs[0].generation.steps[0].text is longer than 16 characters');
    expect(broken((d) => { d.example = [{ texts: new Array(1e6).fill('a'), trigger: [] }]; })).toMatch(/^data\.example\[0\]\.texts holds 1000000 items/);
    expect(broken((d) => { d.runs[0].normParams = Object.fromEntries(Array.from({ length: 1e5 }, (_, i) => [`k${i}`, 1])); })).toBe('data.runs[0].normParams holds 100000 keys; a run writes at most 16');
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('the View opens model files', () => {
    expect(opensModel).toBe(true);
  });
});

// fetch answering with `body` (a string or bytes) and these headers, or a status
const serve = (body, { status = 200, headers = {} } = {}) => vi.stubGlobal('fetch', vi.fn(async () => new Response(status === 200 ? body : 'no', { status, headers })));
const loaded = () => ({ ...v, opensModel: true });

describe('the widget\'s files (results.js, model-file.js)', () => {
  const file = () => ({ view: 'language', state: Object.fromEntries(stateEntries(toHash(v.schema, state, ss)).filter(([k]) => k !== 'view')), data: structuredClone(data) });

  it('a results file of the view is read with its state; a bad one is a notice naming the file and the field', async () => {
    serve(JSON.stringify(file()));
    const r = await loadResults(ss, loaded(), 'run.json');
    expect(r.notices).toEqual([]);
    expect(r.state).toEqual(state);
    expect(r.data).toEqual(data);
    const bad = file();
    bad.data.runs[0].name = '<script>alert(1)</script>';
    serve(JSON.stringify(bad));
    expect((await loadResults(ss, loaded(), 'bad.json')).notices).toEqual([{ key: 'results', value: 'bad.json',
      reason: 'not a results file of this version: data.runs[0].name "<script>alert(1)</script>" is not a normalizer of this build' }]);
  });

  it('a view whose data\'s shape is declared only in part (its nested parts by their type) reads no results file: a notice, nothing fetched', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    expect((await loadResults(ss, view('normalizers'), 'n.json')).notices).toEqual([{ key: 'results', value: 'n.json',
      reason: 'view normalizers draws from its state, not from a results file' }]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a model file: its bytes; a 404, a file past the limit or a view that opens none give a notice under `model`', async () => {
    expect(MAX_BYTES).toBe(LANGUAGE_LIMITS.fileBytes);
    serve(new Uint8Array([83, 83, 76, 77, 1]));
    const r = await loadModelFile(loaded(), 'm.ssm');
    expect(Array.from(r.bytes)).toEqual([83, 83, 76, 77, 1]);
    expect(r.notices).toEqual([]);
    serve('', { status: 404 });
    expect((await loadModelFile(loaded(), 'gone.ssm')).notices).toEqual([{ key: 'model', value: 'gone.ssm', reason: 'could not be fetched: HTTP 404' }]);
    serve('x', { headers: { 'content-length': String(MAX_BYTES + 1) } });
    expect((await loadModelFile(loaded(), 'big.ssm')).notices).toEqual([{ key: 'model', value: 'big.ssm', reason: 'larger than 64 MB' }]);
    expect((await loadModelFile({ ...view('sampling'), opensModel: false }, 'm.ssm')).notices[0].reason).toBe('view sampling does not open a model file (the language view does)');
  });
});

// the View as a widget mounts it: a plain layout that renders the actions and the figure
function mount(props) {
  const root = document.createElement('div');
  document.body.append(root);
  const box = {};
  const Layout = ({ data: d, actions, placeholder }) => { box.data = d; return h('div', null, actions, d ? h(v.Figure, { data: d, width: 900 }) : placeholder); };
  render(h(LanguageView, { ss, v, state, set: () => {}, colors: v.colors(ss), controls: new Set(), Layout, ...props }), root);
  return { root, box };
}
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('LanguageView with a results file', () => {
  it('draws the file\'s numbers without a worker; its strings are text', async () => {
    const Worker = vi.fn();
    vi.stubGlobal('Worker', Worker);
    const d = structuredClone(data);
    d.runs[0].generation.text = '<img id="injected" src=x onerror="window.pwned=1">';
    const { root, box } = mount({ results: { data: d, state } });
    await flush();
    expect(root.querySelector('[data-language-status]').dataset.languageStatus).toBe('results');
    expect(box.data.runs.map((r) => r.name)).toEqual(['softmax', 'softpick']);
    expect(root.querySelector('[data-view-figure], svg[data-figure="language"]')).not.toBe(null);
    expect(root.querySelector('#injected, img')).toBe(null);
    expect(root.querySelector('[data-generated]').textContent).toContain('<img id="injected"');
    expect(Worker).not.toHaveBeenCalled();
  });

  it('a file of another state is not drawn: the placeholder, press Train', async () => {
    const { root, box } = mount({ results: { data, state: { ...state, d: 32 } } });
    await flush();
    expect(box.data ?? null).toBe(null);
    expect(root.querySelector('[data-placeholder]')).not.toBe(null);
  });
});

describe('the text field (the prompt)', () => {
  it('a textarea of at most maxLength characters; its value is text, never markup', () => {
    const f = v.schema.fields.find((x) => x.key === 'prompt');
    const root = document.createElement('div');
    let got = null;
    render(h(Field, { f, state: { prompt: '<b id="bold">ROMEO:</b>' }, set: (p) => { got = p; }, ss, idPrefix: 'language' }), root);
    const ta = root.querySelector('textarea#language-prompt');
    expect(ta.maxLength).toBe(f.maxLength);
    expect(ta.value).toBe('<b id="bold">ROMEO:</b>');
    expect(root.querySelector('#bold')).toBe(null);
    ta.value = 'JULIET:';
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    expect(got).toEqual({ prompt: 'JULIET:' });
  });
});
