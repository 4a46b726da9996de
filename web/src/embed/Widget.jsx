// The widget: one view (schema, model, figure, controls) mounted in an
// author's page. Its state comes from the element's attributes (every key of
// the view's schema, or a pasted playground link in `state`); `controls`
// says which controls to show (none: a static figure); the figure fits the
// element's width and follows prefers-color-scheme unless `theme` is set.
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { parse, hashEntries, toHash } from 'softscope/state';
import { Notices } from '../components/Notices.jsx';
import { LiveSummary } from '../components/LiveSummary.jsx';
import { useTheme, useWidth } from '../hooks.js';

/** Attributes of the element that are not state keys. */
export const OWN_ATTRIBUTES = ['view', 'state', 'controls', 'height', 'theme', 'class', 'style', 'id', 'title', 'lang', 'dir', 'hidden', 'tabindex', 'slot', 'part'];

function controlsOf(attr) {
  if (attr == null || attr.trim() === '' || attr.trim() === 'all') return 'all';
  if (attr.trim() === 'none') return new Set();
  return new Set(attr.split(/[\s,]+/).filter(Boolean));
}

/** The view's state from the element's attributes: { state, notices } (v: the loaded view). */
export function stateFromAttributes(ss, attrs, v) {
  const fromLink = attrs.state ? hashEntries(attrs.state.replace(/^[^#]*#/, '')) : [];
  const other = fromLink.find(([k, val]) => k === 'view' && val !== v.id);
  const own = Object.entries(attrs).filter(([k]) => !OWN_ATTRIBUTES.includes(k) && !k.startsWith('data-') && !k.startsWith('aria-'));
  const { state, notices } = parse(v.schema, [...fromLink.filter(([k]) => k !== 'view'), ...own], ss);
  if (other) notices.unshift({ key: 'state', value: attrs.state, reason: `a link of view ${other[1]}, not ${v.id}` });
  return { state, notices };
}

const Ctx = createContext(null);

// actions: what the view needs to be of any use, shown whatever `controls`
// says (the Performance view's Run button and progress bar).
function WidgetLayout({ data, input, editor, side, figure = {}, below, actions, complete = true }) {
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
        {data && <Fig data={data} colors={colors} theme={theme} width={Math.max(260, width)} {...figure} />}
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


export function Widget({ ss, v, attrs, host }) {
  // the state follows the attributes when they change (not when the element re-renders)
  const attrsKey = JSON.stringify(attrs);
  const init = useMemo(() => stateFromAttributes(ss, attrs, v), [ss, v, attrsKey]);
  const [state, setState] = useState(init.state);
  useEffect(() => setState(init.state), [init]);
  const theme = useTheme(attrs.theme ?? 'auto');
  const [ref, width] = useWidth(640);
  const controls = useMemo(() => controlsOf(attrs.controls), [attrs.controls]);
  const colors = useMemo(() => v?.colors(ss), [v, ss]);
  const set = (patch) => setState((s) => {
    const next = { ...s, ...(typeof patch === 'function' ? patch(s) : patch) };
    const fin = v.schema.finish ? v.schema.finish(next, ss) : next;
    host.changed(v, fin);
    return fin;
  });
  host.current(v, state);
  const height = attrs.height ? Number(attrs.height) : undefined;

  return (
    <div class={`widget theme-${theme}`} ref={ref} role="group" aria-label={`softscope: ${v.label}`} data-view={v.id} data-theme={theme}>
      <Notices notices={init.notices} />
      <Ctx.Provider value={{ v, colors, theme, width, height, controls, host }}>
        <v.View key={v.id} ss={ss} v={v} state={state} set={set} colors={colors} controls={controls} theme={theme} Layout={WidgetLayout} />
      </Ctx.Provider>
    </div>
  );
}

/** The link hash of a widget's current state. */
export const hashOf = (ss, v, state) => toHash(v.schema, state, ss);
