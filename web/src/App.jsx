// The playground shell: loads the wasm module, owns the one state object
// (mirrored in the URL hash), and shows the panel chosen in the tab bar.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createSoftscope } from 'softscope';
import { parseHash, createHashWriter, DEFAULT_NORMALIZERS } from './state/url.js';
import { availableMeasures } from './lib/metrics.js';
import { colorMap } from './lib/colors.js';
import { NormalizerPanel } from './panels/NormalizerPanel.jsx';
import { DispersionPanel } from './panels/DispersionPanel.jsx';
import { SamplingPanel } from './panels/SamplingPanel.jsx';
import { QuantPanel } from './panels/QuantPanel.jsx';
import { OptimPanel } from './panels/OptimPanel.jsx';
import { AttentionPanel } from './panels/AttentionPanel.jsx';

const TABS = [
  { id: 'normalizers', label: 'Normalizers' },
  { id: 'dispersion', label: 'Dispersion' },
  { id: 'sampling', label: 'Sampling' },
  { id: 'quantization', label: 'Quantization' },
  { id: 'optimizers', label: 'Optimizers' },
  { id: 'attention', label: 'Attention' },
];

/** Drops kernel names the registry does not know; falls back to defaults if none remain. */
function validNormalizers(requested, known) {
  const names = new Set(known.map((k) => k.name));
  const ok = requested.filter((n) => names.has(n));
  if (ok.length > 0 || requested.length === 0) return ok;
  const defaults = DEFAULT_NORMALIZERS.filter((n) => names.has(n));
  return defaults.length ? defaults : known.slice(0, 1).map((k) => k.name);
}

export function App() {
  const [ss, setSs] = useState(null);
  const [loadError, setLoadError] = useState(null);
  const [state, setState] = useState(() => parseHash(window.location.hash));
  const writer = useRef(null);
  if (!writer.current) writer.current = createHashWriter(200);

  useEffect(() => {
    createSoftscope({ impl: 'auto' }).then(setSs, (e) => setLoadError(e));
  }, []);

  // A hash typed or pasted by the user replaces the state (replaceState does not fire this).
  useEffect(() => {
    const onHash = () => setState(parseHash(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const normalizers = useMemo(() => (ss ? ss.kernels('normalizer') : []), [ss]);
  const have = useMemo(() => (ss ? availableMeasures(ss) : null), [ss]);
  const colors = useMemo(() => colorMap(normalizers.map((k) => k.name)), [normalizers]);

  // Once the registry is known, names from the URL are checked against it.
  const view = ss ? {
    ...state,
    normalizers: validNormalizers(state.normalizers, normalizers),
    // null (no key in the URL) stays null: the panel picks the registry's default.
    dispersion: {
      ...state.dispersion,
      normalizers: state.dispersion.normalizers && validNormalizers(state.dispersion.normalizers, normalizers),
    },
  } : state;

  useEffect(() => {
    if (ss) writer.current.write(view);
  });

  // patch: an object, or a function of the current state returning one (for
  // several updates between two renders, e.g. quick slider moves).
  const update = (patch) => setState((s) => ({
    ...s, normalizers: view.normalizers, dispersion: view.dispersion, ...(typeof patch === 'function' ? patch(s) : patch),
  }));

  return (
    <div class="app">
      <header class="masthead">
        <div>
          <h1>softscope</h1>
          <p class="tagline">softmax and its relatives, computed live by C kernels compiled to WebAssembly</p>
        </div>
        {ss && (
          <p class="build" data-impl={ss.impl} title={ss.simdSupported ? 'this browser runs WebAssembly SIMD128' : 'no SIMD128 here: scalar build'}>
            <span class="badge">{ss.impl === 'simd' ? 'wasm SIMD128' : 'wasm scalar'}</span> v{ss.version}
          </p>
        )}
      </header>
      <nav class="tabs" role="tablist">
        {TABS.map((t) => (
          <button key={t.id} id={`tab-${t.id}`} role="tab" type="button" aria-selected={view.panel === t.id}
            class={view.panel === t.id ? 'tab active' : 'tab'} onClick={() => update({ panel: t.id })}>
            {t.label}
          </button>
        ))}
      </nav>
      <main>
        {loadError && (
          <p class="error" role="alert">Could not load the WebAssembly module: {String(loadError.message || loadError)}</p>
        )}
        {!ss && !loadError && <p class="loading">Loading the kernels…</p>}
        {ss && view.panel === 'normalizers' && (
          <NormalizerPanel ss={ss} have={have} normalizers={normalizers} colors={colors} state={view} update={update} />
        )}
        {ss && view.panel === 'dispersion' && (
          <DispersionPanel ss={ss} normalizers={normalizers} colors={colors} state={view} update={update} />
        )}
        {ss && view.panel === 'sampling' && <SamplingPanel ss={ss} state={view} update={update} />}
        {ss && view.panel === 'quantization' && <QuantPanel ss={ss} state={view} update={update} />}
        {ss && view.panel === 'optimizers' && <OptimPanel ss={ss} state={view} update={update} />}
        {ss && view.panel === 'attention' && (
          <AttentionPanel ss={ss} normalizers={normalizers} colors={colors} state={view} update={update} />
        )}
      </main>
      <footer class="foot muted">
        State lives in the URL: copy the address to share exactly this view. Kernel names, formulas, papers and
        parameter ranges come from the library's registry.
      </footer>
    </div>
  );
}
