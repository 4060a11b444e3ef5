// Typed key moments of a chapter: whole sentences of the speakers that stand alone, typed by the cues around them.
import { baseLanguage, isContentWord, sentences, stem, stopwords, tidySpeech, tokens } from './text.js';
import type { EnrichSegment, MomentType } from './types.js';

/** A sentence of the transcript with the segment it is said in. */
export interface SentenceAt {
  text: string;
  /** Index of the segment it starts in. */
  segment: number;
  /** Index of the segment it ends in (a sentence may run over several cues of one speaker). */
  endSegment: number;
  /** Its place among its segment's sentences. */
  nth: number;
}

/** A moment the local method chose: the sentence, its type and times (its segment's start and end). */
export interface LocalMoment {
  type: MomentType;
  title: string;
  startMs: number;
  endMs: number;
  /** The speaker's words of the span (for a language model's brief). */
  text: string;
  score: number;
}

export const MAX_MOMENT_CHARS = 200;
const MIN_WORDS = 8;
const MAX_WORDS = 40;
/** Moments of one chapter are at least this far apart. */
const MIN_GAP_MS = 45_000;

// Openers that make a sentence lean on what came before: it cannot be cited alone.
const DANGLING: Record<string, RegExp> = {
  en: /^(after that|before that|at that (time|point)|he|she|it|its|it's|this|that|these|those|they|them|their|there|here|his|her|him|which|who|then|also|such|same|other|both|either|neither|one|ones|we'd|he's|she's|they're|that's|there's|this's)\b/i,
  es: /^(él|ella|ellos|ellas|esto|eso|esta|este|esa|ese|estos|esos|lo|la|le|su|sus|entonces|también)\b/i,
  de: /^(er|sie|es|das|dies|diese|dieser|dieses|dann|auch|ihr|ihre|sein|seine|deshalb|daher)\b/i,
  fr: /^(il|elle|ils|elles|ce|cela|ça|ceci|cette|ces|son|sa|ses|leur|leurs|alors|aussi|donc)\b/i,
  pt: /^(ele|ela|eles|elas|isso|isto|este|esta|esse|essa|seu|sua|então|também)\b/i,
  it: /^(lui|lei|loro|questo|questa|quello|quella|ciò|suo|sua|allora|anche|quindi)\b/i,
  nl: /^(hij|zij|ze|het|dit|dat|deze|die|zijn|haar|hun|dan|ook|daarom)\b/i,
};

// Fillers and connectives a sentence may open with: dropped, the rest is still the speaker's sentence.
const LEADING =
  /^(?:(?:so|and|but|or|well|yeah|yes|no|okay|ok|oh|um+|uh+|uhm|hmm+|mm+|like|right|now|anyway|actually|basically|i mean|you know|you see|alright|all right|because|cause|y|pero|pues|bueno|und|aber|also|na ja|et|mais|alors|bon|donc|e|mas|então|ma|allora|quindi|en|maar|dus|nou)\b[,.…]?\s+)+/iu;

