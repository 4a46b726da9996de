// The widget's own attributes, read by the state parser as a link's keys are
// (a value that cannot be used keeps its default, with the same notice):
//   controls  "all" (the default), "none", or a list of the view's keys and
//             kernel parameters: "temperature,alpha" (in a view with kernel
//             parameters any registry kernel or parameter name passes: which
//             of them has a control depends on the kernels chosen)
//   height    the figure's largest height, px: "360" or "360px"
//   theme     auto (the default) | light | dark
import { parse } from 'softscope/state';

// What `controls` can name.
function controlNames(v, ss) {
  const names = v.schema.fields.map((f) => f.key);
  if (!v.schema.fields.some((f) => f.type === 'params')) return names;
  return names.concat(ss.kernels().flatMap((k) => [k.name, ...k.params.map((p) => p.name)]));
}

/** { controls ('all' or a Set of names), height (px or undefined), theme, notices } from the element's attributes. */
export function widgetOptions(ss, attrs, v) {
  const schema = { fields: [
    // (null: not given, as a schema's optional key; controls all, the figure's own height)
    { key: 'controls', type: 'names', options: () => controlNames(v, ss), default: null },
    { key: 'height', type: 'number', min: 0, minOpen: true, max: 1e5, default: null },
    { key: 'theme', type: 'choice', options: ['auto', 'light', 'dark'], default: 'auto' },
  ] };
  const given = [];
  const controls = attrs.controls?.trim();
  if (controls === 'none') given.push(['controls', '']);
  else if (controls && controls !== 'all') given.push(['controls', controls.split(/[\s,]+/).join(',')]);
  if (attrs.height?.trim()) given.push(['height', attrs.height.trim().replace(/px$/, '')]);
  if (attrs.theme?.trim()) given.push(['theme', attrs.theme]);
  const { state, notices } = parse(schema, given, ss);
  for (const n of notices) n.value = attrs[n.key];
  return { ...state, controls: Array.isArray(state.controls) ? new Set(state.controls) : 'all', height: state.height ?? undefined, notices };
}
