// softscope/embed: the <softscope-widget> element. One script tag, one
// element, no build step:
//
//   <script type="module" src=".../softscope/embed.js"></script>
//   <softscope-widget view="normalizers" kernels="softmax,sparsemax,entmax15"
//                     logits="2,1,0.1,-1" controls="temperature"></softscope-widget>
//
// Attributes: view, every key of that view's schema, state (a pasted
// playground link), controls (a list, "none" or "all"), height, theme
// (auto | light | dark); changing one re-renders. Properties: .state (the
// current state object; assign an object of keys to change them, or a link),
// .data (the numbers drawn, as `softscope figure --data` writes them),
// .notices (what was ignored). Events: softscope-change (detail: { view,
// state, hash }), softscope-notice (detail: { view, notices }: an attribute
// or a key of .state that could not be used, ignored as a bad link value
// is; the widget lists it too; a .state assignment reports this way, it does
// not throw). Types: embed.d.ts. The wasm next to this script is found
// relative to it; several widgets share one instance.
import { render, h } from 'preact';
import { Widget } from './Widget.jsx';
import { hashOf, stateFromAttributes } from './attributes.js';
import { pageSoftscope } from './instance.js';
import { loadView, VIEW_IDS } from './views.js';
import { plain } from 'softscope/figure';
import css from './widget.css?inline';

// First renders take turns in page order, a frame apart: a widget renders
// when the one before it has rendered (or failed) and the browser has painted,
// so the first widget paints before the next one computes (a race or a sweep
// can take 50 ms). A hidden page has no frames; a timer stands in for them,
// and no widget waits more than a second for the ones before it.
let lastTurn = Promise.resolve();
const nextFrame = () => new Promise((resolve) => {
  const timer = setTimeout(resolve, 50);
  requestAnimationFrame(() => { clearTimeout(timer); setTimeout(resolve, 0); });
});
function queueTurn() {
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const turn = Promise.race([lastTurn, new Promise((resolve) => setTimeout(resolve, 1000))]);
  lastTurn = finished.then(nextFrame);
  return { turn, done };
}

const NO_WASM = 'This figure is computed by WebAssembly, which this browser does not provide (or has turned off).';

// On a server (SSR, a static-site build, a test in Node) there is no DOM:
// importing this module is safe there, the class extends a stand-in and no
// element is defined. The element is defined where customElements exists.
const Base = typeof HTMLElement === 'undefined' ? class {} : HTMLElement;

class SoftscopeWidget extends Base {
  constructor() {
    super();
    this._root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = css;
    this._mount = document.createElement('div');
    this._root.append(style, this._mount);
    // Keys that work a control (arrows on a slider, a select) stay in the
    // widget: a host page's shortcuts (a slide deck's arrow keys) do not see them.
    this._mount.addEventListener('keydown', (e) => {
      const t = e.composedPath()[0];
      if (t && (t.matches?.('input, select, textarea, button, [tabindex]') || t.isContentEditable)) e.stopPropagation();
    });
    this._view = null;
    this._state = null;
    this._data = null;
    this._complete = false;
    this._attrNotices = []; // the attributes' (the Widget's parse)
    this._assigned = []; // the last .state assignment's
    this._host = {
      current: (v, s) => { this._view = v; this._state = s; },
      noticed: (v, notices) => {
        this._attrNotices = notices;
        if (notices.length) this._notify(v, notices);
      },
      drawn: (d, complete) => {
        this._data = d;
        this._complete = complete && !!d;
        if (this._complete && this.paintedAt === undefined) requestAnimationFrame(() => { this.paintedAt ??= performance.now(); });
        this.toggleAttribute('data-complete', this._complete);
      },
      changed: (v, s) => {
        this._view = v;
        this._state = s;
        // not complete until the new state is drawn (.hash already names it)
        this._complete = false;
        this.removeAttribute('data-complete');
        this.dispatchEvent(new CustomEvent('softscope-change', { bubbles: true, composed: true, detail: { view: v.id, state: s, hash: hashOf(this._ss, v, s) } }));
      },
    };
  }

