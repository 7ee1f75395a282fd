// Expands the companion programs into build/site/programs/ without building the whole site,
// for working on one program: `node web/scripts/build-programs.mjs`, then
// `node --test tests/wasm/programs.test.mjs`. The site build does the same (content.js).
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { loadPrograms, programsOut } from './programs.js';
import { repoRoot, siteDir } from './paths.js';

const course = yaml.load(fs.readFileSync(path.join(repoRoot, 'content/course.yaml'), 'utf8'));
const outline = new Map(course.modules.flatMap((m) => m.lessons).map((l) => [l.slug, l]));
const programs = loadPrograms(outline);
fs.mkdirSync(path.join(siteDir, 'programs'), { recursive: true });
for (const p of programs.values()) fs.copyFileSync(path.join(programsOut, p.file), path.join(siteDir, 'programs', p.file));
console.log(`${programs.size} programs: ${[...programs.keys()].join(', ')}`);
