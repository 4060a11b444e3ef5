// WebVTT and SRT captions → draft transcripts, parsed by media-captions: voices as speakers, inline timestamps as
// word times, YouTube's rolling auto-captions reduced to each phrase once, and cue-only timing spread by length.
import { parseText, tokenizeVTTCue, VTTCue, type VTTNode } from './media-captions-api.js';
import { decodeHTML } from 'entities';
import type { WordRecord } from '../core/contract/library-format.js';
import { cleanText, ImportProblem, spreadWords, type DraftSegment, type DraftTranscript } from './text.js';

interface Run {
  text: string;
  /** Seconds, from the inline timestamp this text follows; undefined before the first one. */
  time?: number;
}

/** The cue's text as runs with their inline times, and the voice (`<v Name>`) that speaks it. */
function flatten(nodes: VTTNode[], time: number | undefined, out: { runs: Run[]; voice?: string }): void {
  for (const node of nodes) {
    // media-captions decodes the entities WebVTT defines (&amp; &lt; &gt; &nbsp; …); captions in the wild use any HTML entity.
    if (node.type === 'text') out.runs.push({ text: decodeHTML(node.data), time });
    else if (node.type === 'timestamp') flatten(node.children, node.time, out);
    else {
      if (node.type === 'v' && !out.voice) out.voice = cleanText(node.voice);
      flatten(node.children, time, out);
    }
  }
}

const INLINE_TIME = /<\d{1,2}:\d{2}(?::\d{2})?\.\d{3}>/;
/** `Name: text` at the start of an SRT cue: a short capitalised name. */
const SRT_SPEAKER = /^([A-Z][\p{L}\p{M}.'’ -]{0,40}?):\s+(.+)$/su;

/**
 * Words with their own times from runs that carry inline timestamps: the words after one timestamp share the
 * time up to the next (one word each, in YouTube's captions), and the last ends with the cue.
 */
function timedWords(runs: Run[], startMs: number, endMs: number): WordRecord[] {
  const tokens = runs.flatMap((run) => {
    const at = run.time === undefined ? startMs : Math.round(run.time * 1000);
    return cleanText(run.text)
      .split(' ')
      .filter(Boolean)
      .map((t) => ({ t, at }));
  });
  const words: WordRecord[] = [];
  for (let i = 0; i < tokens.length;) {
    let j = i;
    while (j < tokens.length && tokens[j]!.at === tokens[i]!.at) j++;
    const until = j < tokens.length ? tokens[j]!.at : endMs;
    words.push(
      ...spreadWords(
        tokens
          .slice(i, j)
          .map((t) => t.t)
          .join(' '),
        tokens[i]!.at,
        Math.max(tokens[i]!.at, until),
      ),
    );
    i = j;
  }
  return words;
}

function cueSegment(cue: VTTCue, format: 'vtt' | 'srt'): DraftSegment | undefined {
  const out: { runs: Run[]; voice?: string } = { runs: [] };
  flatten(tokenizeVTTCue(cue), undefined, out);
  let text = cleanText(out.runs.map((r) => r.text).join(''));
  let speaker = out.voice ?? null;
  if (!speaker && format === 'srt') {
    const named = SRT_SPEAKER.exec(text);
    if (named) [speaker, text] = [cleanText(named[1]!), cleanText(named[2]!)];
  }
  if (text === '') return undefined;
  const startMs = Math.round(cue.startTime * 1000);
  const endMs = Math.max(startMs, Math.round(cue.endTime * 1000));
  const timed = out.runs.some((r) => r.time !== undefined);
  return timed
    ? { speaker, startMs, endMs, text, words: timedWords(out.runs, startMs, endMs) }
    : { speaker, startMs, endMs, text, words: spreadWords(text, startMs, endMs), interpolated: true };
}

/**
 * YouTube's auto-captions show every phrase three times: a cue that builds it word by word (inline times),
 * a ~10 ms cue repeating it, and the same line atop the next cue. Only the lines with inline times are new
 * speech: each becomes one segment, its first word at the cue start and each next at its own tag.
 */
function rollingSegments(cues: VTTCue[]): DraftSegment[] {
  const segments: DraftSegment[] = [];
  for (const cue of cues) {
    const lines = cue.text.split('\n').filter((line) => INLINE_TIME.test(line));
    for (const line of lines) {
      const segment = cueSegment(new VTTCue(cue.startTime, cue.endTime, line), 'vtt');
      if (segment) segments.push(segment);
    }
  }
  return segments;
}

/** A cue timing line (`00:00:01.000 --> 00:00:04.000 align:start`) is short; a longer line holding `-->` is cut to this. */
export const MAX_TIMING_LINE = 1_000;

/**
 * media-captions splits a timing line with `/[\s\t]*-->[\s\t]+/`, quadratic on a long run of spaces (a 400k-character
 * line took minutes): every line holding `-->` is cut to MAX_TIMING_LINE characters before it is parsed.
 */
export function cutTimingLines(text: string): string {
  return text.replace(/^[^\r\n]*$/gm, (line) => (line.length > MAX_TIMING_LINE && line.includes('-->') ? line.slice(0, MAX_TIMING_LINE) : line));
}

/** Parses WebVTT or SRT text. A file without a single cue is refused: it is not captions. */
export async function parseCaptions(text: string, format: 'vtt' | 'srt', file: string): Promise<DraftTranscript> {
  const result = await parseText(cutTimingLines(text.replace(/^\uFEFF/, '')), { type: format });
  const fatal = result.errors.find((e) => e.code === 1 /* BadSignature */);
  if (fatal) throw new ImportProblem(file, fatal.message, `line ${fatal.line}`);
  if (result.cues.length === 0) {
    const first = result.errors[0];
    throw new ImportProblem(file, first ? first.message : `no cues: not a ${format === 'vtt' ? 'WebVTT' : 'SRT'} file`, first ? `line ${first.line}` : undefined);
  }
  const cues = [...result.cues].sort((a, b) => a.startTime - b.startTime);
  const rolling = format === 'vtt' && cues.some((c) => INLINE_TIME.test(c.text)) && cues.some((c) => c.text.includes('\n'));
  const segments = rolling ? rollingSegments(cues) : cues.map((c) => cueSegment(c, format)).filter((s): s is DraftSegment => s !== undefined);
  const interpolated = segments.some((s) => s.interpolated);
  return { segments, timing: interpolated ? 'interpolated' : 'source', format: rolling ? 'youtube-vtt' : format };
}
