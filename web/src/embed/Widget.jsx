// The widget: one view (schema, model, figure, controls) mounted in an
// author's page. Its state comes from the element's attributes (every key of
// the view's schema, or a pasted playground link in `state`); `controls`
// says which controls to show (none: a static figure); the figure fits the
// element's width and, unless `theme` is set, takes the light or dark theme
// of the page behind it (host-theme.js).
// What it cannot use (a bad attribute, a bad key of .state) it lists in a
// notice, as the playground does for a link.
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { settle } from 'softscope/state';
import { stateFromAttributes } from './attributes.js';
import { Notices } from '../components/Notices.jsx';
import { LiveSummary } from '../components/LiveSummary.jsx';
import { useWidth } from '../hooks.js';
import { useHostTheme } from './host-theme.js';
import { widgetOptions } from './options.js';

const Ctx = createContext(null);

// actions: what the view needs to be of any use, shown whatever `controls`
// says (the Performance view's Run button and progress bar).
// placeholder: what the figure's place shows without data (the experiments view before Train).
function WidgetLayout({ data, input, editor, side, figure = {}, below, actions, complete = true, placeholder = null }) {
  const { v, colors, theme, width, height, controls, host } = useContext(Ctx);
  host.drawn(data, complete);
  const Fig = v.Figure;
  const anyControls = controls === 'all' || controls.size > 0;
  return (
    <>
      {actions}
      {/* height: the figure's largest height; it is scaled down to fit (its proportions kept) */}
      <div class="figure" data-view-figure={v.id} data-complete={complete && data ? '1' : '0'}
        style={Number.isFinite(height) ? { '--figure-max-height': `${height}px` } : undefined}>
        {data ? <Fig data={data} colors={colors} theme={theme} width={Math.max(260, width)} {...figure} /> : placeholder}
      </div>
      {anyControls && (
        <div class="controls-area">
          {editor && <div class="editor-slot">{editor}</div>}
          {input}
          {side}
        </div>
      )}
      {anyControls && below}
      <LiveSummary v={v} data={data} complete={complete} />
    </>
  );
}


// A results file's { entries, state, data, notices } once read (results.js), { loading: true } before; null without one.
function useResults(ss, v, url) {
  const [results, setResults] = useState(null);
  const src = url?.trim();
  useEffect(() => {
    let live = !!src;
    setResults(src ? { loading: true } : null);
    if (live) import('./results.js').then((m) => m.loadResults(ss, v, src)).then((r) => live && setResults(r));
    return () => { live = false; };
  }, [ss, v, src]);
  return results;
}

// model="file.ssm": { bytes, url, problem(reason) } once fetched (model-file.js), { loading: true } before, { notices }
// when it cannot be; null without one. problem(): the View's report of a file its worker could not open.
function useModelFile(v, url) {
  const [file, setFile] = useState(null);
  const [problem, setProblem] = useState(null);
  const src = url?.trim();
  useEffect(() => {
    let live = !!src;
    setFile(src ? { loading: true } : null);
    setProblem(null);
    if (live) import('./model-file.js').then((m) => m.loadModelFile(v, src)).then((r) => live && setFile(r));
    return () => { live = false; };
  }, [v, src]);
  const notices = [...(file?.notices ?? []), ...(problem ? [{ key: 'model', value: src, reason: problem }] : [])];
  return file && { ...file, notices, problem: setProblem };
}

// assigned: the notices of the last .state assignment
export function Widget({ ss, v, attrs, host, assigned = [] }) {
  // the state follows the attributes when they change (not when the element re-renders)
  const attrsKey = JSON.stringify(attrs);
  // results="file.json": a file of numbers to draw (web/src/embed/results.js), its state under the attributes
  const results = useResults(ss, v, attrs.results);
  const model = useModelFile(v, attrs.model);
  const init = useMemo(() => stateFromAttributes(ss, attrs, v, results?.entries), [ss, v, attrsKey, results]);
  const options = useMemo(() => widgetOptions(ss, attrs, v), [ss, v, attrsKey]);
  const [state, setState] = useState(init.state);
  useEffect(() => setState(init.state), [init]);
  const notices = [...init.notices, ...options.notices, ...(results?.notices ?? []), ...(model?.notices ?? [])];
  useEffect(() => host.noticed(v, notices), [JSON.stringify(notices)]);
  const { controls, height } = options;
  const [ref, width] = useWidth(640);
  const theme = useHostTheme(options.theme, ref);
  const colors = useMemo(() => v?.colors(ss), [v, ss]);
  const set = (patch) => setState((s) => {
    const next = { ...s, ...(typeof patch === 'function' ? patch(s) : patch) };
    const fin = settle(v.schema, next, ss);
    host.changed(v, fin);
    return fin;
  });
  host.current(v, state);

  return (
    <div class={`widget theme-${theme}`} ref={ref} role="group" aria-label={`softscope: ${v.label}`} data-view={v.id} data-theme={theme}>
      <Notices notices={[...notices, ...assigned]} title="Ignored:" />
      <Ctx.Provider value={{ v, colors, theme, width, height, controls, host }}>
        <v.View key={v.id} ss={ss} v={v} state={state} set={set} colors={colors} controls={controls} theme={theme} Layout={WidgetLayout}
          results={results} model={model} />
      </Ctx.Provider>
    </div>
  );
}
