// The playground's side of each view: the View component (controls, editors,
// layout) of web/src/views/<id>/View.jsx, next to the package's view module
// (schema, model, figure). The views and their order are the package's list
// (softscope/views); the components are found by folder.
import { VIEWS } from 'softscope/views';

const COMPONENTS = import.meta.glob('./*/View.jsx', { eager: true, import: 'default' });
const component = (id) => COMPONENTS[`./${id}/View.jsx`];

/** [{ ...view module, View }] in tab order (the views with a View component). */
export const WEB_VIEWS = VIEWS.filter((v) => component(v.id)).map((v) => ({ ...v, View: component(v.id) }));
