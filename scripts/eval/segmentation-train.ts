// Fits the chapter-boundary model to QMSum's human topic chapters of the train split and chooses its decoding there; reports Pk on val (held out) and per channel:
//   npx tsx scripts/eval/segmentation-train.ts [--library <qmsum dir>] [--write] [--folds 5]
import { Command } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { GAP_FEATURES, boundaryProbability, gapFeatureRows, type BoundaryModel, type GapFeature } from '../../pipeline/enrich/boundary-model.js';
import { SHORT_TALK_CUT, blocksOf, learnedStarts, oneVoice, shortTalkCut, tocStarts, type Block } from '../../pipeline/enrich/segment.js';
import { DEFAULT_CHAPTER_BOUNDS, type ChapterBounds, type EnrichSegment } from '../../pipeline/enrich/types.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { defaultK, pk, referenceStarts, windowDiff } from './segmentation.js';

/** One meeting's gaps, ready to fit and decode. */
export interface TrainingMeeting {
  id: string;
  split: string;
  channel: string;
  segments: EnrichSegment[];
  blocks: Block[];
  /** `rows[g - 1]`: features of the gap before block g. */
  rows: number[][];
  /** Gaps where a chapter may start (the passage starts in a new segment). */
  valid: boolean[];
  /** Gaps within one block of a human chapter start. */
  labels: number[];
  reference: number[];
}

/** Decoding knobs chosen on the training meetings. */
export interface Decoding {
  minProbability: number;
  perHour: number;
  baseCount: number;
  spacingMs: number;
}

/** The block holding segment `s` (the last one starting at or before it). */
function blockOf(blocks: readonly Block[], s: number): number {
  let b = 0;
  for (let i = 0; i < blocks.length; i++) if (blocks[i]!.first <= s) b = i;
  return b;
}

