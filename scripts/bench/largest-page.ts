// The largest episode page the library caps allow, shared by the pages-render test (what it renders) and
// bench:pages (what rendering it costs): every segment with its share of the words, every chapter with its moments.
import { EPISODE_LIMITS } from '../../core/contract/library-format.js';
import type { EpisodePage } from '../../src/pages/load.js';

const VOCABULARY = ['soil', 'water', "it's", 'tomatoes', 'and', 'the', '"quoted"', 'a&b', '<mulch>', 'summer', 'roots', 'we'];

/** `base` with its segments and chapters replaced by the caps' worth, 3 s per segment, text that needs escaping. */
export function largestPage(base: EpisodePage): EpisodePage {
  const { segments: S, words: W, chapters: C, moments: M } = EPISODE_LIMITS;
  const perSegment = Math.floor(W / S);
  const segments = Array.from({ length: S }, (_, i) => ({
    speaker: i % 2 ? 'Guest Speaker' : 'Host',
    startMs: i * 3000,
    endMs: i * 3000 + 3000,
    text: Array.from({ length: perSegment }, (_, w) => VOCABULARY[(i + w) % VOCABULARY.length]).join(' '),
  }));
  const span = (S * 3000) / C;
  const chapters = Array.from({ length: C }, (_, c) => ({
    title: `Chapter ${c} <on> "soil" & water`,
    startMs: Math.floor(c * span) + 7,
    endMs: Math.floor((c + 1) * span),
    moments: Array.from({ length: M / C }, (_, m) => ({ type: 'insight', title: `Moment ${c}.${m}`, startMs: Math.floor(c * span + (m * span) / (M / C)) + 11 })),
  }));
  return { ...base, episode: { ...base.episode, durationMs: S * 3000 }, segments, chapters };
}
