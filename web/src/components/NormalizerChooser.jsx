// Checkboxes for every normalizer in the registry (a new kernel appears here
// without code changes), each with its colour swatch and summary (compact:
// names only, in columns, the summary as a tooltip).
export function NormalizerChooser({ normalizers, selected, colors, onToggle, compact = false }) {
  return (
    <ul class={compact ? 'chooser compact' : 'chooser'}>
      {normalizers.map((k) => (
        <li key={k.name}>
          <label title={k.summary}>
            <input type="checkbox" checked={selected.includes(k.name)} data-normalizer={k.name}
              onChange={(e) => onToggle(k.name, e.currentTarget.checked)} />
            <span class="swatch" style={{ background: colors.get(k.name) }} />
            <code>{k.name}</code>
            {!compact && <span class="muted summary">{k.summary}{k.output === 'weights' ? ' (weights)' : ''}</span>}
            {compact && k.output === 'weights' && <span class="muted" title="output: weights, need not sum to 1">w</span>}
          </label>
        </li>
      ))}
    </ul>
  );
}
