// Must NOT compile: each line marked BAD is an error tsc must report.
import 'softscope/embed';

const w = document.createElement('softscope-widget');
w.view = 'sampler'; // BAD: unknown view
w.state = 5; // BAD: an object of keys or a link
const n: number = w.hash; // BAD: a string (or null)
w.complete = true; // BAD: read-only
w.addEventListener('softscope-change', (e) => e.detail.hsh); // BAD: no such detail
export { n };
