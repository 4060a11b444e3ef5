// A learned chapter-boundary scorer: features of every gap between speech passages, and a logistic regression fitted to QMSum's human topic chapters (train split).
import { depthScores, hasCue, lexicalVectors, opensStep, sparseCosine, speakerVectors, zscores, type BlockLike } from './cohesion.js';
import type { EnrichSegment } from './types.js';

/** A block as the features see it: its segments and where it starts. */
export interface FeatureBlock extends BlockLike {
  startMs: number;
}

/**
 * The features of a gap, in this order. Every one is language-independent but the cue (which has lists for seven
 * languages); cohesion is compared within the transcript (z-scores), so a talk's own vocabulary sets the scale.
 */
export const GAP_FEATURES = [
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
] as const;
export type GapFeature = (typeof GAP_FEATURES)[number];

/** A logistic regression over standardised gap features (a long talk's `GAP_FEATURES`, or a short talk's `SHORT_GAP_FEATURES`). */
export interface BoundaryModel<F extends string = GapFeature> {
  features: readonly F[];
  mean: readonly number[];
  sd: readonly number[];
  weights: readonly number[];
  bias: number;
}

/** Smoothed (1-2-1) depth of a z-scored cohesion curve. */
function depthOf(curve: readonly number[]): number[] {
  const z = zscores(curve);
  const smooth = z.map((c, i) => 0.25 * (z[i - 1] ?? c) + 0.5 * c + 0.25 * (z[i + 1] ?? c));
  return depthScores(smooth);
}

/** Cosine of the summed sparse vectors of the `w` blocks before gap `g` and the `w` blocks from it, for every gap 1..n-1. */
function windowCosines(vectors: readonly ReadonlyMap<string, number>[], w: number): number[] {
  const n = vectors.length;
  const out: number[] = [];
  for (let g = 1; g < n; g++) {
    const l = new Map<string, number>();
    const r = new Map<string, number>();
    for (let i = Math.max(0, g - w); i < g; i++) for (const [k, v] of vectors[i]!) l.set(k, (l.get(k) ?? 0) + v);
    for (let i = g; i < Math.min(n, g + w); i++) for (const [k, v] of vectors[i]!) r.set(k, (r.get(k) ?? 0) + v);
    out.push(sparseCosine(l, r));
  }
  return out;
}

/**
 * The feature rows of every gap: `rows[g - 1]` describes the gap before block `g` (g = 1..n-1), in `GAP_FEATURES` order;
 * the speaker features are NaN when no segment has a speaker label. Deterministic; about linear in the transcript's length.
 */