  connectedCallback() {
    if (this._observer) return;
    // An author's attribute change re-renders; the element's own status
    // attribute (data-complete) does not.
    this._observer = new MutationObserver((records) => {
      if (records.some((r) => r.attributeName !== 'data-complete')) this._render();
    });
    this._observer.observe(this, { attributes: true });
    this._mount.innerHTML = '<p class="loading" role="status">Loading softscope…</p>';
    loadView(this.getAttribute('view') ?? 'normalizers'); // the view's code downloads while the wasm compiles
    this._queued = queueTurn();
    pageSoftscope().then((ss) => {
      this._ss = ss;
      if (!ss) { this._mount.innerHTML = `<p class="error" role="alert">${NO_WASM}</p>`; this._queued.done(); return; }
      this._render().finally(() => this._queued.done());
    }, (e) => {
      this._queued.done();
      this._mount.innerHTML = '';
      const p = document.createElement('p');
      p.className = 'error';
      p.setAttribute('role', 'alert');
      p.textContent = `softscope could not load its WebAssembly module: ${e?.message ?? e}`;
      this._mount.append(p);
    });
  }

  disconnectedCallback() {
    this._observer?.disconnect();
    this._observer = null;
    if (this._ss) render(null, this._mount);
  }

  _attrs() {
    return Object.fromEntries([...this.attributes].map((a) => [a.name, a.value]));
  }

  async _render() {
    if (!this._ss) return;
    const attrs = this._attrs();
    const id = attrs.view ?? 'normalizers';
    const v = await loadView(id);
    if (!this.isConnected) return;
    if (!v) {
      render(null, this._mount);
      this._mount.innerHTML = '';
      const p = document.createElement('p');
      p.className = 'error';
      p.setAttribute('role', 'alert');
      p.textContent = `softscope-widget: view="${id}" is not one of ${VIEW_IDS.join(', ')}`;
      this._mount.append(p);
      return;
    }
    const first = !this._mount.querySelector('.widget');
    if (first) {
      await this._queued?.turn;
      if (!this.isConnected) return;
      this._mount.innerHTML = '';
    }
    // a .state assigned before the view was drawn
    if (this._pending !== undefined) {
      if (this._view?.id !== v.id || !this._state) this._state = stateFromAttributes(this._ss, attrs, v).state;
      this._view = v;
      await this._assign(); // sets the attributes: this renders again
      return;
    }
    render(h(Widget, { ss: this._ss, v, attrs, host: this._host, assigned: this._assigned }), this._mount);
  }

  _notify(v, notices) {
    this.dispatchEvent(new CustomEvent('softscope-notice', { bubbles: true, composed: true, detail: { view: v.id, notices } }));
  }

  // The pending .state assignment applied (its code loads on the first).
  async _assign() {
    (await import('./assign.js')).applyPending(this);
  }

  /** The current state of the view (a plain object of its schema's keys). */
  get state() { return this._state; }
  /** Set the state: an object of keys, merged into the current state (an unknown key or a bad value keeps
   *  the current value: a notice and a softscope-notice event), or a link (as the state attribute). */
  set state(s) {
    if (typeof s === 'string') {
      if (s !== this.getAttribute('state')) this.setAttribute('state', s);
      return;
    }
    this._pending = s && typeof s === 'object' ? { ...this._pending, ...s } : s; // (merged with one not applied yet)
    if (this._view && this._ss && this._state) this._assign(); // else once the view is drawn
  }

  /** What the widget could not use (attributes, a link's keys, the last .state assignment's keys): { key, value, reason }. */
  get notices() { return [...this._attrNotices, ...this._assigned]; }

  /** The numbers drawn, JSON-ready (as `softscope figure --data file.json` writes them). */
  get data() { return this._data ? plain(this._data) : null; }
  /** Whether the figure is complete (a progressive view has finished). */
  get complete() { return this._complete; }
  /** The link (hash) of the current state, as the playground writes it. */
  get hash() { return this._view && this._state ? hashOf(this._ss, this._view, this._state) : null; }
  /** The widget's view id (assigning one sets the view attribute). */
  get view() { return this._view?.id ?? this.getAttribute('view') ?? 'normalizers'; }
  set view(id) { this.setAttribute('view', id); }
}

if (typeof customElements !== 'undefined' && !customElements.get('softscope-widget')) customElements.define('softscope-widget', SoftscopeWidget);

export { SoftscopeWidget };