/** The dev meetings (train and val of `splits.json`, never test) with at least two human chapters, with their gap features and labels. */
export async function loadMeetings(dir: string, radius = 1, drop: readonly string[] = []): Promise<TrainingMeeting[]> {
  const splits = JSON.parse(await readFile(join(dir, 'splits.json'), 'utf8')) as Record<string, string>;
  const meta = await readLibraryMeta(dir);
  const slugs = new Map(meta.channels.map((c) => [c.id, c.slug]));
  const out: TrainingMeeting[] = [];
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(slugs.keys()), onIssue: () => undefined })) {
    const split = splits[record.id];
    if (split !== 'train' && split !== 'val') continue;
    if ((record.chapters ?? []).length < 2 || (record.transcript?.segments.length ?? 0) < 10) continue;
    const segments: EnrichSegment[] = record.transcript!.segments;
    const blocks = blocksOf(segments);
    // A dropped feature is 0 everywhere: its weight fits to 0, as if it were not there.
    const dropped = GAP_FEATURES.map((f) => drop.includes(f));
    const rows = gapFeatureRows(segments, blocks).map((row) => row.map((v, j) => (dropped[j] ? 0 : v)));
    const reference = referenceStarts(
      segments.map((s) => s.startMs),
      (record.chapters ?? []).map((c) => c.startMs),
    );
    const near = new Set<number>();
    for (const r of reference) {
      const b = blockOf(blocks, r);
      // The gap before the block holding the start, and the gaps `radius` blocks either side of it.
      for (let g = b - radius; g <= b + radius; g++) if (g >= 1 && g < blocks.length) near.add(g);
    }
    out.push({
      id: record.id,
      split,
      channel: slugs.get(record.channelId) ?? record.channelId,
      segments,
      blocks,
      rows,
      valid: rows.map((_, i) => blocks[i + 1]!.first > blocks[i]!.first),
      labels: rows.map((_, i) => (near.has(i + 1) ? 1 : 0)),
      reference,
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Solves `a x = b` (Gaussian elimination with partial pivoting; `a` is small and symmetric positive definite here). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= m[r]![k]! * x[k]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}

/**
 * L2-regularised logistic regression by Newton's method on standardised features (the bias unpenalised). Each meeting
 * weighs the same in total, so a two-hour hearing does not outweigh four short design meetings.
 */
export function fitLogistic<F extends string = GapFeature>(
  meetings: readonly Pick<TrainingMeeting, 'rows' | 'valid' | 'labels'>[],
  { l2 = 1, iterations = 25, features = GAP_FEATURES as readonly string[] as readonly F[] }: { l2?: number; iterations?: number; features?: readonly F[] } = {},
): BoundaryModel<F> {
  const d = features.length;
  const xs: number[][] = [];
  const ys: number[] = [];
  const ws: number[] = [];
  for (const m of meetings) {
    const count = m.valid.filter(Boolean).length;
    m.rows.forEach((row, i) => {
      if (!m.valid[i]) return;
      xs.push(row);
      ys.push(m.labels[i]!);
      ws.push(100 / Math.max(1, count));
    });
  }
  // A feature a meeting cannot tell (NaN) counts as the mean, as `boundaryProbability` counts it.
  const known = (j: number) => xs.filter((x) => Number.isFinite(x[j]!));
  const mean = Array.from({ length: d }, (_, j) => known(j).reduce((s, x) => s + x[j]!, 0) / Math.max(1, known(j).length));
  for (const x of xs) for (let j = 0; j < d; j++) if (!Number.isFinite(x[j]!)) x[j] = mean[j]!;
  const sd = Array.from({ length: d }, (_, j) => Math.sqrt(xs.reduce((s, x) => s + (x[j]! - mean[j]!) ** 2, 0) / xs.length) || 1);
  const zs = xs.map((x) => [1, ...x.map((v, j) => (v - mean[j]!) / sd[j]!)]);
  let beta = new Array<number>(d + 1).fill(0);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    zs.forEach((z, i) => {
      const p = 1 / (1 + Math.exp(-z.reduce((s, v, j) => s + v * beta[j]!, 0)));
      const w = ws[i]!;
      for (let a = 0; a <= d; a++) {
        grad[a]! += w * (ys[i]! - p) * z[a]!;
        for (let b = a; b <= d; b++) hess[a]![b]! += w * p * (1 - p) * z[a]! * z[b]!;
      }
    });
    for (let a = 0; a <= d; a++) {
      for (let b = 0; b < a; b++) hess[a]![b] = hess[b]![a]!;
      if (a > 0) {
        grad[a]! -= l2 * beta[a]!;
        hess[a]![a]! += l2;
      }
    }
    const step = solve(hess, grad);
    beta = beta.map((v, j) => v + step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { features: [...features], mean, sd, weights: beta.slice(1), bias: beta[0]! };
}

/** Boundary probabilities of a meeting's gaps (index g; `-Infinity` where no chapter may start). */
export function probabilitiesOf(m: TrainingMeeting, model: BoundaryModel): number[] {
  return [0, ...m.rows.map((row, i) => (m.valid[i] ? boundaryProbability(row, model) : -Infinity))];
}

/**
 * Pk and WindowDiff of one meeting segmented with these probabilities and this decoding (the same steps as
 * `segmentTranscript`): the cut, or with `toc` the chapters as published (fewer than three become one).
 */
export function scoreMeeting(
  m: TrainingMeeting,
  probabilities: readonly number[],
  decoding: Decoding,
  bounds: ChapterBounds = DEFAULT_CHAPTER_BOUNDS,
  refine = true,
  toc = false,
): { pk: number; wd: number; chapters: number } {
  const endMs = Math.max(...m.segments.map((s) => s.endMs));
  const n = m.segments.length;
  const k = defaultK(n, m.reference);
  const duration = endMs - m.segments[0]!.startMs;
  let hyp: number[];
  if (duration < bounds.singleBelowMs) hyp = [];
  // A short monologue is cut by the short-talk model, which this script does not fit (scripts/eval/segmentation-short.ts does).
  else if (duration < bounds.shortBelowMs && oneVoice(m.segments)) hyp = shortTalkCut(m.segments, bounds, { ...SHORT_TALK_CUT, refine });
  else if (m.blocks.length < 3) hyp = [];
  else hyp = learnedStarts(m.segments, m.blocks, probabilities, bounds, decoding, refine);
  if (toc) hyp = tocStarts(hyp);
  return { pk: pk(n, m.reference, hyp, k), wd: windowDiff(n, m.reference, hyp, k), chapters: hyp.length + 1 };
}

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
}

const GRID: Decoding[] = [];
for (const minProbability of [0.1, 0.2, 0.3])
  for (const baseCount of [0, 1, 2])
    for (const perHour of [1, 2, 3, 4]) for (const spacingMs of [4, 6, 9].map((x) => x * 60_000)) GRID.push({ minProbability, perHour, baseCount, spacingMs });

/** The decoding of the grid with the lowest mean Pk over `meetings` (ties: the earlier in the grid). */
export function chooseDecoding(meetings: readonly TrainingMeeting[], model: BoundaryModel, bounds = DEFAULT_CHAPTER_BOUNDS, toc = false): { decoding: Decoding; pk: number } {
  const probs = meetings.map((m) => probabilitiesOf(m, model));
  let best: { decoding: Decoding; pk: number } | undefined;
  for (const decoding of GRID) {
    const p = mean(meetings.map((m, i) => scoreMeeting(m, probs[i]!, decoding, bounds, true, toc).pk));
    if (!best || p < best.pk - 1e-12) best = { decoding, pk: p };
  }
  return best!;
}

/** Pk, WindowDiff and chapters of one meeting per row, averaged overall and per channel, beside one chapter per meeting. */
export interface ReportRow {
  n: number;
  pk: number;
  wd: number;
  chapters: number;
  pkOne: number;
}

function summarise(rows: readonly { channel: string; pk: number; wd: number; chapters: number; pkOne: number }[]): Record<string, ReportRow> {
  const out: Record<string, ReportRow> = {};
  for (const key of ['all', ...new Set(rows.map((r) => r.channel))].sort()) {
    const of = rows.filter((r) => key === 'all' || r.channel === key);
    out[key] = { n: of.length, pk: mean(of.map((r) => r.pk)), wd: mean(of.map((r) => r.wd)), chapters: mean(of.map((r) => r.chapters)), pkOne: mean(of.map((r) => r.pkOne)) };
  }
  return out;
}

/** Pk of one chapter for the whole meeting (the baseline to beat). */
function pkOne(m: TrainingMeeting): number {
  return pk(m.segments.length, m.reference, [], defaultK(m.segments.length, m.reference));
}

/** Mean Pk, WindowDiff and chapters of `meetings` under a model and decoding, overall and per channel. */
export function report(
  meetings: readonly TrainingMeeting[],
  model: BoundaryModel,
  decoding: Decoding,
  bounds = DEFAULT_CHAPTER_BOUNDS,
  refine = true,
  toc = false,
): Record<string, ReportRow> {
  return summarise(meetings.map((m) => ({ channel: m.channel, ...scoreMeeting(m, probabilitiesOf(m, model), decoding, bounds, refine, toc), pkOne: pkOne(m) })));
}

/** The weights file as TypeScript (numbers rounded to 6 significant digits, so the file is stable across runs). */
export function weightsSource(model: BoundaryModel, decoding: Decoding, trainedOn: number): string {
  const num = (v: number) => Number(v.toPrecision(6));
  const list = (vs: readonly number[]) => `[${vs.map(num).join(', ')}]`;
  return `// The boundary model's weights and decoding, fitted on QMSum's train split (${trainedOn} meetings) by scripts/eval/segmentation-train.ts: re-run it with --write to re-derive them.
import type { BoundaryModel } from './boundary-model.js';

/** Logistic regression over the standardised gap features (\`GAP_FEATURES\` order). */
export const BOUNDARY_MODEL: BoundaryModel = {
  features: ${JSON.stringify(model.features)},
  mean: ${list(model.mean)},
  sd: ${list(model.sd)},
  weights: ${list(model.weights)},
  bias: ${num(model.bias)},
};

/** The decoding chosen on the same meetings (lowest mean Pk under the default 2–20 minute bounds). */
export const BOUNDARY_DECODING = { minProbability: ${decoding.minProbability}, perHour: ${decoding.perHour}, baseCount: ${decoding.baseCount}, spacingMs: ${decoding.spacingMs} } as const;
`;
}

function table(title: string, r: Record<string, ReportRow>): string {
  const lines = [`${title}`, '| meetings | n | Pk | WindowDiff | chapters | Pk, one chapter |', '|---|---|---|---|---|---|'];
  for (const [k, v] of Object.entries(r)) lines.push(`| ${k} | ${v.n} | ${v.pk.toFixed(4)} | ${v.wd.toFixed(4)} | ${v.chapters.toFixed(1)} | ${v.pkOne.toFixed(4)} |`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const opts = new Command()
    .option('--library <dir>', 'the qmsum library', join(PROJECT_ROOT, '..', 'shared', 'data', 'qmsum'))
    .option('--l2 <n>', 'L2 penalty', Number, 1)
    .option('--drop <features>', 'features to leave out, comma-separated', '')
    .option('--radius <n>', 'a gap is a boundary when within this many blocks of a human chapter start', Number, 1)
    .option('--folds <n>', 'also cross-validate over all dev meetings (train + val) in this many folds; 0: no', Number, 0)
    .option('--max-minutes <n>', 'longest chapter while choosing the decoding and scoring (the default bound: 20)', Number, DEFAULT_CHAPTER_BOUNDS.maxMs / 60_000)
    .option('--toc', 'score the chapters as published (fewer than three become one) instead of the cut, also while choosing the decoding')
    .option('--write', 'write pipeline/enrich/boundary-weights.ts')
    .parse()
    .opts<{ library: string; l2: number; radius: number; drop: string; folds: number; maxMinutes: number; toc?: boolean; write?: boolean }>();
  const toc = opts.toc === true;
  const bounds = { ...DEFAULT_CHAPTER_BOUNDS, maxMs: opts.maxMinutes * 60_000 };
  const t = Date.now();
  const meetings = await loadMeetings(opts.library, opts.radius, opts.drop.split(',').filter(Boolean));
  const train = meetings.filter((m) => m.split === 'train');
  const val = meetings.filter((m) => m.split === 'val');
  process.stdout.write(`${meetings.length} meetings (${train.length} train, ${val.length} val) featurised in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  const model = fitLogistic(train, { l2: opts.l2 });
  process.stdout.write(`weights: ${GAP_FEATURES.map((f, i) => `${f} ${model.weights[i]!.toFixed(3)}`).join(', ')}, bias ${model.bias.toFixed(3)}\n`);
  const { decoding, pk: trainPk } = chooseDecoding(train, model, bounds, toc);
  process.stdout.write(`decoding ${JSON.stringify(decoding)} (train Pk ${trainPk.toFixed(4)})\n`);
  process.stdout.write(
    `${table('train (fitted here)', report(train, model, decoding, bounds, true, toc))}\n${table('val (held out)', report(val, model, decoding, bounds, true, toc))}\n${table('dev = train + val', report(meetings, model, decoding, bounds, true, toc))}\n`,
  );
  process.stdout.write(`${table('val, boundaries left on passage starts (no cue refinement)', report(val, model, decoding, bounds, false, toc))}\n`);
  if (opts.folds > 1) {
    const rows: { channel: string; pk: number; wd: number; chapters: number; pkOne: number }[] = [];
    for (let f = 0; f < opts.folds; f++) {
      const fit = meetings.filter((_, i) => i % opts.folds !== f);
      const held = meetings.filter((_, i) => i % opts.folds === f);
      const m = fitLogistic(fit, { l2: opts.l2 });
      const d = chooseDecoding(fit, m, bounds, toc).decoding;
      for (const h of held) rows.push({ channel: h.channel, ...scoreMeeting(h, probabilitiesOf(h, m), d, bounds, true, toc), pkOne: pkOne(h) });
    }
    const by = summarise(rows);
    process.stdout.write(`${table(`dev, ${opts.folds}-fold cross-validated (each meeting scored by a model that never saw it)`, by)}\n`);
  }
  if (opts.write) {
    if (bounds.maxMs !== DEFAULT_CHAPTER_BOUNDS.maxMs || toc) throw new Error('--write needs the default bounds and the cut (no --toc): the shipped decoding is chosen under them');
    const path = join(PROJECT_ROOT, 'pipeline', 'enrich', 'boundary-weights.ts');
    // Formatted as the repository formats it, so a re-derivation that changes nothing leaves the file untouched.
    await writeFile(path, await format(weightsSource(model, decoding, train.length), { ...(await resolveConfig(path)), filepath: path }));
    process.stdout.write(`wrote ${path}\n`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
