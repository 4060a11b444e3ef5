// The counts of a structure run: its items joined with the hand labels (labels.jsonl), the automatic figures (title
// ROUGE-1 against the human titles of the same span, moments within 1 s of their sentence's first word), per group,
// per data set and overall. An item without a label is never counted as good or bad: it is listed for labelling.
import { GROUPS, ITEM_KINDS, type EpisodeItems, type Group, type ItemKind, type StructureRun } from './items.js';
import { unigramF1 } from '../rouge.js';

/** One generated item of a run, flat. */
export interface RunItem {
  kind: ItemKind;
  key: string;
  text: string;
  dataset: string;
  group: Group;
  episodeId: string;
  /** Moments: the type generated, the start and its sentence's first word. */
  type?: string;
  startMs?: number;
  sentenceStartMs?: number | null;
  /** Titles: the human titles over the same span. */
  human?: string[];
}

/** A person's judgement of one item (one line of labels.jsonl). */
export interface Label {
  key: string;
  kind: ItemKind;
  text: string;
  episodeId?: string;
  /** title: could ship unedited. */
  accepted?: boolean;
  /** moment: a grammatical sentence that stands without its context. */
  citable?: boolean;
  /** moment: the type it was judged for, and whether it fits (a moment that is no moment does not). */
  type?: string;
  typeFits?: boolean;
  /** topic: a noun phrase naming a subject of the episode. */
  meaningful?: boolean;
  /** person, entity: a real person's name / a real organisation, product or place. */
  real?: boolean;
  note?: string;
}

/** The verdict fields each kind must have. */
export const VERDICTS: Record<ItemKind, readonly (keyof Label)[]> = {
  title: ['accepted'],
  moment: ['citable', 'typeFits'],
  topic: ['meaningful'],
  person: ['real'],
  entity: ['real'],
};

/** Every item of a run, in the run's order: titles, the moments of each chapter, topics, people, entities. */
export function runItems(episodes: readonly EpisodeItems[]): RunItem[] {
  const out: RunItem[] = [];
  for (const e of episodes) {
    const base = { dataset: e.dataset, group: e.group, episodeId: e.episodeId };
    for (const c of e.chapters) out.push({ ...base, kind: 'title', key: c.key, text: c.text, human: c.human });
    for (const c of e.chapters)
      for (const m of c.moments) out.push({ ...base, kind: 'moment', key: m.key, text: m.text, type: m.type, startMs: m.startMs, sentenceStartMs: m.sentenceStartMs });
    for (const [kind, list] of [
      ['topic', e.topics],
      ['person', e.people],
      ['entity', e.entities],
    ] as const)
      for (const n of list) out.push({ ...base, kind, key: n.key, text: n.text });
  }
  return out;
}

/** Thrown for labels that cannot be read or contradict each other: the count stops rather than guess. */
export class LabelError extends Error {
  override name = 'LabelError';
}

/**
 * The labels of a labels.jsonl text by key. A moment may have a label per type it was generated with (its claim's
 * verdict the same in each); any other item one label. A line that is no label, or labels of one item that disagree,
 * throw.
 */
export function parseLabels(text: string): Map<string, Label[]> {
  const out = new Map<string, Label[]>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let label: Label;
    try {
      label = JSON.parse(line) as Label;
    } catch {
      throw new LabelError(`labels line ${i + 1}: not JSON`);
    }
    if (typeof label.key !== 'string' || !ITEM_KINDS.includes(label.kind)) throw new LabelError(`labels line ${i + 1}: needs a key and a kind (${ITEM_KINDS.join(', ')})`);
    const before = out.get(label.key) ?? [];
    const same = before.find((b) => b.kind !== 'moment' || b.type === label.type);
    if (same && VERDICTS[label.kind].some((f) => same[f] !== label[f])) throw new LabelError(`labels line ${i + 1}: key ${label.key} is labelled twice, differently`);
    if (before.some((b) => b.kind !== label.kind || (b.kind === 'moment' && b.citable !== label.citable)))
      throw new LabelError(`labels line ${i + 1}: key ${label.key} is labelled twice, differently`);
    if (!same) out.set(label.key, [...before, label]);
  });
  return out;
}

