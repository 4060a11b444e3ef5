// Podcasting 2.0 HTML transcripts → a draft transcript. The format is low fidelity: `<cite>` names the speaker,
// `<time>` the start of a monologue, `<p>` holds what is said. htmlparser2 reads the markup (entities, nesting,
// a fragment or a whole document); this module only maps. A monologue runs until the next `<time>`, the last
// until the episode's end; its words are spread by length, so the transcript says its timings are interpolated.
import { Parser } from 'htmlparser2';
import { cleanText, clockMs, ImportProblem, spreadWords, type DraftSegment, type DraftTranscript } from './text.js';

/** A paragraph as read: who says it, the `<time>` it follows (if one came since the last paragraph), where. */
interface Paragraph {
  speaker: string | null;
  startMs?: number;
  text: string;
  line: number;
}

/** When a file gives no episode end, its last monologue is given this much time a word (about 150 words a minute). */
const MS_PER_WORD = 400;

/** A `<time>`'s value: a clock (`h:mm:ss`, `m:ss`, `mm:ss.fff`) or an ISO 8601 duration (`PT1M5S`), in ms. */
function timeMs(value: string): number | undefined {
  const iso = /^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/i.exec(value);
  if (iso && value.length > 2) return Math.round((Number(iso[1] ?? 0) * 3600 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0)) * 1000);
  return clockMs(value);
}

/** The paragraphs of the file with their speakers and times, in order. */
function readParagraphs(html: string, file: string): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  // The line of a parser position; positions only grow, so the count goes on from the last one asked.
  let [lineIndex, line] = [0, 1];
  const lineAt = (index: number) => {
    for (; lineIndex < index; lineIndex++) if (html.charCodeAt(lineIndex) === 10) line++;
    return line;
  };
  let speaker: string | null = null;
  let pendingMs: number | undefined;
  let lastMs = -1;
  // What the text of the element being read goes to; text outside cite, time and p is not speech.
  let into: 'cite' | 'time' | 'p' | undefined;
  let buffer = '';
  let timeAttr: string | undefined;
  let paragraph: { text: string; line: number } | undefined;
  let problem: ImportProblem | undefined;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'cite' || name === 'time') {
          if (paragraph) paragraph.text += buffer;
          into = name;
          buffer = '';
          timeAttr = name === 'time' ? attribs.datetime : undefined;
        } else if (name === 'p') {
          paragraph = { text: '', line: lineAt(parser.startIndex) };
          into = 'p';
          buffer = '';
        } else if (name === 'br' && into === 'p') buffer += ' ';
      },
      ontext(text) {
        if (into) buffer += text;
      },
      onclosetag(name) {
        if (name === 'cite' && into === 'cite') {
          speaker = cleanText(buffer).replace(/\s*:$/, '') || null;
        } else if (name === 'time' && into === 'time') {
          const raw = cleanText(buffer);
          const at = timeMs(raw) ?? (timeAttr ? timeMs(timeAttr.trim()) : undefined);
          if (at === undefined) problem ??= new ImportProblem(file, `<time>${raw}</time> is not a time (h:mm:ss or m:ss)`, `line ${lineAt(parser.startIndex)}`);
          else if (at < lastMs) problem ??= new ImportProblem(file, `<time>${raw}</time> goes back before the time above it`, `line ${lineAt(parser.startIndex)}`);
          else [pendingMs, lastMs] = [at, at];
        } else if (name === 'p' && paragraph) {
          const text = cleanText(paragraph.text + buffer);
          if (text) {
            paragraphs.push({ speaker, ...(pendingMs === undefined ? {} : { startMs: pendingMs }), text, line: paragraph.line });
            pendingMs = undefined;
          }
          paragraph = undefined;
          into = undefined;
          buffer = '';
          return;
        } else return;
        // Back inside the paragraph that held the cite or time, if any.
        into = paragraph ? 'p' : undefined;
        buffer = '';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html.replace(/^\uFEFF/, ''));
  parser.end();
  if (problem) throw problem;
  return paragraphs;
}

/**
 * Parses an HTML transcript. Paragraphs before the first `<time>` start at 0; paragraphs after one without a
 * time of their own share its monologue's span by length. Refused: a file with no paragraph, or with no time.
 */
export function parseHtmlTranscript(html: string, file: string, endMs?: number | null): DraftTranscript {
  const paragraphs = readParagraphs(html, file);
  if (paragraphs.length === 0) throw new ImportProblem(file, 'no <p> paragraphs: not an HTML transcript');
  if (!paragraphs.some((p) => p.startMs !== undefined)) throw new ImportProblem(file, 'an HTML transcript without <time> has no timings: not imported');
  // Monologues: a timed paragraph and the untimed ones after it.
  const runs: Paragraph[][] = [];
  for (const p of paragraphs) {
    const current = runs.at(-1);
    if (current && (p.startMs === undefined || p.startMs === current[0]!.startMs)) current.push(p);
    else runs.push([{ ...p, startMs: p.startMs ?? 0 }]);
  }
  const segments: DraftSegment[] = [];
  runs.forEach((run, i) => {
    const start = run[0]!.startMs!;
    const words = run.map((p) => p.text.split(' ').length);
    const next = runs[i + 1]?.[0]!.startMs;
    const end = next ?? (endMs && endMs > start ? endMs : start + MS_PER_WORD * words.reduce((a, b) => a + b, 0));
    const spread = spreadWords(run.map((p) => p.text).join(' '), start, end);
    let at = 0;
    run.forEach((p, j) => {
      const own = spread.slice(at, at + words[j]!);
      at += words[j]!;
      const segmentEnd = j + 1 < run.length ? spread[at]!.s : end;
      segments.push({ speaker: p.speaker, startMs: own[0]!.s, endMs: segmentEnd, text: p.text, words: own, interpolated: true });
    });
  });
  return { segments, timing: 'interpolated', format: 'html' };
}
