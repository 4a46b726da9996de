// softscope/views/load: a view module by id, loaded on demand (views/load.js).
import type { View } from './index.js';

/** The view module of the view with this id (only that view's code is loaded). */
export function loadView(id: string): Promise<View>;
