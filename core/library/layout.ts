// The library folder's layout (docs/spec/library-format.md): every file name and path of a library is made here, so
// the importer, the indexer, the follower and enrichment read and write the same files.
import { join, resolve } from 'node:path';
import type { FacetKind } from '../contract/library-format.js';

/** The files at a library's root (each a JSON array but the last two, which are the follower's and enrichment's). */
export const LIBRARY_FILES = Object.freeze({
  users: 'users.json',
  channels: 'channels.json',
  /** A followed source and its poll state (pipeline/follow), in a channel's folder. */
  follow: 'follow.json',
  /** What publishing keeps of a channel for enrichment (library format A4). */
  channelStats: 'channel-stats.json',
});

/** Facet files of a library and the kind each one holds. */
export const FACET_FILES: readonly { file: string; kind: FacetKind }[] = [
  { file: 'topics.json', kind: 'topic' },
  { file: 'people.json', kind: 'person' },
  { file: 'entities.json', kind: 'entity' },
  { file: 'collections.json', kind: 'collection' },
];

/** The facet file of `kind` (`topics.json`, …). */
export const facetFile = (kind: FacetKind): string => FACET_FILES.find((f) => f.kind === kind)!.file;

/** The folder of episode files. */
export const EPISODES_DIR = 'episodes';

/** An episode file's name: `.json` (one record) or `.jsonl` (one per line), either gzipped. */
export const EPISODE_FILE = /\.(json|jsonl)(\.gz)?$/;

/** A file of one record per line. */
export const isLinesFile = (path: string): boolean => /\.jsonl(\.gz)?$/.test(path);

/** A file at the library's root. */
export const libraryFile = (dir: string, name: string): string => join(dir, name);

/** The library folder of a channel the follower keeps under `libraryDir`. */
export const channelDir = (libraryDir: string, slug: string): string => resolve(libraryDir, slug);

/** An id that is a plain file name: what an episode's file may be named by. */
export const isSafeFileName = (id: string): boolean => /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(id);

/** The pieces folder of an episode file (`episodes/<id>.json` → `episodes/<id>.pieces`): transcribed pieces kept until the episode is published; no `.json` file, so no reader takes it for an episode. */
export const piecesDirOf = (episodeFile: string): string => episodeFile.replace(/\.json$/, '') + '.pieces';

/** An episode's own file (`episodes/<id>.json`); an id that is no plain file name is refused, whatever made it. */
export function episodePath(dir: string, id: string): string {
  if (!isSafeFileName(id)) throw new Error(`episode id ${JSON.stringify(id)} is not a safe file name`);
  return join(dir, EPISODES_DIR, `${id}.json`);
}
