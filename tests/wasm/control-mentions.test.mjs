// The build's check that captions and lesson prose ask only for controls, options and samples
// their figures have (web/scripts/control-mentions.js): each of its four forms passes what the
// figure has and fails what it lacks; sentences in no form are not read; a lesson sentence is
// held to the figures of its section, or to the figure it names.
import test from 'node:test';
import assert from 'node:assert/strict';
import { figureVocabulary, checkCaption, checkLessonProse } from '../../web/scripts/control-mentions.js';

// A stand-in figure whose controls need no engine schema.
const FIG = {
  id: 'toy',
  caption: '',
  params: [
    { key: 'view', label: 'Show', type: 'select', default: 'loss', options: [{ value: 'loss', label: 'Loss' }, { value: 'path', label: 'Path on the surface' }] },
    { key: 'optimizer', label: 'Optimizer', type: 'select', default: 'sgd', options: [{ value: 'sgd', label: 'SGD' }, { value: 'adam', label: 'Adam' }] },
    { key: 'lr', label: 'Learning rate', type: 'number', min: 0, max: 1, default: 0.1 },
    { key: 'micro_batches', label: 'Micro-batches m', type: 'integer', min: 1, max: 64, default: 8 },
    { key: 'heads', label: 'Heads', type: 'select', default: 8, options: [{ value: 8, label: '8' }, { value: 32, label: '32' }, { value: 40, label: '40' }] },
    { key: 'causal', label: 'Causal mask', type: 'boolean', default: false },
    { key: 'text', label: 'Text', type: 'string', default: 'low lower', samplesLabel: 'Sample text',
      samples: [{ label: 'Accented words, emoji and Chinese', value: 'café 日本' }, 'the cat sat'] },
  ],
};
const vocab = figureVocabulary(FIG, {});
const problems = (sentence) => checkCaption({ ...FIG, caption: sentence }, vocab);

test('instructions that name what the figure has pass', () => {
  for (const s of [
    'Switch to the loss view and compare.',                 // B: an option's words
    'Choose “Path on the surface” to see the walk.',         // A: an option's label
    'Switch the view to "Loss".',                            // A: through the control's own words
    'Then choose the sample “Accented words, emoji and Chinese” at 0 merges.',
    'Choose the accented sample in the figure.',             // B: a sample's name
    'Switch to Adam, or to SGD.',                            // C: option labels
    'Choose 40 heads and watch.',                            // C: a number a control labelled "heads" accepts
    'Raise the learning rate until it diverges.',            // D: a control's label
    'Raise the micro-batches to 16.',                        // D: "micro-batches" in "Micro-batches m"
    'Turn the causal mask on and off.',                      // D: a checkbox
    'Set the heads to 32.',                                  // D: a select's value
  ]) assert.deepEqual(problems(s), [], s);
});

test('instructions that name what the figure lacks fail, naming it', () => {
  for (const [s, what] of [
    ['Switch to the gradient view.', /gradient view/],
    ['Choose “Your configuration” to build one.', /“Your configuration”/],
    ['Choose the Korean sample.', /korean sample/],
    ['Switch to Lion and compare.', /Lion/],
    ['Choose 12 heads.', /12 heads/],
    ['Raise the batch and watch.', /raise the batch/],
    ['Turn on the dropout.', /turn on the dropout/],
    ['Set the heads to 12.', /to 12, which is not one of its options/],
  ]) {
    const found = problems(s);
    assert.equal(found.length, 1, `${s}: ${found}`);
    assert.match(found[0], what);
    assert.match(found[0], /^the caption of toy: “/);
  }
});

test('sentences in none of the forms are not read', () => {
  for (const s of [
    'The data is a set of triples: the preferred ("chosen") response and the other one.',
    'Karpathy’s lecture "Let’s build the GPT tokenizer" walks through it.',
    'Adam sets the step per parameter, and the batch grows.',
    'Each step picks the most frequent pair.',
    'Type the price you are offered, as {"h100-sxm": 2.5}.',
  ]) assert.deepEqual(problems(s), [], s);
});

test('lesson prose is held to the figures of its section, or to the figure it names', () => {
  const other = { id: 'other', names: [], controls: [], options: [], samples: [] };
  const vocabOf = (id) => (id === 'toy' ? vocab : other);
  const body = [
    '## One', '', 'Switch to the loss view here.', '', '::: figure other', ':::', '',
    '## Two', '', 'Choose the accented sample in the first figure.', '',
    '## Three', '', 'Choose the accented sample in the second figure. Raise the learning rate without any figure named.', '',
    '::: figure toy', ':::', '',
  ].join('\n');
  const found = checkLessonProse(body, vocabOf, 'lesson');
  assert.equal(found.length, 2, found.join('\n'));
  assert.match(found[0], /^lesson: “Switch to the loss view here\.” .* other/);   // section One holds only "other"
  assert.match(found[1], /^lesson: “Choose the accented sample in the first figure\.”/); // the first figure is "other"
});
