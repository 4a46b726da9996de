// What a link (or a widget's attributes) asked for that could not be used:
// each ignored key with its value and why, so nothing is dropped silently.
// The first SHOWN are listed and the rest counted ("and 52 more"), so a link
// of many bad keys costs a few lines of DOM, not one per key (the full list
// is the widget's .notices).
export const SHOWN = 8;

export function Notices({ notices, onDismiss, title = 'Ignored from the link:' }) {
  if (!notices?.length) return null;
  const rest = notices.length - SHOWN;
  return (
    <div class="notice" role="status" data-notices={notices.length}>
      <b>{title}</b>{' '}
      {notices.slice(0, SHOWN).map((n, i) => (
        <span key={i} data-notice={String(n.key).slice(0, 40)}>
          {i > 0 && '; '}<code>{String(n.key).slice(0, 40)}={String(n.value).slice(0, 40)}</code> ({String(n.reason).slice(0, 200)})
        </span>
      ))}
      {rest > 0 && <span data-notices-more={rest}>; and {rest.toLocaleString('en-US')} more</span>}
      {onDismiss && <button type="button" class="link-button" onClick={onDismiss}>dismiss</button>}
    </div>
  );
}
