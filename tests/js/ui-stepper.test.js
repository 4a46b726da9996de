// @vitest-environment happy-dom
// useRunner (web/src/runner/useRunner.js) on the main thread, the one frame loop of the progressive
// views: a slice per frame until the stepper says it is done; a new state
// goes to update() (taken in place: the work goes on) or starts the work
// over (the old stepper stopped); pause lands before the next slice; a
// throwing step is an error status, not an exception.
import { describe, it, expect, vi } from 'vitest';
import { h, render } from 'preact';
import { useRunner } from '../../web/src/runner/useRunner.js';

// A view whose work is `total` units, one per step; update() keeps a state with the same total.
function countingView(log) {
  return {
    start(ss, s) {
      let done = 0, state = s;
      const st = {
        step() { if (s.fail && done === 2) throw new Error('bad step'); done++; return done < s.total; },
        data: () => ({ done, label: state.label, total: s.total }),
        update(t) { if (t.total !== s.total) return false; state = t; return true; },
        stop() { log.push(`stop ${s.total}`); },
      };
      log.push(`start ${s.total}`);
      return st;
    },
  };
}

function mount(v, state) {
  const root = document.createElement('div');
  document.body.appendChild(root);
  const box = {};
  function Probe({ s }) {
    box.run = useRunner(v, null, s);
    return h('span', null, JSON.stringify(box.run.data));
  }
  const show = (s) => render(h(Probe, { s }), root);
  show(state);
  return { box, show, unmount: () => { render(null, root); root.remove(); } };
}

describe('useRunner on the main thread', () => {
  it('runs a slice per frame to the end; the data is the stepper\'s', async () => {
    const log = [], m = mount(countingView(log), { total: 5, label: 'a' });
    expect(m.box.run.status).toBe('running');
    await vi.waitFor(() => expect(m.box.run.status).toBe('done'));
    expect(m.box.run.data).toEqual({ done: 5, label: 'a', total: 5 });
    expect(m.box.run.frames).toBe(5);
    expect(m.box.run.done).toBe(true);
    m.unmount();
    expect(log).toEqual(['start 5', 'stop 5']);
  });

  it('a state the stepper takes goes on in place; another starts over and stops the old run', async () => {
    const log = [], m = mount(countingView(log), { total: 400, label: 'a' });
    await vi.waitFor(() => expect(m.box.run.frames).toBeGreaterThan(2));
    const run = m.box.run.run;
    m.show({ total: 400, label: 'b' });
    expect(m.box.run.run).toBe(run);
    expect(m.box.run.data.label).toBe('b');
    expect(m.box.run.data.done).toBeGreaterThan(2);
    m.show({ total: 3, label: 'b' });
    expect(m.box.run.run).toBe(run + 1);
    expect(log).toEqual(['start 400', 'stop 400', 'start 3']);
    await vi.waitFor(() => expect(m.box.run.status).toBe('done'));
    expect(m.box.run.data.done).toBe(3);
    m.unmount();
  });

  it('play(false) stops before the next slice; play(true) goes on; restart() begins again', async () => {
    // happy-dom's frames come back to back: the work is long enough that it cannot end before the pause.
    const log = [], m = mount(countingView(log), { total: 1e9, label: 'a' });
    await vi.waitFor(() => expect(m.box.run.frames).toBeGreaterThan(0));
    m.box.run.play(false);
    const at = m.box.run.data.done;
    await new Promise((r) => setTimeout(r, 50));
    expect(m.box.run.data.done).toBe(at);
    expect(m.box.run.status).toBe('paused');
    m.box.run.play(true);
    await vi.waitFor(() => expect(m.box.run.data.done).toBeGreaterThan(at));
    m.box.run.restart({ play: false });
    await vi.waitFor(() => expect(m.box.run.data.done).toBe(0));
    expect(m.box.run.status).toBe('paused');
    m.unmount();
  });

  it('a step that throws ends the run with its message', async () => {
    const m = mount(countingView([]), { total: 10, fail: true });
    await vi.waitFor(() => expect(m.box.run.status).toBe('error'));
    expect(m.box.run.error).toBe('bad step');
    expect(m.box.run.data.done).toBe(2);
    m.unmount();
  });
});
