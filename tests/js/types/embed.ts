// Must compile under tsc --strict: the <softscope-widget> element in the DOM's types.
import 'softscope/embed';
import type { SoftscopeWidget, SoftscopeNoticeDetail } from 'softscope/embed';

const w: SoftscopeWidget = document.createElement('softscope-widget');
w.view = 'sampling';
w.setAttribute('controls', 'temperature');
w.state = { temperature: 0.5, kernels: ['top_k'], 'top_k': 5 };
w.state = '#view=sampling&draws=2000';
const t: unknown = w.state?.temperature;
const hash: string | null = w.hash;
const done: boolean = w.complete && w.data !== null;
w.addEventListener('softscope-change', (e) => console.log(e.detail.view, e.detail.hash, e.detail.state));
document.addEventListener('softscope-notice', (e) => console.log(e.detail.notices.map((n) => `${n.key}=${n.value}: ${n.reason}`)));
const found = document.querySelector('softscope-widget');
const notices: SoftscopeNoticeDetail['notices'] = [...(found?.notices ?? [])];
export { t, hash, done, notices };
