// The run key of a state (state/schema.js documents the fields' `display`
// mark): a module of its own, so that the steppers and the playground's
// runner import it without the (de)serializer.

/**
 * The state's run key: the state without its display fields (key order aside),
 * as one string. Two states of one view with the same key are the same run: a
 * stepper takes the new one in place; another key starts the work over.
 */
export function runKey(schema, state) {
  const display = new Set(schema.fields.filter((f) => f.display).map((f) => f.key));
  return JSON.stringify(Object.keys(state).filter((k) => !display.has(k)).sort().map((k) => [k, state[k]]));
}