/** An item joined with its label, or why it has none that counts. */
export type Joined = { item: RunItem; label: Label } | { item: RunItem; missing: string };

/**
 * Each item with its label. An item has none that counts when no label has its key, when a verdict field is not a
 * boolean (a stub not filled in), or when a moment's type has no label yet (its claim may be labelled under another
 * type: the type is what wants a look).
 */
export function joinLabels(items: readonly RunItem[], labels: ReadonlyMap<string, readonly Label[]>): Joined[] {
  return items.map((item) => {
    const all = labels.get(item.key) ?? [];
    if (all.length === 0) return { item, missing: 'no label' };
    const label = item.kind === 'moment' ? all.find((l) => l.type === item.type) : all[0];
    if (!label) return { item, missing: `its type is ${item.type} now, it was judged as ${all.map((l) => l.type ?? 'no type').join(', ')}` };
    if (label.kind !== item.kind) return { item, missing: `labelled as a ${label.kind}` };
    const empty = VERDICTS[item.kind].filter((f) => typeof label[f] !== 'boolean');
    if (empty.length > 0) return { item, missing: `no verdict for ${empty.join(', ')}` };
    return { item, label };
  });
}

/** A line for labels.jsonl with the verdicts to fill in (null); a moment's claim verdict kept from a label under another type. */
export function labelStub(item: RunItem, old: readonly Label[] = []): Label {
  const verdicts = Object.fromEntries(VERDICTS[item.kind].map((f) => [f, null]));
  const claim = item.kind === 'moment' ? old.find((l) => l.kind === 'moment' && typeof l.citable === 'boolean') : undefined;
  const kept = claim ? { citable: claim.citable } : {};
  return {
    key: item.key,
    kind: item.kind,
    text: item.text,
    episodeId: item.episodeId,
    ...verdicts,
    ...kept,
    ...(item.kind === 'moment' ? { type: item.type } : {}),
  } as Label;
}

// Function words and speech fillers: ROUGE-1 here counts content words only, with its own fixed list so the figure does
// not move when the pipeline's stop words change.
const STOP = new Set(
  `a about above after again all also an and any are as at be been before being below between both but by can could did do does doing down during each few for from
  further had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out
  over own same she should so some such than that the their theirs them then there these they this those through to too under until up very was we were what when where
  which while who whom why will with would you your yours um uh okay ok yeah`.split(/\s+/),
);

/** Content words of a title, lower-cased, in order. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w));
}

/** Unigram F1 of two titles over content words (counts clipped); 0 when either has none. */
export function rouge1(candidate: string, reference: string): number {
  return unigramF1(contentWords(candidate), contentWords(reference));
}

/** ROUGE-1 of a title against the human titles over its span: the best of them (the usual multi-reference rule); null when there are none. */
export function titleRouge(title: string, human: readonly string[]): number | null {
  return human.length === 0 ? null : Math.max(...human.map((h) => rouge1(title, h)));
}

/** The longest title that can be accepted (Spotify's advice to creators; RULES.md). */
export const MAX_TITLE_CHARS = 40;

/** The moment starts within 1 s of its sentence's first word; null when that word is not known (no words, not found). */
export function withinOneSecond(item: Pick<RunItem, 'startMs' | 'sentenceStartMs'>): boolean | null {
  if (item.sentenceStartMs == null || item.startMs === undefined) return null;
  return Math.abs(item.startMs - item.sentenceStartMs) <= 1_000;
}

/** A share: how many of how many. */
export interface Share {
  yes: number;
  of: number;
}

/** The figures of one scope (a group, a data set, all). */
export interface Figures {
  episodes: number;
  titles: Share;
  /** Titles of at most 40 characters (automatic: one of the conditions of an accepted title). */
  shortTitles: Share;
  citable: Share;
  typeFits: Share;
  withinOneSecond: Share;
  topics: Share;
  people: Share;
  entities: Share;
  names: Share;
  /** Mean title ROUGE-1 over the titles with human titles over their span, and how many those are. */
  rouge1: { mean: number; of: number };
}

