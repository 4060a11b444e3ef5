// One episode's transcript → generated chapters (titled, with typed key moments) and keyphrase candidates for the channel's topics.
import { chapterWeights, chooseMoments } from './moments.js';
import { documentFrequencies, type DocumentFrequencies } from './phrases.js';
import { segmentTranscript } from './segment.js';
import { episodeKeyphrases, type Keyphrase } from './topics.js';
import { composeTitle, conjunction, fitTitle, rankChapterPhrases } from './titles.js';
import { DEFAULT_CHAPTER_BOUNDS, type ChapterBounds, type ChapterBrief, type ChapterWriter, type EmbedTexts, type EnrichSegment, type GeneratedChapter } from './types.js';

export interface EnrichInput {
  segments: readonly EnrichSegment[];
  /** BCP 47 of the speech (absent: `en`). */
  language?: string | undefined;
  /** The episode's title: the fallback title of a chapter with no phrase. */
  title?: string | undefined;
}

export interface EnrichOptions {
  embed: EmbedTexts;
  /** A language model that rewrites titles and claims of the chosen spans; never times. */
  writer?: ChapterWriter | undefined;
  bounds?: Partial<ChapterBounds> | undefined;
  signal?: AbortSignal | undefined;
  /** Document frequencies of phrase keys over the channel's episodes ({@link documentFrequencies}); absent: the episode's chapters. */
  freq?: DocumentFrequencies | undefined;
}

export interface EnrichResult {
  chapters: GeneratedChapter[];
  /** Candidates for the channel-level topic choice ({@link assignTopics}), best first. */
  keyphrases: Keyphrase[];
}

/** Characters of a chapter's transcript a language model is given. */
const BRIEF_CHARS = 6_000;

/** The segments in reading order: by start, then as given (a stable sort), without empty text. */
export function orderedSegments(segments: readonly EnrichSegment[]): EnrichSegment[] {
  return segments
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.text.trim() !== '' && Number.isFinite(s.startMs) && Number.isFinite(s.endMs))
    .sort((a, b) => a.s.startMs - b.s.startMs || a.i - b.i)
    .map(({ s }) => ({ ...s, endMs: Math.max(s.startMs, s.endMs) }));
}

/** Words of a chapter embedded as its meaning (the model reads about 512 tokens). */
const CHAPTER_WORDS = 300;

/** Three stretches of 100 words from the chapter's start, middle and end (all of it when short). */
export function chapterSample(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= CHAPTER_WORDS) return words.join(' ');
  const part = CHAPTER_WORDS / 3;
  return [1 / 6, 1 / 2, 5 / 6].map((at) => words.slice(Math.round(at * words.length - part / 2), Math.round(at * words.length + part / 2)).join(' ')).join(' … ');
}

/**
 * Chapters with titles and typed key moments, and the episode's keyphrases, from its transcript alone. A chapter's
 * times are segments' starts and ends, a moment's its words' where they are timed (decision 27, A11); chapters cover
 * the speech without gap or overlap. With a `writer`, each chapter's title and
 * moment claims are the model's when it answers (a `null` keeps the local text). The same input and embedder give the
 * same output. An empty transcript gives no chapters.
 */
export async function enrichTranscript(input: EnrichInput, { embed, writer, bounds, signal, freq }: EnrichOptions): Promise<EnrichResult> {
  const segments = orderedSegments(input.segments);
  if (segments.length === 0) return { chapters: [], keyphrases: [] };
  const language = input.language ?? 'en';
  const spans = segmentTranscript(segments, { bounds: { ...DEFAULT_CHAPTER_BOUNDS, ...bounds }, language, ...(signal ? { signal } : {}) });
  const texts = spans.map((c) =>
    segments
      .slice(c.first, c.last + 1)
      .map((s) => s.text.trim())
      .join(' '),
  );
  const weights = chapterWeights(texts, language);
  // A title names what its chapter is about: a phrase said in most chapters names the episode.
  const spread = documentFrequencies(texts, language);
  const joiner = conjunction(language);
  const chapters: GeneratedChapter[] = [];
  for (const [i, span] of spans.entries()) {
    signal?.throwIfAborted();
    // The chapter's meaning: a sample of its text.
    const centroid = (await embed([chapterSample(texts[i]!)]))[0] ?? [];
    const phrases = await rankChapterPhrases(texts[i]!, { language, ...(freq ? { freq } : {}), chapters: spread, centroid, embed });
    const fallback = input.title?.trim() ? `${input.title.trim()} (${i + 1})` : `Part ${i + 1}`;
    let title = composeTitle(phrases, { fallback, joiner });
    const local = chooseMoments(segments, span.first, span.last, { language, weights: weights[i]! });
    let claims = local.map((m) => m.title);
    if (writer) {
      const brief: ChapterBrief = {
        transcript: texts[i]!.slice(0, BRIEF_CHARS),
        language,
        localTitle: title,
        moments: local.map((m) => ({ type: m.type, text: m.text, localTitle: m.title })),
      };
      const written = await writer.write(brief, signal);
      if (written) {
        if (written.title.trim() !== '') title = fitTitle(written.title);
        claims = claims.map((c, j) => written.claims[j]?.trim() || c);
      }
    }
    chapters.push({
      title,
      startMs: span.startMs,
      endMs: span.endMs,
      generated: true,
      moments: local.map((m, j) => ({ type: m.type, title: claims[j]!, startMs: m.startMs, endMs: m.endMs, generated: true as const })),
    });
  }
  const keyphrases = episodeKeyphrases(texts.join(' '), { language, ...(freq ? { freq } : {}) });
  return { chapters, keyphrases };
}
