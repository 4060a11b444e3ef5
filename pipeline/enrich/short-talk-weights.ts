// The short-talk boundary model's weights and decoding, fitted on tutorialvqa's dev videos (39) by scripts/eval/segmentation-short.ts: re-run it with --write to re-derive them.
import type { BoundaryModel, ShortGapFeature } from './boundary-model.js';

/** Logistic regression over the standardised gap features of a short talk (`SHORT_GAP_FEATURES` order). */
export const SHORT_TALK_MODEL: BoundaryModel<ShortGapFeature> = {
  features: ['lexGap2', 'lexGap3', 'lexGap5', 'lexDepth3', 'lexDepth5', 'pauseZ', 'novelty3', 'stepOpen'],
  mean: [0, 0, 0, 0.952771, 0.933662, 0.340441, 0, 0.177235],
  sd: [1, 1, 1, 1.05138, 1.02351, 0.662501, 1, 0.381867],
  weights: [-0.154487, 0.210081, -0.193105, 0.104663, 0.286115, 0.0539946, 0.0969912, 0.126937],
  bias: -0.618929,
};

/** The decoding chosen on the same videos (lowest mean Pk under the default bounds). */
export const SHORT_TALK_DECODING = { minProbability: 0.4, perMinute: 0.5 } as const;
