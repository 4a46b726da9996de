// @vitest-environment happy-dom
// The notice a playground tab and a widget show for what they ignored: the
// first few entries listed, the rest counted, so its DOM stays a few lines
// whatever the number of ignored keys (issue 25: a hash of 60,000 bad keys
// rendered 60,000 spans, 5 MB of DOM, and froze the page for 1.6 s).
import { describe, it, expect } from 'vitest';
import { h, render } from 'preact';
import { Notices, SHOWN } from '../../web/src/components/Notices.jsx';

const notices = (n) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(10), reason: 'not a setting of this view' }));

function mount(list) {
  const box = document.createElement('div');
  render(h(Notices, { notices: list, onDismiss: () => {} }), box);
  return box;
}

describe('Notices', () => {
  it('regress_notices_summarised: 60,000 notices render the first few and "and N more", in under 2 kB of DOM', () => {
    const box = mount(notices(60000));
    const shown = box.querySelectorAll('[data-notice]');
    expect(shown.length).toBe(SHOWN);
    expect(SHOWN).toBeLessThanOrEqual(10);
    expect([...shown].map((s) => s.getAttribute('data-notice'))).toEqual(Array.from({ length: SHOWN }, (_, i) => `k${i}`));
    expect(box.textContent).toContain(`and ${(60000 - SHOWN).toLocaleString('en-US')} more`);
    expect(box.querySelector('.notice').getAttribute('data-notices')).toBe('60000');
    expect(box.innerHTML.length).toBeLessThan(2048);
  });

  it('up to the limit every notice is listed, with no count', () => {
    const box = mount(notices(SHOWN));
    expect(box.querySelectorAll('[data-notice]').length).toBe(SHOWN);
    expect(box.textContent).not.toContain('more');
    expect(mount([]).innerHTML).toBe('');
  });

  it('a long key, value or reason is cut', () => {
    const box = mount([{ key: 'k'.repeat(5000), value: 'v'.repeat(5000), reason: 'r'.repeat(5000) }]);
    expect(box.innerHTML.length).toBeLessThan(1024);
  });
});
