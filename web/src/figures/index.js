// Every figure of the course: id -> lazy module loader (one module per figure in this
// folder). Each lesson group keeps its list in lists/<group>.js.
import { tensors } from './lists/tensors.js';
import { backprop } from './lists/backprop.js';
import { optimizers } from './lists/optimizers.js';
import { generalization } from './lists/generalization.js';
import { tokens } from './lists/tokens.js';
import { masks } from './lists/masks.js';
import { transformer } from './lists/transformer.js';
import { scaling } from './lists/scaling.js';
import { roofline } from './lists/roofline.js';
import { gpu } from './lists/gpu.js';
import { kernels } from './lists/kernels.js';
import { attention } from './lists/attention.js';
import { numerics } from './lists/numerics.js';
import { memory } from './lists/memory.js';
import { collectives } from './lists/collectives.js';
import { dataParallel } from './lists/data-parallel.js';
import { modelParallel } from './lists/model-parallel.js';
import { sequence } from './lists/sequence.js';
import { quantization } from './lists/quantization.js';
import { serving } from './lists/serving.js';
import { profiling } from './lists/profiling.js';
import { input } from './lists/input.js';
import { stability } from './lists/stability.js';
import { failures } from './lists/failures.js';
import { interconnect } from './lists/interconnect.js';
import { sharing } from './lists/sharing.js';
import { accelerators } from './lists/accelerators.js';
import { lora } from './lists/lora.js';
import { alignment } from './lists/alignment.js';
import { evaluation } from './lists/evaluation.js';

export const figureLoaders = { ...tensors, ...backprop, ...optimizers, ...generalization,
  ...tokens, ...masks, ...transformer, ...scaling,
  ...roofline, ...gpu, ...kernels, ...attention, ...numerics, ...memory, ...collectives,
  ...dataParallel, ...modelParallel, ...sequence, ...quantization, ...serving, ...profiling,
  ...input, ...stability, ...failures, ...interconnect, ...sharing, ...accelerators,
  ...lora, ...alignment, ...evaluation };
