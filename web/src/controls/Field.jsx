// A control for a schema field, generated from the field's type: a slider
// for a number (log scale where the schema says so; powers of two step by
// exponent), a checkbox for a bool, a select for a choice, a checkbox list
// for names (kernels with their colour and summary), and the registry's
// parameter controls for params. Every control has a label (an accessible
// name). A view lays these out and adds its own editors (logits, a start
// point on a map).
import { Slider } from '../components/Slider.jsx';
import { ParamControls } from '../components/ParamControls.jsx';
import { KernelChooser } from '../components/KernelChooser.jsx';

const labelOf = (f) => f.label ?? f.key;

/** Whether a control is shown: controls is 'all' or a Set of keys (a widget's `controls`). */
export function shown(controls, key) {
  return controls === 'all' || controls.has(key);
}

export function Field({ f, state, set, ss, colors, idPrefix, controls = 'all' }) {
  const id = `${idPrefix}-${f.key}`;
  const v = state[f.key];
  const put = (value) => set({ [f.key]: value });
  switch (f.type) {
    case 'number': {
      if (f.pow2) {
        const lo = Math.log2(f.min), hi = Math.log2(f.max);
        return <Slider id={id} label={labelOf(f)} value={Math.log2(v)} min={lo} max={hi} integer help={f.help}
          format={(e) => `2^${e} = ${(2 ** e).toLocaleString('en-US')}`} onInput={(e) => put(2 ** Math.round(e))} />;
      }
      return <Slider id={id} label={labelOf(f)} value={v} min={f.uiMin ?? f.min} max={f.uiMax ?? f.max} log={!!f.log} integer={!!f.integer}
        help={f.help} onInput={(x) => put(f.integer ? Math.round(x) : Number(x.toPrecision(4)))}
        onReset={f.reset === false ? undefined : () => put(f.default)} isDefault={v === f.default} />;
    }
    case 'bool':
      return (
        <label class="inline check" for={id}>
          <input id={id} type="checkbox" checked={!!v} onChange={(e) => put(e.currentTarget.checked)} /> {labelOf(f)}
        </label>
      );
    case 'choice': {
      const opts = typeof f.options === 'function' ? f.options(ss) : f.options;
      return (
        <label class="inline" for={id}>
          {labelOf(f)}{' '}
          <select id={id} value={v} onChange={(e) => put(e.currentTarget.value)}>
            {opts.map((o) => <option key={o} value={o} disabled={f.disabledOption?.(o, state)}>{f.optionLabel?.(o) ?? o}</option>)}
          </select>
        </label>
      );
    }
    case 'names': {
      const opts = f.options(ss);
      const infos = opts.map((name) => ss.kernels().find((k) => k.name === name) ?? { name, summary: f.optionHelp?.[name] ?? '' });
      const toggle = (name, on) => {
        const next = on ? [...v, name] : v.filter((x) => x !== name);
        if (f.max !== undefined && next.length > f.max) return;
        if (f.min !== undefined && next.length < f.min) return;
        // registry order, so that colours and charts do not jump around
        put(opts.filter((o) => next.includes(o)));
      };
      return <KernelChooser id={id} label={labelOf(f)} kernels={infos} selected={v} colors={colors} onToggle={toggle} max={f.max} />;
    }
    case 'params': {
      let kernels = f.kernels(state, ss);
      const only = controls === 'all' || controls.has(f.key) ? null : controls;
      const values = state[f.key];
      const setParam = (name, x) => set((s) => ({ [f.key]: { ...s[f.key], [name]: x } }));
      const resetParam = (name) => set((s) => {
        const { [name]: _, ...rest } = s[f.key];
        return { [f.key]: rest };
      });
      if (f.scope === 'kernel') {
        // one kernel's parameters (keys kernel.param), the kernel chosen by the view
        const k = kernels.find((x) => x.name === f.current?.(state)) ?? kernels[0];
        if (!k) return null;
        const own = Object.fromEntries(Object.entries(values).filter(([key]) => key.startsWith(`${k.name}.`)).map(([key, x]) => [key.slice(k.name.length + 1), x]));
        // the view's own defaults (overrides) are the defaults a reset returns to
        const over = f.overrides?.(k.name) ?? {};
        const shownK = { ...k, params: k.params.map((p) => (p.name in over ? { ...p, default: over[p.name] } : p)) };
        return <ParamControls kernels={[shownK]} values={own} colors={colors} idPrefix={`${idPrefix}-${k.name}`}
          onSet={(name, x) => setParam(`${k.name}.${name}`, x)} onReset={(name) => resetParam(`${k.name}.${name}`)} only={only} exclude={f.exclude} />;
      }
      // shared: the view's own defaults (overrides) for every kernel that has the parameter
      const over = f.overrides?.() ?? {};
      if (Object.keys(over).length) kernels = kernels.map((k) => ({ ...k, params: k.params.map((p) => (p.name in over ? { ...p, default: over[p.name] } : p)) }));
      return <ParamControls kernels={kernels} values={values} colors={colors} idPrefix={idPrefix} onSet={setParam} onReset={resetParam}
        only={only} exclude={f.exclude} />;
    }
    case 'text':
      // a string as typed (a prompt): at most maxLength characters (the state refuses control characters but tab
      // and newline); the value is a text node's, never markup
      return (
        <label class="text-field" for={id}>
          <span>{labelOf(f)}</span>
          <textarea id={id} rows={2} maxLength={f.maxLength} spellcheck={false} value={v ?? ''} placeholder={f.placeholder}
            onInput={(e) => put(e.currentTarget.value)} />
        </label>
      );
    default:
      return null;
  }
}

/** Controls for the fields of `keys` that are shown, in order. */
export function Fields({ schema, keys, ...props }) {
  return keys.map((key) => {
    const f = schema.fields.find((x) => x.key === key);
    if (!f) throw new Error(`no field ${key} in the ${schema.view} schema`);
    if (f.type !== 'params' && !shown(props.controls ?? 'all', key)) return null;
    return <Field key={key} f={f} {...props} />;
  });
}
