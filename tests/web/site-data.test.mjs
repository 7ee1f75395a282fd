// The pure page-generation functions of the site pages (no browser): the course page's texts
// and first lesson, track parts, the
// concept graph and its layout, the resources check, result formatting; and the content
// checks' messages on bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trackNumbers, trackParts, trackAssumes } from '../../web/scripts/track.js';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { conceptGraph, normalizeTopic, topicId } from '../../web/scripts/concept-map.js';
import { conceptMapSvg, countCrossings, edgesThroughNodes } from '../../web/scripts/concept-map-layout.js';
import { homePage } from '../../web/scripts/home.js';
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

test('course page: its texts are checked by name; it starts with the first written lesson in course order', () => {
  const home = { title: 'T', line: 'L', written: 'lessons written', modules: 'The modules', unwritten: 'not written yet',
    start: { heading: 'Where to start', first: 'First lesson', track: { label: 't', note: 'n' }, overview: { label: 'o', note: 'n' } },
    about: ['One.', 'Two.'], needs: { heading: 'What you need', items: ['A browser.'] } };
  const modules = [{ lessons: [{ slug: 'a', available: false }] }, { lessons: [{ slug: 'b', available: false }, { slug: 'c', available: true }, { slug: 'd', available: true }] }];
  assert.equal(homePage(home, modules).first.slug, 'c');
  assert.equal(homePage(home, [{ lessons: [{ slug: 'a', available: false }] }]).first, null);
  assert.throws(() => homePage(undefined, modules), /needs a "home:" block/);
  assert.throws(() => homePage({ ...home, line: '' }, modules), /home\.line must be a non-empty text/);
  assert.throws(() => homePage({ ...home, start: { ...home.start, track: {} } }, modules), /home\.start\.track\.label/);
  assert.throws(() => homePage({ ...home, about: [] }, modules), /home\.about must be a list/);
  assert.throws(() => homePage({ ...home, needs: { heading: 'h', items: ['ok', 3] } }, modules), /home\.needs\.items must be a list/);
});

test('concept graph: lesson, planned and topic nodes; edges from prerequisites', () => {
  const lessons = [{ slug: 'b', prerequisites: { lessons: ['a'], topics: ['Matrix multiplication'] } },
    { slug: 'c', prerequisites: { lessons: ['b', 'a'], topics: ['matmul', 'softmax'] } }];
  const data = { taught_by: { a: ['Adam'] }, same_topic: [['matrix multiplication', 'matmul']], planned: { a: { topics: ['calculus'] } } };
  const g = conceptGraph(lessons, course.modules, data);
  assert.deepEqual(g.nodes.map((n) => [n.id, n.kind, n.band]).sort(), [['a', 'planned', 1], ['b', 'lesson', 2], ['c', 'lesson', 2],
    [topicId('calculus'), 'topic', 0], [topicId('matrix multiplication'), 'topic', 0], [topicId('softmax'), 'topic', 0]].sort());
  // One node for both spellings; a -> c (and matmul -> c) is implied by a path through b.
  assert.deepEqual(g.edges.map((e) => `${e.from}>${e.to}${e.implied ? ' (implied)' : ''}`).sort(), ['a>b', 'a>c (implied)', 'b>c',
    'topic-calculus>a', 'topic-matrix-multiplication>b', 'topic-matrix-multiplication>c (implied)', 'topic-softmax>c'].sort());
  const { svg, edges } = conceptMapSvg(g, ['Outside topics', 'Basics', 'Part one']);
  assert.equal((svg.match(/<a class="cm-node cm-lesson"/g) ?? []).length, 2);
  assert.match(svg, /<g class="cm-node cm-planned" data-node="a" role="img" aria-label="A \(lesson not written yet\)">/);
  assert.equal((svg.match(/class="cm-edge"/g) ?? []).length, 5);
  assert.equal(edges.length, 5);
  const bad = (l, d = data) => () => conceptGraph(l, course.modules, d);
  assert.throws(bad([{ slug: 'b', prerequisites: { lessons: ['nope'] } }]), /"nope" is not in content\/course.yaml/);
  assert.throws(bad([{ slug: 'b', prerequisites: { topics: ['ADAM'] } }]), /topic "ADAM" is taught by the lesson "a"; list that lesson/);
  assert.throws(bad([{ slug: 'a', prerequisites: {} }]), /lesson "a" is written now; remove its planned entry/);
  assert.throws(bad([], { same_topic: [['Adam']], taught_by: { a: ['adam'] } }), /both an outside topic and taught by lesson a/);
  assert.throws(bad([], { planned: { zz: {} } }), /planned names "zz"/);
  assert.equal(normalizeTopic('The transformer block'), 'transformer block');
  assert.equal(normalizeTopic('attention (queries, keys, values)'), 'attention');
});

