// The three wasm builds a test runs in, and one instance of each.
import { createSoftscope } from 'softscope';

export const BUILDS = ['scalar', 'simd', 'relaxed'];

/** { scalar, simd, relaxed }: a fresh instance of every build. */
export async function loadBuilds() {
  const instances = {};
  for (const impl of BUILDS) instances[impl] = await createSoftscope({ impl });
  return instances;
}
