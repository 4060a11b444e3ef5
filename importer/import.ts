// `npm run import`: a feed file or a yt-dlp folder → a library in our format, with a summary of what came in and
// what did not, and why.
import { stat } from 'node:fs/promises';
import { episodeFileRecords } from '../core/library/reader.js';
import type { Logger } from '../core/ground/logger.js';
import { importFeed } from './feed.js';
import type { HeldEpisode } from './item-identity.js';
import type { ImportedChannel, ItemReport } from './model.js';
import type { OutboundOptions } from './sources.js';
import { ImportProblem } from './text.js';
import { writeLibrary, type WriteSummary } from './write-library.js';
import { importYtdlpFolder } from './ytdlp.js';

export interface ImportOptions {
  source: string;
  out: string;
  slug?: string;
  owner?: string;
  fetch?: boolean;
  /** Outbound rules when fetching (address rule, User-Agent); default: private addresses refused. */
  outbound?: OutboundOptions;
  /** Archive the channel's episodes the source no longer holds. */
  archiveMissing?: boolean;
  /** Publish again the episodes the library holds unpublished (pending, failed, archived by hand). */
  republish?: boolean;
  /** Let this source take over a channel recorded as fed from another source. */
  replaceSource?: boolean;
  log: Logger;
  /** Called as each item or video has been read (progress). */
  onItem?: (done: number, total: number) => void;
}

export interface ImportSummary extends WriteSummary {
  channel: ImportedChannel['channel'];
  imported: number;
  skipped: ItemReport[];
  /** Items imported with something left out (a transcript not fetched, a damaged chapters file, …). */
  partial: ItemReport[];
}

/** The episodes the library at `out` holds for `channelId` (its `episodes/*.json`, as the importer writes them). */
async function libraryEpisodes(out: string, channelId: string): Promise<HeldEpisode[]> {
  const held: HeldEpisode[] = [];
  for await (const { record } of episodeFileRecords(out)) if (record.channelId === channelId) held.push({ id: record.id, mediaUrl: record.mediaUrl });
  return held;
}

export async function runImport(opts: ImportOptions): Promise<ImportSummary> {
  const info = await stat(opts.source).catch(() => {
    throw new ImportProblem(opts.source, 'no such file or folder');
  });
  const imported = info.isDirectory()
    ? await importYtdlpFolder(opts.source, { ...(opts.slug ? { slug: opts.slug } : {}), onItem: opts.onItem })
    : await importFeed(opts.source, {
        ...(opts.slug ? { slug: opts.slug } : {}),
        fetch: opts.fetch ?? false,
        outbound: opts.outbound,
        onItem: opts.onItem,
        held: (channelId) => libraryEpisodes(opts.out, channelId),
      });
  const owner = opts.owner ?? `u_${imported.channel.slug}_owner`;
  for (const item of imported.items) {
    if (item.outcome === 'skipped') opts.log.warn({ item: item.item, reasons: item.notes }, 'skipped');
    else if (item.notes.length > 0) opts.log.warn({ item: item.item, notes: item.notes }, 'imported with something left out');
    else opts.log.info({ item: item.item }, 'imported');
  }
  const written = await writeLibrary(opts.out, imported, owner, {
    archiveMissing: opts.archiveMissing ?? false,
    republish: opts.republish ?? false,
    replaceSource: opts.replaceSource ?? false,
  });
  return {
    ...written,
    channel: imported.channel,
    imported: imported.episodes.length,
    skipped: imported.items.filter((i) => i.outcome === 'skipped'),
    partial: imported.items.filter((i) => i.outcome === 'imported' && i.notes.length > 0),
  };
}
