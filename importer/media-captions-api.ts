// media-captions, typed. Its own declarations re-export without file extensions, which TypeScript's NodeNext
// resolution cannot follow in an ESM package (every export resolves to nothing), so the part the importer uses
// is declared here, as in media-captions 1.0.4's dist/types, and the module is imported through it.
import * as untyped from 'media-captions';

export interface VTTCue {
  startTime: number;
  endTime: number;
  text: string;
}
export interface CaptionsParseError extends Error {
  readonly code: 0 | 1 | 2 | 3 | 4 | 5;
  readonly line: number;
}
export type VTTNode =
  | { type: 'text'; data: string }
  | { type: 'timestamp'; time: number; children: VTTNode[] }
  | { type: 'v'; voice: string; children: VTTNode[] }
  | { type: 'c' | 'i' | 'b' | 'u' | 'ruby' | 'rt' | 'lang'; children: VTTNode[] };

interface MediaCaptions {
  VTTCue: new (startTime: number, endTime: number, text: string) => VTTCue;
  parseTextStream(stream: ReadableStream<string>, options?: { strict?: boolean; type?: 'vtt' | 'srt' }): Promise<{ cues: VTTCue[]; errors: CaptionsParseError[] }>;
  tokenizeVTTCue(cue: VTTCue): VTTNode[];
}

const { parseTextStream } = untyped as unknown as MediaCaptions;
export const { VTTCue, tokenizeVTTCue } = untyped as unknown as MediaCaptions;

/**
 * Parses captions text line by line. Not media-captions' own `parseText`: it queues every line at once, and each read
 * of that queue shifts the whole array, so 32,000 cues took 37 s; lines handed over as the parser asks cost the same each.
 */
export function parseText(text: string, options: { strict?: boolean; type: 'vtt' | 'srt' }): Promise<{ cues: VTTCue[]; errors: CaptionsParseError[] }> {
  const lines = text.split(/\r?\n|\r/);
  let next = 0;
  const stream = new ReadableStream<string>(
    {
      pull(controller) {
        if (next < lines.length) controller.enqueue(lines[next++]!);
        else controller.close();
      },
    },
    { highWaterMark: 1 },
  );
  return parseTextStream(stream, options);
}
