// The boundary model's weights and decoding, fitted on QMSum's train split (165 meetings) by scripts/eval/segmentation-train.ts: re-run it with --write to re-derive them.
import type { BoundaryModel } from './boundary-model.js';

/** Logistic regression over the standardised gap features (`GAP_FEATURES` order). */
export const BOUNDARY_MODEL: BoundaryModel = {
  features: [
    'lexGap2',
    'lexGap4',
    'lexGap8',
    'lexDepth2',
    'lexDepth4',
    'lexDepth8',
    'lexPeak4',
    'spkGap2',
    'spkGap4',
    'spkDepth4',
    'novelty4',
    'cueOpen',
    'cueInBlock',
    'pauseZ',
    'speakerChange',
    'position',
    'middle',
    'lexGap16',
    'lexDepth16',
    'spkGap8',
    'leadOpen',
    'leadShare',
    'questionOpen',
    'turnRate',
  ],
  mean: [
    0.018965, 0.0197764, 0.0143174, 0.899239, 0.981545, 0.9693, 0.170594, 0.0527293, 0.0384959, 0.823224, -0.0265701, 0.0487549, 0.0966511, 0, 0.970041, 0.509414, 0.677969,
    0.00709494, 0.810946, 0.0249866, 0.315428, -0.00908447, 0.340616, 0.0219051,
  ],
  sd: [
    0.996315, 0.999915, 1.00281, 1.00255, 1.08614, 1.05514, 0.376154, 1.01054, 1.00683, 1.13429, 0.989682, 0.215355, 0.295482, 1, 0.170474, 0.283582, 0.290508, 1.00206, 0.895107,
    1.00068, 0.464686, 0.998335, 0.473917, 0.997234,
  ],
  weights: [
    -0.105392, 0.159461, 0.144187, 0.0676037, 0.00699443, 0.040229, 0.0473644, 0.0299172, 0.0556918, 0.135454, 0.156381, 0.0162219, 0.137694, 0, -0.0766322, -0.126564, 0.265039,
    0.121603, 0.116721, 0.010735, 0.0517889, 0.00869491, -0.00189599, -0.0736049,
  ],
  bias: -1.42193,
};

/** The decoding chosen on the same meetings (lowest mean Pk under the default 2–20 minute bounds). */
export const BOUNDARY_DECODING = { minProbability: 0.3, perHour: 1, baseCount: 2, spacingMs: 240000 } as const;
