// The playground shell: loads the wasm module, keeps one state per view (each
// read and written by its view's schema), shows one view per tab, and keeps
// the address bar in step: a link holds only the shown view's keys; editing
// replaces the address, switching tabs pushes a new one (so Back returns to
// the previous view, inside the app).
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createSoftscope } from 'softscope';
import { parse, defaults, toHash, settle } from 'softscope/state';
import { embedSnippet, embedControls, movedKeys } from './lib/embedSnippet.js';
import { WEB_VIEWS } from './views/index.js';
import { BUILD_LABELS } from 'softscope/views/performance';
import { readHash, createHistory } from './state/location.js';
import { ExportBar, copyText } from './components/ExportBar.jsx';
import { Notices } from './components/Notices.jsx';
import { LiveSummary } from './components/LiveSummary.jsx';
import { useTheme, useWidth } from './hooks.js';
import { readSetting, writeSetting } from './lib/storage.js';

const IDS = WEB_VIEWS.map((v) => v.id);
const Ctx = createContext(null);

// The badge: the build the page's instance runs (ss.build), named as the
// Performance view names it.
const BUILD_TITLE = {
  relaxed: 'this browser runs WebAssembly relaxed SIMD: the relaxed build',
  simd: 'this browser runs WebAssembly SIMD128: the SIMD build',
  scalar: 'no SIMD128 here: the scalar build',
};

function linkFor(hash) {
  return `${location.href.split('#')[0]}#${hash}`;
}

// The widget offers the controls moved on this tab since its link was read.
function EmbedButton() {
  const { ss, v, state, moved } = useContext(Ctx);
  const [said, setSaid] = useState('');
  return (
    <>
      <button type="button" title="copy a <softscope-widget> for this view and state, with the controls you moved" onClick={async () => {
        const controls = embedControls(v, moved);
        const ok = await copyText(embedSnippet(v, state, ss, location.href.split('#')[0], controls));
        setSaid(!ok ? 'copy failed' : `widget snippet copied: ${controls.length ? `controls="${controls.join(',')}"` : 'a still figure (controls="none"; move a control to offer it)'}`);
        setTimeout(() => setSaid(''), 4000);
      }}>Embed</button>
      <span class="muted export-said" role="status" aria-live="polite">{said}</span>
    </>
  );
}

// The skip links' targets (focused, not followed: the address holds the state).
const SKIP = { figure: 'view-figure', controls: 'view-controls' };

/**
 * The tab's layout of a view's parts: the figure column (actions, the figure, what goes under it, the export bar;
 * then the view's editor of the figure's input, and the caption) and the controls column (input, then side). At
 * desktop widths the two stand side by side, the controls column sticky and scrolling on its own, so the figure
 * and the control being moved share the first screen; on a narrow screen the figure comes first. placeholder: what
 * the figure's place shows without data (the experiments view before Train).
 */
function TabLayout({ data, caption, input, editor, side, figure = {}, below, actions, complete = true, placeholder = null }) {
  const { ss, v, state, theme, colors } = useContext(Ctx);
  const [ref, width] = useWidth(720);
  const Fig = v.Figure;
  const hash = toHash(v.schema, state, ss);
  return (
    <div class="tab-grid">
      <div class="figure-col" id={SKIP.figure} tabIndex={-1}>
        <h2 class="sr-only">{v.label}: the figure</h2>
        <div class="card figure-card" ref={ref}>
          {actions}
          <div class="figure" data-view-figure={v.id} data-complete={complete && data ? '1' : '0'}>
            {data ? <Fig data={data} colors={colors} theme={theme} width={Math.max(280, width)} {...figure} /> : placeholder}
          </div>
          {below}
          <LiveSummary v={v} data={data} complete={complete} />
          {data && <ExportBar ss={ss} view={v} state={state} data={data} theme={theme} link={() => linkFor(hash)} extra={<EmbedButton />} />}
        </div>
        {editor}
        {caption}
      </div>
      <div class="controls-col" id={SKIP.controls} tabIndex={-1} role="region" aria-label={`${v.label} controls`}>
        {input}
        {side && <div class="card side-card controls-card">{side}</div>}
      </div>
    </div>
  );
}

function SkipLink({ to, children }) {
  return (
    <a class="skip-link" href={`#${to}`} onClick={(e) => { e.preventDefault(); document.getElementById(to)?.focus(); }}>{children}</a>
  );
}

