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
  parseText(text: string, options?: { strict?: boolean; type?: 'vtt' | 'srt' }): Promise<{ cues: VTTCue[]; errors: CaptionsParseError[] }>;
  tokenizeVTTCue(cue: VTTCue): VTTNode[];
}

export const { VTTCue, parseText, tokenizeVTTCue } = untyped as unknown as MediaCaptions;
