// softscope/figure: a view's figure as files (views/files.js), the same bytes
// from `softscope figure` and the playground's export buttons.
import type { Softscope } from '../api/index.js';
import type { View, ViewData, ViewId, State, Notice } from './index.js';

export { plain, csv } from './index.js';

export interface FigureOptions { width?: number; height?: number; theme?: 'light' | 'dark' }
export interface FigureFiles { svg: string; csv: string; json: string; width: number; height: number }

/** { svg, csv, json, width, height } of a view for a state and its computed data. */
export function figureFiles(ss: Softscope, v: View, state: State, data: ViewData, options?: FigureOptions & { input?: boolean }): FigureFiles;
/** A view's figure for a state given as link text (bad keys fall back to defaults, listed in notices). */
export function renderFigure(ss: Softscope, id: ViewId, stateText?: string, options?: FigureOptions):
  FigureFiles & { data: ViewData; state: State; notices: Notice[] };
