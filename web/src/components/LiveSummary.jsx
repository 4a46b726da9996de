// What the figure shows, in one sentence, announced politely to screen
// readers once the numbers settle (views/describe.js).
import { describe } from '../../../wasm/views/describe.js';
import { useSettled } from '../hooks.js';

export function LiveSummary({ id, data, complete }) {
  const text = useSettled(complete ? describe(id, data) : '');
  return <p class="sr-only" aria-live="polite" data-summary={id}>{text}</p>;
}