export function App() {
  const [ss, setSs] = useState(null);
  const [loadError, setLoadError] = useState(null);
  const [route, setRoute] = useState(() => readHash(location.hash, IDS));
  const [active, setActive] = useState(route.view ?? IDS[0]);
  const [states, setStates] = useState({});
  const [notices, setNotices] = useState([]);
  const [themeSetting, setThemeSetting] = useState(() => readSetting('softscope-theme') ?? 'auto');
  const theme = useTheme(themeSetting);
  const history = useRef(null);
  if (!history.current) history.current = createHistory(200);
  const moved = useRef({}); // per view: the state keys moved since its link was read (the Embed button's controls)

  useEffect(() => {
    createSoftscope({ impl: 'auto' }).then(setSs, (e) => setLoadError(e));
  }, []);

  // A link read (at load, or when the address changes by Back / a pasted
  // hash): that view's state comes from it, the others keep theirs.
  useEffect(() => {
    if (!ss) return;
    const v = WEB_VIEWS.find((x) => x.id === (route.view ?? IDS[0]));
    const { state, notices: n } = parse(v.schema, route.entries, ss);
    setStates((all) => ({ ...all, [v.id]: state }));
    moved.current[v.id] = new Set();
    setActive(v.id);
    setNotices(route.unknownView ? [{ key: 'view', value: route.unknownView, reason: `not one of ${IDS.join(', ')}` }, ...n] : n);
  }, [ss, route]);

  useEffect(() => {
    const onNav = () => {
      history.current.cancel(); // a slider's pending address edit must not overwrite the link just opened
      setRoute(readHash(location.hash, IDS));
    };
    addEventListener('popstate', onNav);
    addEventListener('hashchange', onNav);
    return () => { removeEventListener('popstate', onNav); removeEventListener('hashchange', onNav); };
  }, []);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    writeSetting('softscope-theme', themeSetting);
  }, [theme, themeSetting]);

  const v = WEB_VIEWS.find((x) => x.id === active);
  // The view mounts with its link's state (read above), never first with the
  // defaults: a race or a sweep would start from them.
  const state = ss ? states[active] ?? null : null;
  const colors = useMemo(() => (ss ? v.colors(ss) : null), [ss, active]);

  // The address follows the shown view's state.
  useEffect(() => {
    if (ss && state) history.current.replace(toHash(v.schema, state, ss));
  }, [ss, state, active]);

  const set = (patch) => setStates((all) => {
    const cur = all[active] ?? defaults(v.schema, ss);
    const p = typeof patch === 'function' ? patch(cur) : patch;
    for (const k of movedKeys(cur, p)) (moved.current[active] ??= new Set()).add(k);
    const next = { ...cur, ...p };
    return { ...all, [active]: settle(v.schema, next, ss) };
  });

  const openTab = (id) => {
    if (id === active) return;
    const w = WEB_VIEWS.find((x) => x.id === id);
    const st = states[id] ?? defaults(w.schema, ss);
    setStates((all) => ({ ...all, [id]: st }));
    setActive(id);
    setNotices([]);
    history.current.push(toHash(w.schema, st, ss));
  };

  // The ARIA tab pattern: arrow keys move between tabs, Home / End to the ends.
  const onTabKey = (e) => {
    const i = IDS.indexOf(active);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: IDS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const id = IDS[(to + IDS.length) % IDS.length];
    openTab(id);
    document.getElementById(`tab-${id}`)?.focus();
  };

  return (
    <div class="app">
      <header class="masthead">
        <SkipLink to={SKIP.figure}>Skip to the figure</SkipLink>
        <SkipLink to={SKIP.controls}>Skip to the controls</SkipLink>
        <h1>softscope</h1>
        <div class="tabs" role="tablist" aria-label="views" onKeyDown={onTabKey}>
          {WEB_VIEWS.map((t) => (
            <button key={t.id} id={`tab-${t.id}`} role="tab" type="button" aria-selected={active === t.id} aria-controls={`panel-${t.id}`}
              tabIndex={active === t.id ? 0 : -1} class={active === t.id ? 'tab active' : 'tab'} onClick={() => openTab(t.id)}>
              {t.label}
            </button>
          ))}
        </div>
        <div class="masthead-side">
          {ss && (
            <p class="build" data-impl={ss.impl} data-build={ss.build} title={BUILD_TITLE[ss.build]}>
              <span class="badge">wasm {BUILD_LABELS[ss.build]}</span> v{ss.version}
            </p>
          )}
          <label class="inline theme-toggle" for="theme">theme{' '}
            <select id="theme" value={themeSetting} onChange={(e) => setThemeSetting(e.currentTarget.value)}>
              <option value="auto">auto</option><option value="light">light</option><option value="dark">dark</option>
            </select>
          </label>
        </div>
      </header>
      <main>
        {loadError && <p class="error" role="alert">Could not load the WebAssembly module: {String(loadError.message || loadError)}</p>}
        {!ss && !loadError && <p class="loading">Loading the kernels…</p>}
        <Notices notices={notices} onDismiss={() => setNotices([])} />
        {ss && state && (
          <section class="panel" role="tabpanel" id={`panel-${active}`} aria-labelledby={`tab-${active}`} data-view={active}>
            <Ctx.Provider value={{ ss, v, state, theme, colors, moved: [...(moved.current[active] ?? [])] }}>
              <v.View key={active} ss={ss} v={v} state={state} set={set} colors={colors} controls="all" theme={theme} Layout={TabLayout} />
            </Ctx.Provider>
          </section>
        )}
      </main>
      <footer class="foot muted">
        <b>softscope</b>: softmax and its relatives, computed live by C kernels compiled to WebAssembly. The state lives in the address: copy the link to share exactly this view. Kernel names, formulas, papers and parameter
        ranges come from the library's registry.
      </footer>
    </div>
  );
}
