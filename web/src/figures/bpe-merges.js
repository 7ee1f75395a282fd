// Byte-pair encoding learned on a text the reader edits (calc 'bpe', Sennrich et al. 2016): the
// text's token count after each merge, every point labelled with the token the merge made and
// how often its pair occurred, and the words as the final merges cut them. The engine splits
// words at whitespace and words into Unicode code points (not bytes), ends every word with the
// marker </w>, and breaks ties in pair counts by the pair seen first in the text.
import { formatDecimal } from '../runtime/format.js';
import { chart, linear, colours, series } from './shared/chart-config.js';

const MAX_MERGES = 40;
const SENNRICH = 'low low low low low lower lower newest newest newest newest newest newest widest widest widest';

// A word's final segmentation, the tokens joined by a thin bar: "wi|d|est</w> ×3".
const cut = (w) => `${w.tokens.join('|')} ×${w.count}`;

// The segmented words, as many lines of at most `width` characters as `lines` allows.
function wordLines(words, width = 44, lines = 3) {
  const out = [''];
  for (const w of words) {
    const piece = cut(w);
    const last = out.length - 1;
    if (out[last] === '') out[last] = piece;
    else if (out[last].length + 3 + piece.length <= width) out[last] += ` · ${piece}`;
    else if (out.length < lines) out.push(piece);
    else { out[last] += ' …'; break; }
  }
  return out;
}

// The y axis's top: the first multiple of a 1-2-5 step (at most eight steps) at or above v, so
// the top tick is one of the axis's round ticks (120 for the toy text's 95 tokens, not 106).
function roundTop(v) {
  for (let step = 10; ; step *= 10) {
    for (const k of [1, 2, 5]) if (v / (k * step) <= 8) return k * step * Math.ceil(v / (k * step));
  }
}

export default {
  id: 'bpe-merges',
  title: 'Byte-pair encoding, one merge at a time',
  caption:
    'The engine learns BPE on the text in the box: it counts every adjacent pair of symbols over the words, merges the most frequent pair everywhere, and repeats. Each point is one merge, labelled with the new token and how often its pair occurred; the curve is the text’s token count, falling by that count at each step. Under the axis: every distinct word as the merges now cut it (| between tokens, </w> the end-of-word marker). The default is the toy vocabulary of Sennrich et al. (2016): e s, es t and est </w> come first. Step the merges from 0 to 10 and watch newest</w> become one token. Then choose the sample “Accented words, emoji and Chinese” at 0 merges: é, ï, ü, 🙂 and each Chinese character are one base symbol each, because the engine splits words into Unicode code points, not bytes.',
  simulation: true,
  params: [
    { key: 'text', label: 'Text (words split at spaces)', from: ['bpe', 'text'], samplesLabel: 'Sample text',
      samples: [{ label: 'Sennrich et al. (2016): low, lower, newest, widest', value: SENNRICH },
        { label: 'English: the cat sat on the mat', value: 'the cat sat on the mat and the cat ate the rat that sat on the hat' },
        { label: 'Accented words, emoji and Chinese', value: 'café café naïve naïve über über 🙂🙂 🙂🙂 日本語 日本語' }] },
    { key: 'merges', label: 'Merges learned', from: ['bpe', 'merges'], max: MAX_MERGES, default: 10 },
  ],

  data(engine, p) {
    const r = engine.calc('bpe', { text: p.text, merges: p.merges, end_of_word: true });
    const points = [{ x: 0, y: r.base_token_count, label: `${r.base_token_count} tokens` },
      ...r.steps.map((s) => ({ x: s.rank, y: s.token_count, label: `${s.token} (${s.count})` }))];
    const table = {
      columns: ['Merge', 'Pair', 'New token', 'Pair count', 'Tokens of the text after it'],
      rows: [[0, '', '', '', r.base_token_count], ...r.steps.map((s) => [s.rank, `${s.pair[0]} + ${s.pair[1]}`, s.token, s.count, s.token_count])],
    };
    return {
      merges: p.merges, steps: r.steps, points, words: r.words, tokens: r.tokens, token_count: r.token_count,
      base_token_count: r.base_token_count, vocab_size: r.vocab_size, base_symbols: r.base_symbols,
      word_count: r.word_count, stopped_early: r.stopped_early, table,
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const head = `${data.steps.length} merges: ${formatDecimal(data.token_count)} tokens for ${formatDecimal(data.word_count)} words, vocabulary ${formatDecimal(data.vocab_size)} (${formatDecimal(data.base_symbols.length)} base symbols)${data.stopped_early ? ', stopped: no pair left twice' : ''}`;
    return chart(theme, {
      datasets: [series(pick(), {
        label: 'Tokens of the text after each merge (label: new token, pair count)', data: data.points, showLine: true,
        pointRadius: 3, borderWidth: 2, pointLabels: true,
      })],
      scales: {
        x: linear(['Merges learned (count)', head, ...wordLines(data.words)], { range: [0, MAX_MERGES + 1] }),
        y: linear('Tokens of the text (count)', { range: [0, roundTop(1.1 * data.base_token_count)] }),
      },
      tooltip: (ctx) => (ctx.dataIndex === 0 ? `Before any merge: ${ctx.raw.y} tokens`
        : `Merge ${ctx.raw.x}: ${ctx.raw.label}, text now ${ctx.raw.y} tokens`),
    });
  },
};
