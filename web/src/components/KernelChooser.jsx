// Checkboxes for the kernels a field can take (every registered kernel of its
// kind appears without code changes), each with its colour swatch; the
// summary is the tooltip. A fieldset with a legend, so screen readers name
// the group. A long name may break after an underscore (two_pass_<wbr>softmax), not inside a word.
const breakable = (name) => name.split('_').flatMap((part, i, all) => (i < all.length - 1 ? [`${part}_`, <wbr key={i} />] : [part]));

export function KernelChooser({ id, label, kernels, selected, colors, onToggle, max }) {
  const full = max !== undefined && selected.length >= max;
  return (
    <fieldset class="chooser" id={id}>
      <legend>{label}{max !== undefined && <span class="muted"> (up to {max})</span>}</legend>
      <ul>
        {kernels.map((k) => {
          const on = selected.includes(k.name);
          return (
            <li key={k.name}>
              <label title={k.summary}>
                <input type="checkbox" checked={on} disabled={!on && full} data-kernel={k.name}
                  onChange={(e) => onToggle(k.name, e.currentTarget.checked)} />
                <span class="swatch" style={{ background: colors?.get(k.name) ?? 'transparent' }} aria-hidden="true" />
                <code>{breakable(k.name)}</code>
                {k.output === 'weights' && <span class="muted" title="output: weights, need not sum to 1"> w</span>}
              </label>
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
