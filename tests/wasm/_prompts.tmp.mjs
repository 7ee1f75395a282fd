import { engine } from '/work/wt-gpuroof/tests/wasm/figure-harness.mjs';
const ids = process.argv.slice(2);
for (const id of ids) for (let s = 0; s < 10; s++) {
  const e = engine.exercise(id, s);
  console.log(`${id} #${s}: ${e.prompt}\n   => ${e.answer} ${e.unit ?? ''} int=${e.integer}`);
}