export function gapFeatureRows(segments: readonly EnrichSegment[], blocks: readonly FeatureBlock[], language?: string): number[][] {
  const n = blocks.length;
  if (n < 2) return [];
  const lex = lexicalVectors(blocks, language);
  const voices = speakerVectors(segments, blocks);
  const lexCos = new Map<number, number[]>();
  for (const w of [2, 4, 8, 16]) lexCos.set(w, windowCosines(lex, w));
  const spk2 = windowCosines(voices, 2);
  const spk4 = windowCosines(voices, 4);
  const gap = (c: readonly number[]) => zscores(c).map((z) => -z);
  const lexGap = [2, 4, 8, 16].map((w) => gap(lexCos.get(w)!));
  const lexDepth = [2, 4, 8, 16].map((w) => depthOf(lexCos.get(w)!));
  const spkGap2 = gap(spk2);
  const spkGap4 = gap(spk4);
  const spkGap8 = gap(windowCosines(voices, 8));
  const spkDepth4 = depthOf(spk4);

  // Novelty: the share of the next four blocks' content-word weight in words never heard before the gap.
  const seen = new Set<string>();
  const novelty: number[] = [];
  for (let g = 1; g < n; g++) {
    for (const k of lex[g - 1]!.keys()) seen.add(k);
    let all = 0;
    let fresh = 0;
    for (let i = g; i < Math.min(n, g + 4); i++)
      for (const [k, v] of lex[i]!) {
        all += v;
        if (!seen.has(k)) fresh += v;
      }
    novelty.push(all === 0 ? 0 : fresh / all);
  }
  const noveltyZ = zscores(novelty);

  const pauses: number[] = [];
  for (let i = 1; i < segments.length; i++) pauses.push(Math.max(0, segments[i]!.startMs - segments[i - 1]!.endMs));
  const pauseMean = pauses.reduce((s, v) => s + v, 0) / Math.max(1, pauses.length);
  const pauseSd = Math.sqrt(pauses.reduce((s, v) => s + (v - pauseMean) ** 2, 0) / Math.max(1, pauses.length));
  // The lead speaker (most turns: a chair, a host, a project manager) tends to open a new subject.
  const turns = new Map<string, number>();
  for (const s of segments) if (s.speakerLabel?.trim()) turns.set(s.speakerLabel.trim(), (turns.get(s.speakerLabel.trim()) ?? 0) + 1);
  const lead = [...turns].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const leadShare = zscores(
    voices.map((v) =>
      lead === undefined
        ? 0
        : (v.get(lead) ?? 0) /
          Math.max(
            1,
            [...v.values()].reduce((x, y) => x + y, 0),
          ),
    ),
  );
  const turnRate = zscores(blocks.map((b) => (b.last - b.first + 1) / Math.max(1, b.text.length)));
  const startMs = blocks[0]!.startMs;
  const endMs = Math.max(...segments.map((s) => s.endMs));
  const span = Math.max(1, endMs - startMs);

  // Without speaker labels (a transcript not diarised) the speaker features say nothing: NaN, not a misleading 0.
  const labelled = turns.size > 0;
  const unknown = (v: number) => (labelled ? v : Number.NaN);
  const rows: number[][] = [];
  for (let g = 1; g < n; g++) {
    const b = blocks[g]!;
    let cueOpen = 0;
    for (let i = b.first; i <= Math.min(b.last, b.first + 2); i++) if (hasCue(segments[i]!.text)) cueOpen = 1;
    let question = 0;
    for (let i = b.first; i <= Math.min(b.last, b.first + 2); i++) if (/[?¿]/u.test(segments[i]!.text)) question = 1;
    let cueInBlock = 0;
    for (let i = b.first; i <= b.last; i++) if (hasCue(segments[i]!.text)) cueInBlock = 1;
    const pause = b.first > 0 ? Math.max(0, segments[b.first]!.startMs - segments[b.first - 1]!.endMs) : 0;
    const pauseZ = pauseSd < 50 ? 0 : Math.min(3, Math.max(0, (pause - pauseMean) / pauseSd));
    const prevSpeaker = b.first > 0 ? segments[b.first - 1]!.speakerLabel?.trim() : undefined;
    const speaker = segments[b.first]!.speakerLabel?.trim();
    const speakerChange = prevSpeaker && speaker && prevSpeaker !== speaker ? 1 : 0;
    const d4 = lexDepth[1]!;
    let peak = 1;
    for (let j = Math.max(0, g - 3); j <= Math.min(d4.length - 1, g + 1); j++) if (j !== g - 1 && d4[j]! > d4[g - 1]!) peak = 0;
    const rel = (b.startMs - startMs) / span;
    rows.push([
      lexGap[0]![g - 1]!,
      lexGap[1]![g - 1]!,
      lexGap[2]![g - 1]!,
      lexDepth[0]![g - 1]!,
      d4[g - 1]!,
      lexDepth[2]![g - 1]!,
      peak,
      unknown(spkGap2[g - 1]!),
      unknown(spkGap4[g - 1]!),
      unknown(spkDepth4[g - 1]!),
      noveltyZ[g - 1]!,
      cueOpen,
      cueInBlock,
      pauseZ,
      unknown(speakerChange),
      rel,
      4 * rel * (1 - rel),
      lexGap[3]![g - 1]!,
      lexDepth[3]![g - 1]!,
      unknown(spkGap8[g - 1]!),
      unknown(lead !== undefined && segments[b.first]!.speakerLabel?.trim() === lead ? 1 : 0),
      unknown(leadShare[g]!),
      question,
      turnRate[g]!,
    ]);
  }
  return rows;
}

