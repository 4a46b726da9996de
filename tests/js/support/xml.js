// A strict little XML well-formedness checker for the SVG the CLI writes (no
// dependency): one root, tags nested and closed in order, attributes quoted
// and unique, & only as an entity, nothing but whitespace outside the root.
// Returns the elements in document order as { name, attrs, depth, text } so
// tests can look inside; throws an Error saying where it broke.

const NAME = '[A-Za-z_][\\w.:-]*';
const OPEN = new RegExp(`^<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>`);
const CLOSE = new RegExp(`^</(${NAME})\\s*>`);
const ATTR = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"<]*)"|'([^'<]*)')`, 'g');
const ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

const unescape = (s) => s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e) =>
  ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] ?? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1))));

export function parseXml(s) {
  const elements = [], stack = [];
  let i = 0, roots = 0;
  const fail = (msg) => { throw new Error(`XML: ${msg} at offset ${i}: ${JSON.stringify(s.slice(i, i + 40))}`); };
  if (s.startsWith('<?xml')) {
    const e = s.indexOf('?>');
    if (e < 0) fail('unterminated XML declaration');
    i = e + 2;
  }
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    const text = s.slice(i, lt < 0 ? s.length : lt);
    if (ENTITY.test(text)) { i += text.search(ENTITY); fail('bare &'); }
    if (stack.length === 0 && text.trim() !== '') fail('text outside the root element');
    if (stack.length) stack[stack.length - 1].text += unescape(text);
    if (lt < 0) break;
    i = lt;
    const rest = s.slice(i);
    if (rest.startsWith('<!--')) {
      const e = s.indexOf('-->', i);
      if (e < 0) fail('unterminated comment');
      i = e + 3;
      continue;
    }
    if (rest.startsWith('<?') || rest.startsWith('<!')) fail('unexpected declaration');
    let m = CLOSE.exec(rest);
    if (m) {
      const top = stack.pop();
      if (!top) fail(`</${m[1]}> without an open element`);
      if (top.name !== m[1]) fail(`</${m[1]}> closes <${top.name}>`);
      i += m[0].length;
      continue;
    }
    m = OPEN.exec(rest);
    if (!m) fail('malformed tag');
    const attrs = {};
    for (const a of m[2].matchAll(ATTR)) {
      const v = a[2] ?? a[3];
      if (Object.prototype.hasOwnProperty.call(attrs, a[1])) fail(`duplicate attribute ${a[1]}`);
      if (ENTITY.test(v)) fail(`bare & in attribute ${a[1]}`);
      attrs[a[1]] = unescape(v);
    }
    if (stack.length === 0 && ++roots > 1) fail('a second root element');
    const el = { name: m[1], attrs, depth: stack.length, text: '' };
    elements.push(el);
    if (!m[3]) stack.push(el);
    i += m[0].length;
  }
  if (stack.length) fail(`<${stack[stack.length - 1].name}> is never closed`);
  if (roots !== 1) fail('no root element');
  return elements;
}
