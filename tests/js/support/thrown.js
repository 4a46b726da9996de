// The error fn throws; a test fails when it throws nothing.
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}