/**
 * The features of a gap between two units of a short talk (its sentences, `unitsOf` in segment.ts), in this order: lexical
 * cohesion 2, 3 and 5 units a side and its depth, the pause, the share of new words, and whether a step cue opens the
 * unit. A tutorial's steps are a few sentences long, so the windows are sentences, not the long talk's passages; there
 * are no speaker features (one voice, mostly).
 */
export const SHORT_GAP_FEATURES = ['lexGap2', 'lexGap3', 'lexGap5', 'lexDepth3', 'lexDepth5', 'pauseZ', 'novelty3', 'stepOpen'] as const;
export type ShortGapFeature = (typeof SHORT_GAP_FEATURES)[number];

/** The pause before each segment (0 before the first) as a z-score over the transcript, between 0 and 3 (0 when pauses hardly vary). */
function pauseScores(segments: readonly EnrichSegment[]): (first: number) => number {
  const pauses: number[] = [];
  for (let i = 1; i < segments.length; i++) pauses.push(Math.max(0, segments[i]!.startMs - segments[i - 1]!.endMs));
  const mean = pauses.reduce((s, v) => s + v, 0) / Math.max(1, pauses.length);
  const sd = Math.sqrt(pauses.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, pauses.length));
  return (first) => {
    const pause = first > 0 ? Math.max(0, segments[first]!.startMs - segments[first - 1]!.endMs) : 0;
    return sd < 50 ? 0 : Math.min(3, Math.max(0, (pause - mean) / sd));
  };
}

/** The share of the next `ahead` blocks' content-word weight in words never heard before each gap, z-scored (gaps 1..n-1). */
function noveltyScores(lex: readonly ReadonlyMap<string, number>[], ahead: number): number[] {
  const seen = new Set<string>();
  const novelty: number[] = [];
  for (let g = 1; g < lex.length; g++) {
    for (const k of lex[g - 1]!.keys()) seen.add(k);
    let all = 0;
    let fresh = 0;
    for (let i = g; i < Math.min(lex.length, g + ahead); i++)
      for (const [k, v] of lex[i]!) {
        all += v;
        if (!seen.has(k)) fresh += v;
      }
    novelty.push(all === 0 ? 0 : fresh / all);
  }
  return zscores(novelty);
}

/** The feature rows of every gap of a short talk: `rows[g - 1]` describes the gap before unit `g`, in `SHORT_GAP_FEATURES` order. */
export function shortGapFeatureRows(segments: readonly EnrichSegment[], units: readonly BlockLike[], language?: string): number[][] {
  const n = units.length;
  if (n < 2) return [];
  const lex = lexicalVectors(units, language);
  const gap = (c: readonly number[]) => zscores(c).map((z) => -z);
  const [c2, c3, c5] = [2, 3, 5].map((w) => windowCosines(lex, w)) as [number[], number[], number[]];
  const [lexGap2, lexGap3, lexGap5] = [gap(c2), gap(c3), gap(c5)];
  const [lexDepth3, lexDepth5] = [depthOf(c3), depthOf(c5)];
  const novelty = noveltyScores(lex, 3);
  const pause = pauseScores(segments);
  const rows: number[][] = [];
  for (let g = 1; g < n; g++) {
    const first = units[g]!.first;
    rows.push([
      lexGap2[g - 1]!,
      lexGap3[g - 1]!,
      lexGap5[g - 1]!,
      lexDepth3[g - 1]!,
      lexDepth5[g - 1]!,
      pause(first),
      novelty[g - 1]!,
      opensStep(segments[first]!.text, language) ? 1 : 0,
    ]);
  }
  return rows;
}

/** The model's probability that a gap opens a new chapter (a NaN feature counts as its training mean). */
export function boundaryProbability(row: readonly number[], model: BoundaryModel<string>): number {
  let z = model.bias;
  // A feature the transcript cannot tell (NaN: speakers without labels) counts as the training mean, adding nothing.
  for (let i = 0; i < model.weights.length; i++) if (Number.isFinite(row[i]!)) z += model.weights[i]! * ((row[i]! - model.mean[i]!) / (model.sd[i]! || 1));
  return 1 / (1 + Math.exp(-z));
}
