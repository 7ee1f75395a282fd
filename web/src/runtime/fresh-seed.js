// "New numbers": a seed whose prompt the reader has not seen yet in this exercise. Random
// seeds alone repeat a prompt often where the parameter space is small (a handful of GPUs
// and formats), so up to `tries` random seeds are drawn and the first with an unseen prompt
// wins; once every prompt drawn was seen, the first that differs from the current one does.
// promptOf(seed) -> prompt text; seen: Set of prompts shown (updated); random() -> uint32.
export function freshSeed(promptOf, seen, current, random, tries = 32) {
  let fallback = null;
  for (let i = 0; i < tries; i += 1) {
    const seed = random();
    const prompt = promptOf(seed);
    if (!seen.has(prompt)) return seed;
    if (fallback === null && prompt !== current) fallback = seed;
  }
  return fallback ?? random();
}
