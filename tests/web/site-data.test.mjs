// The pure page-generation functions of the site pages (no browser): track parts, the
// concept graph and its layout, the resources check, result formatting; and the content
// checks' messages on bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trackNumbers, trackParts, trackAssumes } from '../../web/scripts/track.js';
import { conceptGraph, conceptMapSvg, topicId } from '../../web/scripts/concept-map.js';
import { checkResources } from '../../web/scripts/resources.js';
import { formatOutput } from '../../web/src/runtime/calc-format.js';

const course = {
  modules: [
    { title: 'Basics', description: 'd', lessons: [{ slug: 'a', title: 'A', minutes: 10, figures: 2, level: 'Beginner' }] },
    { title: 'Part one', description: 'd', lessons: [
      { slug: 'b', title: 'B', minutes: 50, figures: 4, level: 'Beginner' },
      { slug: 'c', title: 'C', minutes: 60, figures: 5, level: 'Advanced' }] },
  ],
  track: {
    parts: [{ title: 'Track part', description: 'What the part teaches.', lessons: ['c', 'b'] }],
    assumes: [{ topic: 'matrix multiplication' }, { topic: 'Adam', lesson: 'a' }],
  },
};
const outline = new Map(course.modules.flatMap((m) => m.lessons).map((l) => [l.slug, { ...l }]));

test('track parts: the track\'s own parts, numbered in their order, rows from the lessons\' summaries', () => {
  const numbers = trackNumbers(course, outline);
  assert.deepEqual([...numbers], [['c', 1], ['b', 2]]);
  for (const [slug, n] of numbers) outline.get(slug).track = n;
  const parts = trackParts(course, new Map([['b', { slug: 'b', summary: 'B summarized.' }]]), outline);
  assert.deepEqual(parts.map((p) => [p.title, p.description]), [['Track part', 'What the part teaches.']]);
  assert.deepEqual(parts[0].lessons.map((l) => [l.number, l.slug, l.meta, l.description, l.available]), [
    ['01', 'c', '60 min · 5 figures · Advanced', '', false],
    ['02', 'b', '50 min · 4 figures · Beginner', 'B summarized.', true]]);
  assert.throws(() => trackParts(course, new Map([['b', { slug: 'b' }]]), outline), /needs a summary/);
  assert.throws(() => trackNumbers({ track: { parts: [{ title: 'x', description: 'd', lessons: ['z'] }] } }, outline), /unknown lesson "z"/);
  assert.throws(() => trackNumbers({ track: { parts: [{ title: 'x', description: 'd', lessons: ['b', 'b'] }] } }, outline), /listed twice/);
  assert.throws(() => trackNumbers({ track: { parts: [{ title: 'x', lessons: ['b'] }] } }, outline), /needs a title, a description/);
  const assumes = trackAssumes(course, new Map([['a', {}]]), outline);
  assert.deepEqual(assumes.map((a) => [a.topic, a.available]), [['matrix multiplication', false], ['Adam', true]]);
});

test('concept graph: lesson, planned and topic nodes; edges from prerequisites', () => {
  const lessons = [{ slug: 'b', prerequisites: { lessons: ['a'], topics: ['Matrix multiplication'] } },
    { slug: 'c', prerequisites: { lessons: ['b'], topics: ['Matrix multiplication', 'Adam'] } }];
  const g = conceptGraph(lessons, outline);
  assert.deepEqual(g.nodes.map((n) => [n.id, n.kind]).sort(), [['a', 'planned'], ['b', 'lesson'], ['c', 'lesson'],
    [topicId('Adam'), 'topic'], [topicId('Matrix multiplication'), 'topic']].sort());
  assert.equal(g.edges.length, 5);
  const { svg, width, height } = conceptMapSvg(g);
  assert.ok(width > 0 && height > 0);
  assert.equal((svg.match(/<a class="cm-node cm-lesson"/g) ?? []).length, 2);
  assert.equal((svg.match(/class="cm-edge"/g) ?? []).length, 5);
  assert.throws(() => conceptGraph([{ slug: 'b', prerequisites: { lessons: ['nope'] } }], outline), /"nope" is not in content\/course.yaml/);
});

test('resources: fields, https addresses and lesson slugs are checked', () => {
  const good = { title: 'T', by: 'X', url: 'https://example.org/', kind: 'book', good_for: 'g', lessons: ['a'] };
  assert.equal(checkResources([good], outline).length, 1);
  assert.throws(() => checkResources([{ ...good, lessons: ['zzz'] }], outline), /lesson "zzz" is not in content\/course.yaml/);
  assert.throws(() => checkResources([{ ...good, url: 'http://x' }], outline), /https/);
  assert.throws(() => checkResources([{ ...good, kind: 'podcast' }], outline), /kind/);
  assert.throws(() => checkResources([good, good], outline), /listed twice/);
});

test('calculator results are formatted with units, or plainly', () => {
  assert.equal(formatOutput(1.0107e-3, { unit: 'us', decimals: 1 }), '1.01 ms');
  assert.equal(formatOutput(2 ** 31, { unit: 'GiB', decimals: 2 }), '2.00 GiB');
  assert.equal(formatOutput('memory', {}), 'memory');
  assert.equal(formatOutput(0.00784313725490196, {}), '0.007843');
  assert.equal(formatOutput(5.1e-6, {}), '5.100e-6');
  assert.throws(() => formatOutput(1, { unit: 'furlong' }), /unknown unit/);
});
