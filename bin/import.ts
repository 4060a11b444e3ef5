// `npm run import -- <feed.xml | yt-dlp folder> --out <library dir>`: what creators have, in our library format.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../core/config/load.js';
import { createLogger } from '../core/ground/logger.js';
import { runImport } from '../importer/import.js';
import { createProgress } from '../indexer/progress.js';
import { ImportProblem } from '../importer/text.js';

const program = new Command()
  .name('import')
  .description(
    'Write (or update) a library in our format from a podcast RSS feed (Podcasting 2.0 transcripts, chapters,\n' +
      'persons, soundbites) or a yt-dlp download folder (info.json and captions). `npm run ingest` loads the result.\n' +
      'Exit status 1 when an item was skipped, 2 when the source could not be read at all.',
  )
  .argument('<source>', 'an RSS feed file, or a yt-dlp download folder')
  .requiredOption('--out <dir>', 'library folder to write into (created if missing; other channels are left alone)')
  .option('--channel <slug>', "the channel's slug (default: from the feed's or the YouTube channel's title)", (v) => {
    if (!/^[a-z0-9-]{1,63}$/.test(v)) throw new Error(`--channel ${v}: a slug is lowercase [a-z0-9-], 1-63 characters`);
    return v;
  })
  .option('--owner <userId>', "the channel's owner, created as a paid user when the library lacks it (default: u_<slug>_owner)")
  .option('--archive-missing', "archive the channel's episodes the source no longer holds (off: feeds often list only their latest items)")
  .option('--republish', 'publish again the episodes the library holds unpublished (off: pending, failed or hand-archived episodes keep their status)')
  .option('--replace-source', 'let this source feed a channel recorded as fed from another feed or YouTube channel')
  .option('--fetch', 'fetch transcripts and chapters at absolute http(s) URLs (off: they are left out, and the summary says so)')
  .parse();

const opts = program.opts<{ out: string; channel?: string; owner?: string; fetch?: boolean; archiveMissing?: boolean; republish?: boolean; replaceSource?: boolean }>();
const config = loadConfig(process.env);
const log = createLogger({ name: 'import', level: config.logLevel, fd: 2 });

const progress = createProgress({ label: 'import', unit: 'items', log });
try {
  const summary = await runImport({
    source: resolve(program.args[0]!),
    out: resolve(opts.out),
    slug: opts.channel,
    owner: opts.owner,
    fetch: opts.fetch,
    // OUTBOUND_ALLOW_PRIVATE=true lets --fetch reach loopback and private addresses (local demos and tests).
    outbound: { allowPrivate: config.pipeline.allowPrivate, userAgent: config.pipeline.userAgent },
    archiveMissing: opts.archiveMissing,
    republish: opts.republish,
    replaceSource: opts.replaceSource,
    log,
    onItem: (done, total) => progress.update(done, total),
  });
  progress.stop();
  const lines = [
    `channel ${summary.channel.slug} (${summary.channel.title}): ${summary.imported} episodes imported (${summary.created} new, ${summary.updated} updated, ${summary.unchanged} unchanged), ${summary.skipped.length} skipped${opts.archiveMissing ? `, ${summary.archived} archived (no longer in the source)` : ''}`,
    ...summary.skipped.map((s) => `  skipped ${s.item}: ${s.notes.join('; ')}`),
    ...summary.partial.map((s) => `  ${s.item}: ${s.notes.join('; ')}`),
    `next: npm run ingest -- ${opts.out}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = summary.skipped.length > 0 ? 1 : 0;
} catch (err) {
  progress.stop();
  log.error(err instanceof ImportProblem ? err.message : (err as Error).message);
  process.exitCode = 2;
}
