// softscope/embed: the <softscope-widget> element (web/src/embed/embed.js,
// bundled as wasm/dist/embed/embed.js). Importing it defines the element
// where customElements exists (a browser); on a server (SSR, a static-site
// build, Node) it defines nothing and does not throw. The module exports no
// values: these are the element's types, its tag for document.createElement
// and querySelector (HTMLElementTagNameMap), its events, and its tag in
// Preact's JSX. React's JSX: import 'softscope/embed/react' instead.
/// <reference lib="dom" />
import type { State, Notice } from '../../../wasm/state/schema.js';
import type { ViewId } from '../../../wasm/views/index.js';
import type { JSX as PreactJSX } from 'preact';

export type { State, Notice, ViewId };

/**
 * The element's own attributes. A value the widget cannot use keeps its
 * default and is listed in a notice.
 */
export interface SoftscopeWidgetOwnAttributes {
  /** The view (default normalizers). */
  view?: ViewId;
  /** A playground link, or its hash, pasted as it is. */
  state?: string;
  /** view="experiments" or "language": a results file to draw without training (`softscope train --json` writes it; { softscope, view, state, data }), its URL relative to the page. */
  results?: string;
  /** view="language": a model file to generate from without training (`softscope train language --save` or the tab's Save weights write it), its URL relative to the page. */
  model?: string;
  /** The controls shown: "all" (the default), "none" (a static figure), or the view's keys and kernel parameters ("temperature,alpha"). */
  controls?: string;
  /** The figure's largest height in px ("360" or "360px"; it is scaled down to fit, its proportions kept). */
  height?: number | string;
  /** auto (the default) | light | dark. */
  theme?: 'auto' | 'light' | 'dark';
}

/** Its attributes: its own, and every key of the view's schema, as in a link (kernels="softmax,sparsemax", temperature="0.5"). */
export type SoftscopeWidgetAttributes = SoftscopeWidgetOwnAttributes & { [key: string]: unknown };

/** detail of softscope-change: the state after a control moved. */
export interface SoftscopeChangeDetail { view: ViewId; state: State; hash: string }
/** detail of softscope-notice: what the widget ignored (an attribute, a link's key, a key of .state), as { key, value, reason }. */
export interface SoftscopeNoticeDetail { view: ViewId; notices: Notice[] }

/** The <softscope-widget> element. */
export interface SoftscopeWidget extends HTMLElement {
  /** The current state: one plain object of the view's schema keys (null until the view is drawn). */
  get state(): State | null;
  /**
   * An object of keys, merged into the current state: the state's own keys
   * (kernels: ['softmax'], params: { alpha: 1.5 }) or a link's (alpha: 1.5,
   * 'adam.lr': 0.02); null returns a key to its default. A key that is unknown
   * or a value a link would refuse keeps its current value and is reported,
   * not thrown, and so is a value of a type its key does not take (a number
   * key takes a number or link text, a list of names string[] or 'a,b',
   * params an object; { temperature: true } is reported as "a boolean, not
   * a number"): the widget lists it in its notice and dispatches
   * softscope-notice when the assignment is applied (a moment later; once
   * the view is drawn when assigned before). A string is a link, as the
   * state attribute. An object of more than 256 keys is not applied (one
   * notice), as a link of more than 256 keys or 16,384 characters is not read.
   */
  set state(value: Record<string, unknown> | string);
  /** The numbers drawn, JSON-ready (as `softscope figure --data file.json` writes them); null until drawn. */
  readonly data: Record<string, unknown> | null;
  /** Whether the figure is complete (a progressive view has finished). */
  readonly complete: boolean;
  /** The link (hash) of the current state, as the playground writes it. */
  readonly hash: string | null;
  /** What the widget ignored: its attributes', a pasted link's, the last .state assignment's. */
  readonly notices: readonly Notice[];
  /** The view (assigning one sets the view attribute). */
  view: ViewId;
}

declare global {
  interface HTMLElementTagNameMap {
    'softscope-widget': SoftscopeWidget;
  }
  // the events bubble out of the shadow root (composed): listen on the element, the document or the window
  interface GlobalEventHandlersEventMap {
    'softscope-change': CustomEvent<SoftscopeChangeDetail>;
    'softscope-notice': CustomEvent<SoftscopeNoticeDetail>;
  }
}

/** The tag's props in JSX: the element's attributes, and the HTML attributes (of Preact's or React's JSX) they do not name. */
export type SoftscopeWidgetProps<HTMLProps> = Omit<HTMLProps, keyof SoftscopeWidgetOwnAttributes> & SoftscopeWidgetAttributes;

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      'softscope-widget': SoftscopeWidgetProps<PreactJSX.HTMLAttributes<SoftscopeWidget>>;
    }
  }
}
