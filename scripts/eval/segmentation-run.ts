// Generated chapter boundaries against a library's human chapters: Pk and WindowDiff per episode of the dev split, with baselines.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { tocStarts } from '../../pipeline/enrich/segment.js';
import type { EmbedTexts, EnrichSegment } from '../../pipeline/enrich/types.js';
import { evenSubset } from './relevance.js';
import { isDev } from './structure/sample.js';
import { segmentWithKnobs, type SegmentSettings } from './segmentation-knobs.js';
import { defaultK, equalStarts, pk, referenceStarts, windowDiff } from './segmentation.js';

/** Mean Pk and WindowDiff of one way of segmenting over the episodes. */
export interface SegmentationRow {
  method: string;
  episodes: number;
  pk: number;
  windowDiff: number;
  /** Mean number of chapters per episode. */
  chapters: number;
}

/**
 * Episodes of the dev side that have at least two human chapters, of one channel when `channel` (a slug) is given: train
 * and val in `splits.json`; for a data set without one (tutorialvqa) the videos whose id has an even sha1, the rule its
 * queries were split by.
 */
export async function devEpisodes(dir: string, limit?: number, channel?: string): Promise<EpisodeRecord[]> {
  const splits = await readFile(join(dir, 'splits.json'), 'utf8').then(
    (t) => JSON.parse(t) as Record<string, string>,
    () => undefined,
  );
  const meta = await readLibraryMeta(dir);
  const out: EpisodeRecord[] = [];
  const channelIds = new Set(meta.channels.filter((c) => !channel || c.slug === channel).map((c) => c.id));
  for await (const { record } of readEpisodes(dir, { channelIds, onIssue: () => undefined })) {
    if (!isDev(record.id, splits)) continue;
    if ((record.chapters ?? []).length < 2 || (record.transcript?.segments.length ?? 0) < 10) continue;
    out.push(record);
  }
  out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return evenSubset(out, limit);
}

const KNOBS = [
  'window',
  'semanticShare',
  'targetMs',
  'threshold',
  'cueWeight',
  'pauseWeight',
  'speakerShare',
  'minProbability',
  'perHour',
  'baseCount',
  'spacingMs',
  'refine',
  'shortMinProbability',
  'shortPerMinute',
  'cuedSteps',
  'toc',
] as const;
const BOUNDS = ['minMs', 'maxMs', 'singleBelowMs', 'shortBelowMs', 'shortMinMs'] as const;

/** Parses `"method=depth window=6 semanticShare=0.5 maxMs=1800000 …"` into segmenter options (numbers, but `method`; bounds by their names). */
export function parseSegmentSettings(spec: string): SegmentSettings {
  const out: Record<string, number | string> = {};
  const bounds: Record<string, number> = {};
  for (const part of spec.split(/\s+/).filter(Boolean)) {
    const [k, v = ''] = part.split('=', 2) as [string, string?];
    if (k === 'method') {
      if (v !== 'learned' && v !== 'depth') throw new Error(`method: expected learned or depth, got "${v}"`);
      out[k] = v;
      continue;
    }
    const n = Number(v);
    if (v === '' || !Number.isFinite(n)) throw new Error(`${k}: expected a number, got "${v}"`);
    if ((KNOBS as readonly string[]).includes(k)) out[k] = n;
    else if ((BOUNDS as readonly string[]).includes(k)) bounds[k] = n;
    else throw new Error(`unknown segmenter setting "${k}" (method, ${[...KNOBS, ...BOUNDS].join(', ')})`);
  }
  return { ...out, ...(Object.keys(bounds).length > 0 ? { bounds } : {}) } as SegmentSettings;
}

/** Pk and WindowDiff of the segmenter (under `settings`: its cut, and the chapters as published) and of the two baselines over `episodes`. */
export async function measureSegmentation(episodes: readonly EpisodeRecord[], embed: EmbedTexts, settings: SegmentSettings[]): Promise<SegmentationRow[]> {
  const acc = new Map<string, { pk: number; wd: number; chapters: number; n: number }>();
  const add = (method: string, p: number, w: number, chapters: number) => {
    const a = acc.get(method) ?? { pk: 0, wd: 0, chapters: 0, n: 0 };
    acc.set(method, { pk: a.pk + p, wd: a.wd + w, chapters: a.chapters + chapters, n: a.n + 1 });
  };
  for (const ep of episodes) {
    const segments: EnrichSegment[] = ep.transcript!.segments;
    const n = segments.length;
    const ref = referenceStarts(
      segments.map((s) => s.startMs),
      (ep.chapters ?? []).map((c) => c.startMs),
    );
    const k = defaultK(n, ref);
    add('one chapter', pk(n, ref, [], k), windowDiff(n, ref, [], k), 1);
    const eq = equalStarts(n, ref.length + 1);
    add('equal parts, human count', pk(n, ref, eq, k), windowDiff(n, ref, eq, k), ref.length + 1);
    for (const s of settings) {
      // The cut, and the chapters as published: fewer than three become one (no table of contents).
      const seg = await segmentWithKnobs(segments, embed, { ...s, toc: 0 });
      const hyp = seg.chapters.slice(1).map((c) => c.first);
      add(`generated ${JSON.stringify(s)}`, pk(n, ref, hyp, k), windowDiff(n, ref, hyp, k), seg.chapters.length);
      if (s.toc === 0) continue;
      const published = tocStarts(hyp);
      add(`generated ${JSON.stringify(s)}, as published`, pk(n, ref, published, k), windowDiff(n, ref, published, k), published.length + 1);
    }
  }
  return [...acc].map(([method, a]) => ({ method, episodes: a.n, pk: a.pk / a.n, windowDiff: a.wd / a.n, chapters: a.chapters / a.n }));
}

export function formatSegmentationTable(rows: readonly SegmentationRow[]): string {
  const lines = ['| method | episodes | Pk | WindowDiff | chapters/episode |', '|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.method} | ${r.episodes} | ${r.pk.toFixed(4)} | ${r.windowDiff.toFixed(4)} | ${r.chapters.toFixed(1)} |`);
  return lines.join('\n');
}