test('crossings: two edges that swap sides cross once', () => {
  const line = (from, to, pts) => ({ from, to, points: pts });
  assert.equal(countCrossings([line('a', 'b', [[0, 0], [10, 10]]), line('c', 'd', [[10, 0], [0, 10]])]), 1);
  assert.equal(countCrossings([line('a', 'b', [[0, 0], [0, 10]]), line('c', 'd', [[10, 0], [10, 10]])]), 0);
});

// The course's own map: the content the site is built from.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const yaml = createRequire(path.join(root, 'web/package.json'))('js-yaml');
const readYaml = (f) => yaml.load(fs.readFileSync(path.join(root, 'content', f), 'utf8'));
const realCourse = readYaml('course.yaml');
const realLessons = fs.readdirSync(path.join(root, 'content/lessons')).filter((f) => f.endsWith('.md'))
  .map((f) => ({ slug: f.replace(/\.md$/, ''), ...yaml.load(/^---\n([\s\S]*?)\n---\n/.exec(fs.readFileSync(path.join(root, 'content/lessons', f), 'utf8'))[1]) }));
const bandTitles = ['Outside topics', ...realCourse.modules.map((m, i) => `${i + 1} · ${m.title}`)];

test('the course\'s concept map: 30 lessons once each, no course lesson as a topic, few crossings', () => {
  const mapData = readYaml('concept-map.yaml');
  const g = conceptGraph(realLessons, realCourse.modules, mapData);
  const slugs = realCourse.modules.flatMap((m) => m.lessons.map((l) => l.slug));
  assert.equal(slugs.length, 30);
  const lessonNodes = g.nodes.filter((n) => n.kind !== 'topic');
  assert.deepEqual(lessonNodes.map((n) => n.id).sort(), [...slugs].sort());
  assert.equal(new Set(g.nodes.map((n) => n.id)).size, g.nodes.length);
  const labels = g.nodes.map((n) => normalizeTopic(n.label));
  assert.equal(new Set(labels).size, labels.length, 'no idea drawn twice');
  const aliases = new Set(Object.values(mapData.taught_by).flat().map(normalizeTopic));
  for (const n of g.nodes.filter((m) => m.kind === 'topic')) assert.ok(!aliases.has(normalizeTopic(n.label)), `${n.label} is a course lesson`);
  const ids = new Set(g.nodes.map((n) => n.id));
  for (const e of g.edges) assert.ok(ids.has(e.from) && ids.has(e.to), `${e.from}>${e.to}`);
  // Every lesson is connected to something.
  for (const s of slugs) assert.ok(g.edges.some((e) => e.from === s || e.to === s), `${s} is isolated`);
  const { edges, boxes } = conceptMapSvg(g, bandTitles);
  // Measured: 81 pairs of the 45 drawn edges cross. Before: the dagre layout of main (25
  // nodes, 55 edges) had 87; dagre on this graph's 77 edges 172; this banded layout 463 with
  // implied arrows drawn, 89 before lanes kept out of gaps between joined neighbours.
  const crossings = countCrossings(edges);
  assert.ok(crossings <= 85, `${crossings} crossings`);
  assert.deepEqual(edgesThroughNodes(edges, boxes), []);
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
