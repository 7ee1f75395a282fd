// The computational graph of an expression the reader types, executed by the engine's
// reverse-mode autograd: one call to calc('autograd') parses the expression, runs the forward
// pass (every node's value) and one reverse pass from the root (every node's gradient
// d f / d node), and returns the nodes in topological order. This module only lays them out
// (the SVG graph drawer) and prints what the engine computed.
// The engine evaluates exp, log, sin, tanh... with the C library, so values are shown to four
// significant digits: the native and WASM engines then print the same text.
import { EngineError } from '../runtime/engine-api.js';
import { graphScene, wrap } from './shared/graph.js';
import { sizeOf, fontFor, text } from './shared/svg-scene.js';

// A graph larger than this is no longer readable in the figure's box.
const MAX_NODES = 40;

// Four significant digits, plain for ordinary magnitudes, exponent form beyond them; never "-0".
export function sig4(x) {
  if (x === 0) return '0';
  const r = Number(x.toPrecision(4));
  const a = Math.abs(r);
  if (a >= 1e6 || a < 1e-3) return r.toExponential(3).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(r);
}

// "12 from ^ − 0.4161 from sin = 11.5839": the shares that add up at a variable and their sum,
// all with one number of decimals: the most any share shows on its arrow (four significant
// digits), at most six significant digits for the largest, and more where rounding would
// break the sum. So the printed terms add up to the printed total.
const decimals = (v) => (String(Number(v.toPrecision(4))).split('.')[1] ?? '').length;
export function sumText(parts, total) {
  const big = Math.max(Math.abs(total), ...parts.map((x) => Math.abs(x.share)));
  const minus = (s) => s.replace(/^-/, '−');
  if (big === 0 || big >= 1e6 || parts.some((x) => x.share !== 0 && Math.abs(x.share) < 1e-3)) {
    return parts.map((x, i) => (i === 0 ? minus(sig4(x.share)) : `${x.share < 0 ? '−' : '+'} ${sig4(Math.abs(x.share))}`) + ` from ${x.op}`)
      .join(' ') + ` = ${minus(sig4(total))}`;
  }
  const fixed = (v, k) => Number(v.toFixed(k));
  let d = Math.min(Math.max(...parts.map((x) => decimals(x.share))), Math.max(0, 5 - Math.floor(Math.log10(big))));
  for (let k = d; k <= d + 3; k += 1) {
    d = k;
    const sum = parts.reduce((a, x) => a + fixed(x.share, k), 0);
    if (Math.abs(sum - fixed(total, k)) < 0.5 * 10 ** -k) break;
  }
  const num = (v) => String(Math.abs(fixed(v, d)));
  return parts.map((x, i) => {
    const neg = fixed(x.share, d) < 0;
    return (i === 0 ? `${neg ? '−' : ''}${num(x.share)}` : `${neg ? '−' : '+'} ${num(x.share)}`) + ` from ${x.op}`;
  }).join(' ') + ` = ${fixed(total, d) < 0 ? '−' : ''}${num(total)}`;
}

const KIND = { var: 'variable', const: 'constant' };
// Operators drawn as their symbols (the functions by their names).
const SYMBOL = { add: '+', sub: '−', mul: '×', div: '÷', pow: '^', neg: 'negate' };
const kindOf = (n) => KIND[n.op] ?? 'operation';

