// What a link (or a widget's attributes) asked for that could not be used:
// each ignored key with its value and why, so nothing is dropped silently.
export function Notices({ notices, onDismiss, title = 'Ignored from the link:' }) {
  if (!notices?.length) return null;
  return (
    <div class="notice" role="status" data-notices={notices.length}>
      <b>{title}</b>{' '}
      {notices.map((n, i) => (
        <span key={i} data-notice={n.key}>
          {i > 0 && '; '}<code>{n.key}={String(n.value).slice(0, 40)}</code> ({n.reason})
        </span>
      ))}
      {onDismiss && <button type="button" class="link-button" onClick={onDismiss}>dismiss</button>}
    </div>
  );
}
