// What the figure shows, in one sentence (the view module's describe(data)),
// announced politely to screen readers once the numbers settle.
import { useSettled } from '../hooks.js';

/** The view's sentence for its data ('' when it has none, or its describe fails on partial data). */
function sentence(v, data) {
  try {
    return data && v.describe ? v.describe(data) : '';
  } catch {
    return '';
  }
}

export function LiveSummary({ v, data, complete }) {
  const text = useSettled(complete ? sentence(v, data) : '');
  return <p class="sr-only" aria-live="polite" data-summary={v.id}>{text}</p>;
}