export default {
  id: 'autograd-graph',
  title: 'The computational graph: forward values and backward gradients',
  caption:
    'Each box is one node of the expression as the engine parses it: its operation, the value the forward pass computed and the gradient ∂f/∂node the reverse pass sent back. Arrows show the forward pass; gradients travel against them, starting from 1 at the output, and the orange number on each arrow is the share the reverse pass sent back along it. Follow x: it feeds two nodes, and its gradient is the sum of the two shares on its arrows, spelled out under the graph. Type your own expression (functions: exp log tanh sigmoid relu sin cos sqrt) or change the values; constants keep gradient 0 because the reverse pass never visits them.',
  params: [
    { key: 'expression', label: 'Expression f', from: ['autograd', 'expression'], samplesLabel: 'Sample expressions',
      samples: ['x*x + x', 'tanh(x*y) + relu(y - x)', { label: 'log(x - 5), rejected: log of a negative number', value: 'log(x - 5)' },
        { label: '(x + 1, rejected: a bracket never closed', value: '(x + 1' }] },
    { key: 'values', label: 'Values', from: ['autograd', 'values'], samplesLabel: 'Sample values',
      samples: [{ x: -1, y: 0.5 }, { x: 0.5, y: 2 }, { label: '{"y":3}, rejected: x has no value', value: { y: 3 } }] },
  ],

  data(engine, p) {
    const r = engine.calc('autograd', { expression: p.expression, values: p.values });
    if (r.nodes.length > MAX_NODES) {
      throw new EngineError('expression', `This expression makes ${r.nodes.length} nodes; the figure draws at most ${MAX_NODES}. Try a shorter one.`);
    }
    const nodes = r.nodes.map((n) => ({ ...n, kind: kindOf(n) }));
    const root = nodes.at(-1).id;
    // How many operations each node feeds: a node used twice (fan-out) adds two gradients.
    const uses = new Map(nodes.map((n) => [n.id, 0]));
    for (const n of nodes) for (const i of n.inputs) uses.set(i, uses.get(i) + 1);
    // The reverse pass visits the nodes that depend on a variable (the engine's reverse_visits).
    const visit = new Map();
    for (const n of nodes) visit.set(n.id, n.op === 'var' || n.inputs.some((i) => visit.get(i)));
    const visited = (id) => visit.get(id);
    const gradients = Object.entries(r.gradients).map(([name, g]) => ({ name, grad: g }));
    // What each node received along each of its outgoing arrows: the users' shares for it.
    const received = new Map(nodes.map((n) => [n.id, []]));
    for (const n of nodes) n.inputs.forEach((i, j) => { if (visited(i)) received.get(i).push({ from: n, share: n.shares[j] }); });
    const sums = nodes.filter((n) => n.op === 'var' && received.get(n.id).length > 1).map((n) => ({ name: n.label, grad: n.grad,
      parts: received.get(n.id).map((x) => ({ op: SYMBOL[x.from.op] ?? x.from.label, share: x.share })) }));
    const table = {
      columns: ['Node', 'Operation', 'Label', 'Inputs (node ids)', 'Uses', 'Visited backward', 'Forward value', 'Gradient ∂f/∂node', 'Shares received'],
      rows: nodes.map((n) => [n.id, n.op, n.label, n.inputs.join(', ') || '–', uses.get(n.id), visited(n.id) ? 'yes' : 'no', sig4(n.value), sig4(n.grad),
        received.get(n.id).map((x, i) => `${i === 0 ? sig4(x.share) : `${x.share < 0 ? '−' : '+'} ${sig4(Math.abs(x.share))}`} from node ${x.from.id}`).join(' ') || '–']),
    };
    return {
      expression: p.expression, value: r.value, gradients, reverse_visits: r.reverse_visits, sums,
      nodes: nodes.map((n) => ({ ...n, uses: uses.get(n.id), visited: visited(n.id), root: n.id === root })), table,
    };
  },

  draw(data, theme) {
    const fills = { variable: theme.palette[0], constant: 'none', operation: 'none' };
    const spec = {
      label: `Computational graph of f = ${data.expression}: ${data.nodes.length} nodes, f = ${sig4(data.value)}, ` +
        data.gradients.map((g) => `∂f/∂${g.name} = ${sig4(g.grad)}`).join(', '),
      rankdir: 'LR',
      wrapAt: 1, // one line per word: "x", "value=2", "grad=11.58"
      nodes: data.nodes.map((n) => {
        const op = n.kind === 'operation' ? `${n.op} node` : n.kind;
        // The drawer breaks labels at white space (any, non-breaking too): no spaces inside a line.
        return {
          id: `n${n.id}`,
          label: `${SYMBOL[n.op] ?? n.label.replace(/\s+/g, '')} value=${sig4(n.value)} grad=${sig4(n.grad)}`,
          fill: fills[n.kind],
          ...(n.kind === 'variable' ? { opacity: 0.25 } : {}),
          ...(n.root ? { stroke: theme.compute } : !n.visited ? { stroke: theme.muted, color: theme.muted } : {}),
          tip: `Node ${n.id}, ${op}${n.root ? ' (the output f)' : ''}${n.visited ? '' : ', not visited by the reverse pass'}: forward value ${sig4(n.value)}, gradient ∂f/∂node ${sig4(n.grad)}` +
            (n.inputs.length ? `; inputs: nodes ${n.inputs.join(', ')}` : '') +
            (n.uses > 1 ? `; used by ${n.uses} nodes, so its gradient is the sum of ${n.uses} contributions` : ''),
        };
      }),
      // Each arrow into a visited operand carries the share sent back along it.
      edges: data.nodes.flatMap((n) => n.inputs.map((i, j) => ({ from: `n${i}`, to: `n${n.id}`,
        ...(data.nodes[i].visited ? { label: sig4(n.shares[j]), labelColor: theme.compute } : {}) }))),
      legend: [
        { label: 'Variable (an input)', fill: theme.palette[0], opacity: 0.25, stroke: theme.text },
        { label: 'Constant part (not visited backward)', fill: 'none', stroke: theme.muted },
        { label: 'Output f', fill: 'none', stroke: theme.compute },
        { label: 'Forward: operand → operation; orange number: share sent back', stroke: theme.muted },
      ],
    };
    const scene = graphScene(theme, spec);
    // The results under the graph: f and each variable's gradient, and the reverse pass's visits.
    const size = fontFor(sizeOf(theme).width);
    const lines = wrap(`Output f = ${sig4(data.value)}. ` +
      data.gradients.map((g) => `∂f/∂${g.name} = ${sig4(g.grad)}`).join(', ') +
      `. ` + data.sums.map((v) => `${v.name} is used ${v.parts.length} times: ` +
        sumText(v.parts, v.grad) + '. ').join('') +
      `The reverse pass visits ${data.reverse_visits} of ${data.nodes.length} nodes.`, Math.floor(scene.width / (0.56 * size)) - 2);
    const lineH = size * 1.4;
    const y0 = scene.height + size * 0.6;
    lines.forEach((s, i) => scene.nodes.push(text(6, y0 + (i + 1) * lineH - size * 0.3, s, size, theme.text)));
    return { ...scene, height: scene.height + size * 0.6 + lines.length * lineH + size * 0.4 };
  },
};
