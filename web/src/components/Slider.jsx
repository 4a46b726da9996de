// A labelled range slider over [min, max], linear or log scale. The native
// <input type=range> runs over slider positions [0, STEPS]; values are mapped
// with valueToPosition / positionToValue.
import { valueToPosition, positionToValue } from '../lib/sliderScale.js';
import { fmt } from 'softscope/figures';

const STEPS = 1000;

export function Slider({ id, label, value, min, max, log = false, integer = false, help, onInput, onReset, isDefault, format, children }) {
  const range = { min, max, log, integer };
  const steps = integer ? Math.max(1, max - min) : STEPS;
  const pos = Math.round(valueToPosition(value, range) * steps);
  return (
    <div class="slider">
      <div class="slider-head">
        <label for={id}>{label}</label>
        <output for={id} class="slider-value" data-param-value={value}>{format ? format(value) : integer ? String(value) : fmt(value, 3)}</output>
        {onReset && !isDefault && (
          <button type="button" class="link-button" onClick={onReset} title="back to the registry default">reset</button>
        )}
      </div>
      <input
        id={id}
        type="range"
        min={0}
        max={steps}
        step={1}
        value={pos}
        aria-valuetext={format ? format(value) : String(value)}
        onInput={(e) => onInput(positionToValue(Number(e.currentTarget.value) / steps, range))}
      />
      <div class="slider-scale">
        <span>{format ? format(min) : fmt(min, 3)}</span>
        {log && <span class="muted">log scale</span>}
        <span>{format ? format(max) : fmt(max, 3)}</span>
      </div>
      {help && <p class="help">{help}</p>}
      {children}
    </div>
  );
}