const share = (verdicts: readonly boolean[]): Share => ({ yes: verdicts.filter(Boolean).length, of: verdicts.length });

/** The figures of labelled items (every item must have its label: see {@link joinLabels}). */
export function figures(joined: readonly { item: RunItem; label: Label }[], episodes: number): Figures {
  const of = (kind: ItemKind) => joined.filter((j) => j.item.kind === kind);
  const moments = of('moment');
  const rouges = of('title')
    .map((j) => titleRouge(j.item.text, j.item.human ?? []))
    .filter((r): r is number => r !== null);
  const timed = moments.map((j) => withinOneSecond(j.item)).filter((w): w is boolean => w !== null);
  return {
    episodes,
    titles: share(of('title').map((j) => j.label.accepted!)),
    shortTitles: share(of('title').map((j) => j.item.text.length <= MAX_TITLE_CHARS)),
    citable: share(moments.map((j) => j.label.citable!)),
    typeFits: share(moments.map((j) => j.label.typeFits!)),
    withinOneSecond: share(timed),
    topics: share(of('topic').map((j) => j.label.meaningful!)),
    people: share(of('person').map((j) => j.label.real!)),
    entities: share(of('entity').map((j) => j.label.real!)),
    names: share([...of('person'), ...of('entity')].map((j) => j.label.real!)),
    rouge1: { mean: rouges.length ? rouges.reduce((a, b) => a + b, 0) / rouges.length : 0, of: rouges.length },
  };
}

/** The scopes a run is read in: each group, each data set, all. */
export function scopesOf(run: Pick<StructureRun, 'episodes'>): { name: string; test: (e: Pick<EpisodeItems, 'group' | 'dataset'>) => boolean }[] {
  const datasets = [...new Set(run.episodes.map((e) => e.dataset))].sort();
  return [
    ...GROUPS.filter((g) => run.episodes.some((e) => e.group === g)).map((g) => ({ name: g, test: (e: Pick<EpisodeItems, 'group'>) => e.group === g })),
    ...datasets.map((d) => ({ name: d, test: (e: Pick<EpisodeItems, 'dataset'>) => e.dataset === d })),
    { name: 'all', test: () => true },
  ];
}

const shown = (s: Share) => (s.of === 0 ? '–' : `${s.yes}/${s.of} (${Math.round((100 * s.yes) / s.of)} %)`);

/** The figures of each scope as a Markdown table: a row per figure, a column per scope. */
export function formatTable(columns: readonly { name: string; figures: Figures }[], { namesMeasured = true } = {}): string {
  const names = (s: Share) => (namesMeasured ? shown(s) : 'not measured');
  const rows: [string, (f: Figures) => string][] = [
    ['episodes', (f) => String(f.episodes)],
    ['titles accepted', (f) => shown(f.titles)],
    ['titles of at most 40 characters', (f) => shown(f.shortTitles)],
    ['title ROUGE-1 (mean, titles)', (f) => (f.rouge1.of === 0 ? '–' : `${f.rouge1.mean.toFixed(3)} (${f.rouge1.of})`)],
    ['claims citable', (f) => shown(f.citable)],
    ['types fitting', (f) => shown(f.typeFits)],
    ['moments within 1 s of their sentence', (f) => shown(f.withinOneSecond)],
    ['topics meaningful', (f) => shown(f.topics)],
    ['people real', (f) => names(f.people)],
    ['entities real', (f) => names(f.entities)],
    ['people + entities real', (f) => names(f.names)],
  ];
  const head = `| figure | ${columns.map((c) => c.name).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---').join('|')}|`;
  return [head, rule, ...rows.map(([name, cell]) => `| ${name} | ${columns.map((c) => cell(c.figures)).join(' | ')} |`)].join('\n');
}
