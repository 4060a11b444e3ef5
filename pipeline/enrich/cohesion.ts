// Cohesion signals between stretches of a transcript: lexical and speaker vectors, their cosines, TextTiling depth, discourse and instructional cues.
import INSTRUCTIONAL_CUES from './instructional-cues.json' with { type: 'json' };
import { baseLanguage, isContentWord, stem, stopwords, tokens } from './text.js';
import type { EnrichSegment } from './types.js';

/** The span of segments a signal is measured over (a passage of speech, see `blocksOf`). */
export interface BlockLike {
  first: number;
  last: number;
  text: string;
}

// Phrases that open a new subject in talk: agenda words and transitions (several languages).
const CUES =
  /\b(next (item|point|topic|thing|question|agenda)|moving on|move on to|let's (move|go|talk|turn|look|start|discuss)|turning to|turn to (the )?(next|item)|(the )?(first|second|third|last|final) (item|point|topic|thing)|on the agenda|agenda|next up|another (thing|topic|question|issue)|to begin with|let me (ask|turn|move)|i('d| would) like to (ask|move|turn|talk)|my (next|last|final) question|the next (one|question)|now,? (let's|we|i('ll| will))|okay,? so|all right,? so|siguiente punto|pasamos a|hablemos de|nächste[rn]? (punkt|thema)|kommen wir zu|point suivant|passons à|parlons de|próximo (ponto|tema)|vamos falar|prossimo punto|passiamo a|volgende punt|we gaan naar)\b/iu;

/** Whether a text opens with, or holds, a discourse cue that usually starts a new subject. */
export function hasCue(text: string): boolean {
  return CUES.test(text);
}

/** A language's instructional cues as word sequences: the lead-ins that may come first ("okay", "so") and the step openers. */
interface StepCues {
  leadIns: readonly (readonly string[])[];
  steps: readonly (readonly string[])[];
}

const words = (phrase: string): string[] => tokens(phrase).map((t) => t.lower);
const STEP_CUES = new Map<string, StepCues>(
  Object.entries(INSTRUCTIONAL_CUES as Record<string, { leadIns: string[]; steps: string[] }>).map(([lang, list]) => [
    lang,
    { leadIns: list.leadIns.map(words), steps: list.steps.map(words) },
  ]),
);

const startsWith = (text: readonly string[], at: number, phrase: readonly string[]): boolean => phrase.length > 0 && phrase.every((w, i) => text[at + i] === w);

/**
 * Whether a segment opens a new step of instructions: it starts with one of the step cues of `instructional-cues.json`
 * ("next", "now let's", "to do that"), after any lead-ins ("okay, so next"). Only the opening counts: "then" or "next"
 * inside a sentence is no step. A language without a list has no step cues.
 */
export function opensStep(text: string, language?: string): boolean {
  const cues = STEP_CUES.get(baseLanguage(language));
  if (!cues) return false;
  const ws = tokens(text.slice(0, 200)).map((t) => t.lower);
  let at = 0;
  for (;;) {
    if (cues.steps.some((p) => startsWith(ws, at, p))) return true;
    const lead = cues.leadIns.find((p) => startsWith(ws, at, p));
    if (!lead) return false;
    at += lead.length;
  }
}

export function sparseCosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    const w = b.get(k);
    if (w !== undefined) dot += v * w;
  }
  for (const v of b.values()) nb += v * v;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** z-scores (0 everywhere when the values do not vary). */
export function zscores(values: readonly number[]): number[] {
  const n = values.length;
  if (n === 0) return [];
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / n);
  return values.map((v) => (sd < 1e-9 ? 0 : (v - mean) / sd));
}

/**
 * TextTiling's depth of each valley of a cohesion curve: how far it lies below the highest point reached by climbing
 * left and climbing right from it.
 */
export function depthScores(cohesion: readonly number[]): number[] {
  return cohesion.map((c, i) => {
    let left = c;
    for (let j = i - 1; j >= 0 && cohesion[j]! >= left; j--) left = cohesion[j]!;
    let right = c;
    for (let j = i + 1; j < cohesion.length && cohesion[j]! >= right; j++) right = cohesion[j]!;
    return left - c + (right - c);
  });
}

/** Content-word weights (tf × idf over the blocks) of each block. */
export function lexicalVectors(blocks: readonly BlockLike[], language: string | undefined): Map<string, number>[] {
  const stop = stopwords(language);
  const counts = blocks.map((b) => {
    const m = new Map<string, number>();
    for (const t of tokens(b.text)) if (isContentWord(t.lower, stop)) m.set(stem(t.lower, language), (m.get(stem(t.lower, language)) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of counts) for (const k of m.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  return counts.map((m) => {
    const out = new Map<string, number>();
    for (const [k, v] of m) out.set(k, v * Math.log((blocks.length + 1) / df.get(k)!));
    return out;
  });
}

/** Speech time of each labelled speaker in each block (empty maps when the transcript has no speaker labels). */
export function speakerVectors(segments: readonly EnrichSegment[], blocks: readonly BlockLike[]): Map<string, number>[] {
  return blocks.map((b) => {
    const m = new Map<string, number>();
    for (let i = b.first; i <= b.last; i++) {
      const s = segments[i]!;
      const who = s.speakerLabel?.trim();
      if (who) m.set(who, (m.get(who) ?? 0) + Math.max(1, s.endMs - s.startMs));
    }
    return m;
  });
}
