// The parameter controls of the chosen kernels, generated from the registry:
// one control per parameter name (shared by every chosen kernel that has it,
// chips say which). float: a slider over the registry's ui range, log scale
// when the registry says so; int: an integer slider plus a stepper over the
// whole valid range; bool: a checkbox; a named choice: a select.
import { Slider } from './Slider.jsx';
import { sharedParams, sliderRange, intRange } from '../lib/params.js';

export function ParamControls({ kernels, values, colors, onSet, onReset, idPrefix = 'param', only = null, exclude = [] }) {
  const shared = sharedParams(kernels).filter(({ name }) => !exclude.includes(name) && (!only || only.has(name)));
  if (shared.length === 0) return only ? null : <p class="help">No parameters.</p>;
  return shared.map(({ name, info, kernels: users }) => {
    const value = Number.isFinite(values[name]) ? values[name] : info.default;
    const id = `${idPrefix}-${name}`;
    const chips = (
      <div class="chips">
        {users.map((k) => (
          <span key={k} class="chip" style={{ borderColor: colors?.get(k) }}>{k}</span>
        ))}
      </div>
    );
    if (info.choices) {
      // A named choice (e.g. rounding: nearest | stochastic): a select of the registry's names.
      return (
        <div class="slider" key={name} data-param={name} data-param-type="choice">
          <label class="inline" for={id}><code>{name}</code>{' '}
            <select id={id} value={value} onChange={(e) => onSet(name, Number(e.currentTarget.value))}>
              {info.choices.map((c, i) => <option key={c} value={info.min + i}>{c}</option>)}
            </select>
          </label>
          {info.help && <p class="help">{info.help}</p>}
          {chips}
        </div>
      );
    }
    if (info.type === 'bool') {
      return (
        <div class="slider" key={name} data-param={name} data-param-type="bool">
          <label class="inline">
            <input id={id} type="checkbox" checked={value !== 0} onChange={(e) => onSet(name, e.currentTarget.checked ? 1 : 0)} />
            {' '}<code>{name}</code>
          </label>
          {info.help && <p class="help">{info.help}</p>}
          {chips}
        </div>
      );
    }
    const r = sliderRange(info);
    const stepper = info.type === 'int' && (() => {
      const { min, max } = intRange(info);
      return (
        <label class="inline stepper" for={`${id}-step`}>
          <span class="muted">exact</span>
          <input id={`${id}-step`} aria-label={`${name}, exact value`} type="number" min={min} max={max} step={1} value={value}
            onChange={(e) => {
              const v = Math.round(Number(e.currentTarget.value));
              if (Number.isFinite(v)) onSet(name, Math.min(max, Math.max(min, v)));
            }} />
        </label>
      );
    })();
    return (
      <div key={name} data-param={name} data-param-type={info.type}>
        <Slider id={id} label={name} value={value} {...r} help={info.help}
          onInput={(v) => onSet(name, v)} onReset={() => onReset(name)} isDefault={value === info.default}>
          {stepper}
          {chips}
        </Slider>
      </div>
    );
  });
}
