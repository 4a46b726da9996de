// A view module by id, loaded on demand (softscope/views/load): the module
// of that view only, by its folder (wasm/views/<id>/index.js), where
// softscope/views imports every view. The playground's Web Worker loads the
// view it runs this way; a bundler splits each view into a chunk of its own.

/** The view module (its default export) of the view with this id; a rejected Promise naming the id when there is none. */
export async function loadView(id) {
  if (typeof id !== 'string' || !/^[a-z]+$/.test(id)) throw new TypeError(`loadView: id must be a view's name (got ${JSON.stringify(id)})`);
  try {
    return (await import(`./${id}/index.js`)).default;
  } catch (e) {
    throw new Error(`loadView: no view "${id}" (${e.message})`);
  }
}