const CUES: Record<Exclude<MomentType, 'qa' | 'insight'>, RegExp> = {
  prediction:
    /\b(will (be|have|become|happen|change|need|get|make|see|take|go|come)|won't|(is|are|'re|'s) going to|predict|prediction|forecast|expect(ed)? to|in the (future|next \d+|coming)|by (20\d\d|the end of)|next (year|decade|generation)|bound to|likely to|sooner or later|one day we)\b/i,
  story:
    /\b(i remember|remember when|when i was|years ago|back (then|in|when)|one day|one time|i grew up|my (father|mother|dad|mom|parents|grandfather|grandmother|wife|husband|friend|son|daughter)|happened to|the first time i|i once|(i|we) (was|were|went|had|joined|met|spent|moved|started|worked|called|walked|travelled|traveled|lived|studied|taught|decided|got|found|saw|came))\b/i,
  debate:
    /\b(i disagree|i don't agree|i do not agree|disagree|not (sure|convinced) (that|about)|on the other hand|but i (think|would|don't)|i don't think|that's not (true|right|the case)|the problem (is|with)|argue|argument|counter|objection|instead of|rather than|versus)\b/i,
  quote: /\b(i (really )?(feel|love|hate|am grateful)|i'm grateful|grateful|the (best|worst|greatest|biggest|only) \w+|never|nobody|everyone|everybody)\b/i,
};

// Sponsor messages and meeting procedure: said, but no moment anyone would cite.
const NOT_A_MOMENT =
  /\b(subscribe|sponsor|register at|sign up|check out|head (on )?over|podcast apps?|\w+\.(com|in|org)\b|welcome to (the|my|our)|i'll invite|i hope you|next meeting|see you (next|later)|thank you (all|very much|for))/i;

// A sentence that opens as a question or a subordinate clause with no main clause after it is no claim.
const QUESTION_OPENER = /^(how|what|why|where|when|who|which|do|does|did|can|could|would|should|is|are|shall|will)\b.*[^,]$/i;
const SUBORDINATE = /^(if|when|whether|because|although|though|unless|while|since|as)\b[^,]*$/i;
// Hesitations inside a sentence: not words of the claim.
const HESITATION = /\s+\b(?:u+h+|u+m+|uhm|e+r+m*|hmm+|mm+)\b,?(?=\s)/giu;

const INSIGHT =
  /\b(the (key|point|reason|problem|idea|goal|trick|answer) (is|was)|because|important|means that|it turns out|the way to|that's why|which is why|in fact|the difference|depends on)\b/i;

/** Longest sentence carried over from one segment into the next, in words. */
const MAX_CARRIED_WORDS = 60;
/**
 * Longest sentence read at all, in characters: five times the 200 a moment may have, so no claim is lost, and a
 * bound on what the patterns below see (hostile text in one cue cost seconds in them; security review 2026-12-01, #1).
 */
export const MAX_SENTENCE_CHARS = 1_000;

/**
 * Whole sentences of the segments `[first, last]`, in order. A sentence left open at a segment's end runs on into the
 * next segment of the same speaker (subtitle cues cut sentences anywhere); one still open at a change of speaker, at
 * `last`, or past 60 words is not a sentence and is dropped; so is one longer than {@link MAX_SENTENCE_CHARS}.
 */
export function sentencesOf(segments: readonly EnrichSegment[], first: number, last: number): SentenceAt[] {
  const out: SentenceAt[] = [];
  let open: { text: string; segment: number; nth: number } | undefined;
  for (let i = first; i <= last; i++) {
    const seg = segments[i]!;
    if (open && (segments[open.segment]!.speakerLabel ?? null) !== (seg.speakerLabel ?? null)) open = undefined;
    sentences(seg.text).forEach((piece, j) => {
      const current = open ? { ...open, text: `${open.text} ${piece}` } : { text: piece, segment: i, nth: j };
      if (current.text.length > MAX_SENTENCE_CHARS) {
        open = undefined;
        return;
      }
      if (/[.!?…]["'”’)\]]*$/.test(piece)) {
        out.push({ ...current, endSegment: i });
        open = undefined;
      } else {
        open = current.text.split(/\s+/).length <= MAX_CARRIED_WORDS ? current : undefined;
      }
    });
  }
  return out;
}

/**
 * The sentence as a standalone claim (leading fillers dropped, first letter upper-cased), or null when it leans on its
 * context or is longer than {@link MAX_SENTENCE_CHARS} (checked before any pattern reads it).
 */
export function standaloneClaim(sentence: string, language: string | undefined): string | null {
  if (sentence.length > MAX_SENTENCE_CHARS) return null;
  const lang = baseLanguage(language);
  const stripped = ` ${tidySpeech(sentence)} `
    .replace(HESITATION, '')
    .trim()
    .replace(LEADING, '')
    .replace(/^[,;:\s-]+/, '')
    .trim();
  if (stripped === '' || /\?\s*$/.test(stripped)) return null;
  const bare = stripped.replace(/[.!…]+$/, '');
  if (lang === 'en' && (QUESTION_OPENER.test(bare) || SUBORDINATE.test(bare) || NOT_A_MOMENT.test(bare))) return null;
  if ((DANGLING[lang] ?? DANGLING.en!).test(stripped)) return null;
  if (!/[.!…]["'”’)\]]*$/.test(stripped)) return null;
  return stripped.charAt(0).toLocaleUpperCase() + stripped.slice(1);
}

/**
 * The type of a moment said at `segment` (sentence `nth` of it): `qa` when it opens another speaker's reply to a
 * question; else the first of debate (a disagreement cue with another speaker close by), prediction, story, quote (short
 * and in the first person or absolute) whose cues it holds (English cues; other languages: qa or insight); else insight.
 */
export function momentType(segments: readonly EnrichSegment[], segment: number, nth: number, claim: string, language: string | undefined): MomentType {
  const prev = segments[segment - 1];
  const seg = segments[segment]!;
  const otherSpeaker = (s: EnrichSegment | undefined) => !!s && (s.speakerLabel ?? null) !== (seg.speakerLabel ?? null);
  const asked = prev ? prev.text.trim() : '';
  if (nth <= 1 && /\?["'”’)]*\s*$/.test(asked) && asked.split(/\s+/).length >= 4 && (otherSpeaker(prev) || seg.speakerLabel == null)) return 'qa';
  if (baseLanguage(language) !== 'en') return 'insight';
  const near = [segments[segment - 2], prev, segments[segment + 1], segments[segment + 2]];
  if (CUES.debate.test(claim) && near.some(otherSpeaker)) return 'debate';
  if (CUES.prediction.test(claim)) return 'prediction';
  if (CUES.story.test(claim)) return 'story';
  if (CUES.quote.test(claim) && claim.split(/\s+/).length <= 22) return 'quote';
  return 'insight';
}

/**
 * One to three key moments of the chapter `[first, last]` (one per six minutes, at most three, at least 45 s apart): the
 * standalone sentences of 8–40 words richest in the chapter's salient words (`weights`: stemmed word → weight), typed by
 * {@link momentType}. Each starts at the start of the segment where it is said and ends at that segment's end. When no
 * sentence qualifies, the richest sentence with any standalone form; none at all when the chapter has no such sentence.
 */
export function chooseMoments(
  segments: readonly EnrichSegment[],
  first: number,
  last: number,
  { language, weights }: { language?: string; weights: ReadonlyMap<string, number> },
): LocalMoment[] {
  const stop = stopwords(language);
  const durationMs = segments[last]!.endMs - segments[first]!.startMs;
  const wanted = Math.min(3, 1 + Math.floor(durationMs / (6 * 60_000)));
  const scored = (strict: boolean) => {
    const out: LocalMoment[] = [];
    for (const s of sentencesOf(segments, first, last)) {
      const claim = standaloneClaim(s.text, language);
      if (!claim || claim.length > MAX_MOMENT_CHARS) continue;
      const words = tokens(claim);
      if (strict && (words.length < MIN_WORDS || words.length > MAX_WORDS)) continue;
      if (words.length < 4) continue;
      const content = words.filter((w) => isContentWord(w.lower, stop));
      if (strict && content.length / words.length < 0.3) continue;
      const type = momentType(segments, s.segment, s.nth, claim, language);
      const salience = content.reduce((sum, w) => sum + (weights.get(stem(w.lower, language)) ?? 0), 0) / Math.sqrt(words.length);
      const bonus = (type === 'insight' ? 0 : 0.15) + (INSIGHT.test(claim) ? 0.1 : 0);
      const seg = segments[s.segment]!;
      const end = segments[s.endSegment]!;
      const text = segments
        .slice(s.segment, s.endSegment + 1)
        .map((x) => x.text.trim())
        .join(' ');
      out.push({ type, title: claim, startMs: seg.startMs, endMs: Math.max(seg.startMs, end.endMs), text, score: salience * (1 + bonus) });
    }
    return out;
  };
  let pool = scored(true);
  if (pool.length === 0) pool = scored(false);
  const order = pool.map((m, i) => ({ m, i })).sort((a, b) => b.m.score - a.m.score || a.i - b.i);
  const chosen: LocalMoment[] = [];
  for (const { m } of order) {
    if (chosen.length >= wanted) break;
    if (chosen.some((c) => Math.abs(c.startMs - m.startMs) < MIN_GAP_MS)) continue;
    chosen.push(m);
  }
  return chosen.sort((a, b) => a.startMs - b.startMs || (a.title < b.title ? -1 : 1));
}

/** Content-word weights of a chapter (stem → count × idf against the episode's chapters), for {@link chooseMoments}. */
export function chapterWeights(chapterTexts: readonly string[], language: string | undefined): Map<string, number>[] {
  const stop = stopwords(language);
  const counts = chapterTexts.map((text) => {
    const m = new Map<string, number>();
    for (const t of tokens(text)) if (isContentWord(t.lower, stop)) m.set(stem(t.lower, language), (m.get(stem(t.lower, language)) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of counts) for (const k of m.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  return counts.map((m) => {
    const out = new Map<string, number>();
    for (const [k, v] of m) out.set(k, Math.log1p(v) * (Math.log((counts.length + 1) / df.get(k)!) + 0.5));
    return out;
  });
}
