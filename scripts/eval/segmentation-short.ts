// Fits the short-talk boundary model to tutorialvqa's human chapters of its dev videos (sha1 of the id even; the held-out
// videos are never read) and chooses its decoding there; reports Pk and WindowDiff in-sample and cross-validated:
//   npx tsx scripts/eval/segmentation-short.ts [--library <tutorialvqa dir>] [--write] [--folds 5]
import { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { SHORT_GAP_FEATURES, boundaryProbability, shortGapFeatureRows, type BoundaryModel, type ShortGapFeature } from '../../pipeline/enrich/boundary-model.js';
import { shortTalkStarts, tocStarts, unitsOf, type Block } from '../../pipeline/enrich/segment.js';
import { DEFAULT_CHAPTER_BOUNDS, minChapterMs, type EnrichSegment } from '../../pipeline/enrich/types.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { defaultK, pk, referenceStarts, windowDiff } from './segmentation.js';
import { devEpisodes } from './segmentation-run.js';
import { fitLogistic } from './segmentation-train.js';

/** One short talk's gaps between units, ready to fit and decode. */
export interface TrainingTalk {
  id: string;
  segments: EnrichSegment[];
  units: Block[];
  /** `rows[g - 1]`: features of the gap before unit g. */
  rows: number[][];
  valid: boolean[];
  /** Gaps within `radius` units of a human chapter start. */
  labels: number[];
  reference: number[];
}

/** Decoding knobs chosen on the training talks. */
export interface ShortDecoding {
  minProbability: number;
  perMinute: number;
}

/** The dev talks of a library (at least two human chapters, ten segments) with their unit gaps' features and labels. */
export async function loadTalks(dir: string, { radius = 1, drop = [] as readonly string[], language = 'en' } = {}): Promise<TrainingTalk[]> {
  const dropped = SHORT_GAP_FEATURES.map((f) => drop.includes(f));
  return (await devEpisodes(dir)).map((ep) => {
    const segments: EnrichSegment[] = ep.transcript!.segments;
    const units = unitsOf(segments);
    // A dropped feature is 0 everywhere: its weight fits to 0, as if it were not there.
    const rows = shortGapFeatureRows(segments, units, language).map((row) => row.map((v, j) => (dropped[j] ? 0 : v)));
    const reference = referenceStarts(
      segments.map((s) => s.startMs),
      (ep.chapters ?? []).map((c) => c.startMs),
    );
    const near = new Set<number>();
    for (const r of reference) {
      const u = units.findLastIndex((x) => x.first <= r);
      for (let g = u - radius; g <= u + radius; g++) if (g >= 1 && g < units.length) near.add(g);
    }
    return { id: ep.id, segments, units, rows, valid: rows.map(() => true), labels: rows.map((_, i) => (near.has(i + 1) ? 1 : 0)), reference };
  });
}

/** Pk, WindowDiff and chapters of one talk cut with this model and decoding, the steps `segmentTranscript` takes. */
export function scoreTalk(
  t: TrainingTalk,
  model: BoundaryModel<ShortGapFeature>,
  decoding: ShortDecoding,
  { bounds = DEFAULT_CHAPTER_BOUNDS, cuedSteps = true, refine = true, toc = true } = {},
): { pk: number; wd: number; chapters: number } {
  const n = t.segments.length;
  const k = defaultK(n, t.reference);
  const startMs = t.segments[0]!.startMs;
  const endMs = Math.max(...t.segments.map((s) => s.endMs));
  let hyp: number[] = [];
  if (endMs - startMs >= bounds.singleBelowMs && t.units.length >= 3) {
    const probabilities = [0, ...t.rows.map((row) => boundaryProbability(row, model))];
    hyp = shortTalkStarts(t.segments, t.units, probabilities, { minMs: minChapterMs(bounds, endMs - startMs), endMs, ...decoding, language: 'en', cuedSteps, refine });
  }
  if (toc) hyp = tocStarts(hyp);
  return { pk: pk(n, t.reference, hyp, k), wd: windowDiff(n, t.reference, hyp, k), chapters: hyp.length + 1 };
}

const mean = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

const GRID: ShortDecoding[] = [];
for (const minProbability of [0.1, 0.2, 0.3, 0.4, 0.5]) for (const perMinute of [0.5, 0.75, 1, 1.25, 1.5]) GRID.push({ minProbability, perMinute });

/** The decoding of the grid with the lowest mean Pk over `talks` (ties: the earlier in the grid). */
export function chooseShortDecoding(talks: readonly TrainingTalk[], model: BoundaryModel<ShortGapFeature>): { decoding: ShortDecoding; pk: number } {
  let best: { decoding: ShortDecoding; pk: number } | undefined;
  for (const decoding of GRID) {
    const p = mean(talks.map((t) => scoreTalk(t, model, decoding).pk));
    if (!best || p < best.pk - 1e-12) best = { decoding, pk: p };
  }
  return best!;
}

/** The weights file as TypeScript (numbers rounded to 6 significant digits, so the file is stable across runs). */
export function shortWeightsSource(model: BoundaryModel<ShortGapFeature>, decoding: ShortDecoding, trainedOn: number): string {
  // A mean of z-scores is 0 up to rounding (1e-17): written as 0, so the file does not change with the floating-point noise.
  const num = (v: number) => (Math.abs(v) < 1e-9 ? 0 : Number(v.toPrecision(6)));
  const list = (vs: readonly number[]) => `[${vs.map(num).join(', ')}]`;
  return `// The short-talk boundary model's weights and decoding, fitted on tutorialvqa's dev videos (${trainedOn}) by scripts/eval/segmentation-short.ts: re-run it with --write to re-derive them.
import type { BoundaryModel, ShortGapFeature } from './boundary-model.js';

/** Logistic regression over the standardised gap features of a short talk (\`SHORT_GAP_FEATURES\` order). */
export const SHORT_TALK_MODEL: BoundaryModel<ShortGapFeature> = {
  features: ${JSON.stringify(model.features)},
  mean: ${list(model.mean)},
  sd: ${list(model.sd)},
  weights: ${list(model.weights)},
  bias: ${num(model.bias)},
};

/** The decoding chosen on the same videos (lowest mean Pk under the default bounds). */
export const SHORT_TALK_DECODING = { minProbability: ${decoding.minProbability}, perMinute: ${decoding.perMinute} } as const;
`;
}

type Row = { pk: number; wd: number; chapters: number };
const line = (name: string, rows: readonly Row[]) =>
  `| ${name} | ${rows.length} | ${mean(rows.map((r) => r.pk)).toFixed(4)} | ${mean(rows.map((r) => r.wd)).toFixed(4)} | ${mean(rows.map((r) => r.chapters)).toFixed(1)} |`;

async function main(): Promise<void> {
  const opts = new Command()
    .option('--library <dir>', 'the tutorialvqa library', join(PROJECT_ROOT, '..', 'shared', 'data', 'tutorialvqa'))
    .option('--l2 <n>', 'L2 penalty', Number, 10)
    .option('--drop <features>', 'features to leave out, comma-separated', '')
    .option('--radius <n>', 'a gap is a boundary when within this many units of a human chapter start', Number, 1)
    .option('--folds <n>', 'also cross-validate in this many folds (each talk scored by a model and decoding fitted without it); 0: no', Number, 5)
    .option('--write', 'write pipeline/enrich/short-talk-weights.ts')
    .parse()
    .opts<{ library: string; l2: number; radius: number; drop: string; folds: number; write?: boolean }>();
  const t = Date.now();
  const talks = await loadTalks(opts.library, { radius: opts.radius, drop: opts.drop.split(',').filter(Boolean) });
  const features = { l2: opts.l2, features: SHORT_GAP_FEATURES };
  const model = fitLogistic(talks, features);
  const { decoding } = chooseShortDecoding(talks, model);
  process.stdout.write(
    `${talks.length} dev talks; weights: ${SHORT_GAP_FEATURES.map((f, i) => `${f} ${model.weights[i]!.toFixed(3)}`).join(', ')}, bias ${model.bias.toFixed(3)}\n`,
  );
  process.stdout.write(`decoding ${JSON.stringify(decoding)}\n`);
  const out = ['| method | talks | Pk | WindowDiff | chapters |', '|---|---|---|---|---|'];
  const one = talks.map((x) => {
    const k = defaultK(x.segments.length, x.reference);
    return { pk: pk(x.segments.length, x.reference, [], k), wd: windowDiff(x.segments.length, x.reference, [], k), chapters: 1 };
  });
  out.push(line('one chapter', one));
  out.push(
    line(
      'fitted and scored on all dev talks',
      talks.map((x) => scoreTalk(x, model, decoding)),
    ),
  );
  out.push(
    line(
      'the same, no cued steps added',
      talks.map((x) => scoreTalk(x, model, decoding, { cuedSteps: false })),
    ),
  );
  out.push(
    line(
      'the same, starts not moved to step cues',
      talks.map((x) => scoreTalk(x, model, decoding, { refine: false })),
    ),
  );
  out.push(
    line(
      'the same, two chapters kept (no table-of-contents rule)',
      talks.map((x) => scoreTalk(x, model, decoding, { toc: false })),
    ),
  );
  if (opts.folds > 1) {
    const rows: Row[] = [];
    const cut: Row[] = [];
    for (let f = 0; f < opts.folds; f++) {
      const fit = talks.filter((_, i) => i % opts.folds !== f);
      const m = fitLogistic(fit, features);
      const d = chooseShortDecoding(fit, m).decoding;
      for (const h of talks.filter((_, i) => i % opts.folds === f)) {
        rows.push(scoreTalk(h, m, d));
        cut.push(scoreTalk(h, m, d, { toc: false }));
      }
    }
    out.push(line(`${opts.folds}-fold cross-validated`, rows));
    out.push(line(`the same, two chapters kept (no table-of-contents rule)`, cut));
  }
  process.stdout.write(`${out.join('\n')}\n${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  if (opts.write) {
    const path = join(PROJECT_ROOT, 'pipeline', 'enrich', 'short-talk-weights.ts');
    await writeFile(path, await format(shortWeightsSource(model, decoding, talks.length), { ...(await resolveConfig(path)), filepath: path }));
    process.stdout.write(`wrote ${path}\n`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
