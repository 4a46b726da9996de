// softscope describe <kernel> [--json]: one kernel's whole descriptor — what
// it computes, the formula, the paper, its parameters with their ranges,
// defaults and meaning, which implementations and backward passes it has.
import { UsageError, toJson, num } from './shared.js';

const bound = (v) => {
  if (v === null || v === undefined) return null;
  const e = Math.log2(Math.abs(v));
  return v >= 2 ** 20 && Number.isInteger(e) ? `2^${e}` : num(v);
};

export function rangeText(p) {
  const lo = bound(p.min) ?? '-inf', hi = bound(p.max) ?? 'inf';
  const nb = p.n_bound === 'le' ? ', <= n' : p.n_bound === 'lt' ? ', < n' : '';
  return `${p.min_open || p.min === null ? '(' : '['}${lo}, ${hi}${p.max_open || p.max === null ? ')' : ']'}${nb}`;
}

export const command = {
  name: 'describe',
  summary: "one kernel's descriptor: formula, paper, parameters with ranges",
  usage: 'softscope describe <kernel> [--json]',
  options: { json: 'flag', impl: 'value' },
  help: '--json prints the registry entry as it is.',
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0]);
    if (opt.json) { ctx.out(toJson(k)); return; }
    const lines = [`${k.name} (${k.family}): ${k.summary}`, '', `  formula  ${k.formula}`, `  paper    ${k.paper}`];
    lines.push(`  input    ${k.input}`, `  output   ${k.output}${k.draws ? ` (draws: ${k.draws})` : ''}`);
    if (k.role) lines.push(`  role     ${k.role}${k.stage ? ` (stage ${k.stage}, parameter ${k.stage_param})` : ''}`);
    lines.push(`  impls    ${k.impls.join(', ')}`, `  backward ${k.has_backward ? 'yes' : 'no'}${k.has_param_backward ? ' (and with respect to its parameters)' : ''}`);
    if (k.family === 'optimizer') lines.push(`  state    ${k.state_slots} vector(s) of n${k.lookahead ? '; gradient at a look-ahead point' : ''}${k.averaged ? '; reports an averaged point' : ''}`);
    lines.push('', k.params.length ? '  parameters:' : '  no parameters');
    for (const p of k.params) {
      const def = p.choices ? p.choices[p.default - p.min] : num(p.default);
      const range = p.choices ? p.choices.join(' | ') : rangeText(p);
      lines.push(`    ${p.name} (${p.type}) = ${def}  ${range}${p.log_scale ? '  log scale' : ''}`);
      if (p.help) lines.push(`        ${p.help}`);
    }
    ctx.out(lines.join('\n'));
  },
};

export { UsageError };
