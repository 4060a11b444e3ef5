// `npm run enrich -- <libraryDir>`: generates chapters with typed key moments, topics, people and entities for the episodes that lack them, into the library folder.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { commandConfig, describeFailure, missingServices, reachHttp } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { createProgress } from '../indexer/progress.js';
import { assertWritable, enrichLibrary } from '../pipeline/enrich/library.js';
import { EnrichRefusal } from '../pipeline/enrich/rules.js';
import { formatEnrichSummary } from './lib/enrich-output.js';
import { createStages } from '../pipeline/enrich/stages.js';

const program = new Command()
  .name('enrich')
  .description(
    'Generate what episodes of a library folder lack, from their transcripts: chapters with typed key moments,\n' +
      'topics, people and companies/products, each marked "generated": true. The creator\'s chapters and facet ids\n' +
      'are never touched. Writes into the folder (then `npm run ingest` loads it); a second run changes nothing.\n' +
      'A language model (ENRICH_URL) writes titles and claims when configured; entities need the NER service (NER_URL or TRANSCRIBE_URL).\n' +
      'Exit status 1 when an episode failed, or when the one episode asked for could not be enriched.',
  )
  .argument('<libraryDir>', 'library folder')
  .option('--channel <slug>', 'only this channel (slug or id)')
  .option('--episode <id>', 'only this episode')
  .option('--force', "regenerate what an earlier run generated (never the creator's data)")
  .option('--dry-run', 'say what would be generated; write nothing')
  .showHelpAfterError()
  .parse();

const opts = program.opts<{ channel?: string; episode?: string; force?: boolean; dryRun?: boolean }>();
const dir = resolve(program.args[0]!);
const config = commandConfig();
const log = createLogger({ name: 'enrich', level: config.logLevel, fd: 2 });

async function main(): Promise<number> {
  // Refused before the models load: a read-only folder costs nothing and changes nothing.
  if (!opts.dryRun) await assertWritable(dir);
  // Said before any work: people and entities silently missing is what a newcomer would not notice.
  for (const line of missingServices({ ...config, enrich: { ...config.enrich, enabled: true } }, { transcription: false })) process.stderr.write(`enrich: ${line}\n`);
  if (config.enrich.nerUrl) await reachHttp({ what: 'the NER service', url: config.enrich.nerUrl, variable: 'NER_URL' });
  const stages = await createStages(config, { log });
  const progress = createProgress({ label: 'enrich', log });
  try {
    const summary = await enrichLibrary({
      dir,
      stages: stages.stages,
      channel: opts.channel,
      episode: opts.episode,
      force: opts.force ?? false,
      dryRun: opts.dryRun ?? false,
      log,
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.stop();
    log.info({ summary: { ...summary, enriched: summary.enriched.length, written: summary.written.length }, fallbacks: stages.counts() }, 'enrich finished');
    process.stderr.write(`${formatEnrichSummary(summary, { dryRun: opts.dryRun ?? false })}\n`);
    const asked = opts.episode ? summary.refused.length + summary.failed.length > 0 : summary.failed.length > 0;
    return asked ? 1 : 0;
  } finally {
    progress.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (!(err instanceof EnrichRefusal)) log.error({ err }, 'enrich failed');
    process.stderr.write(`enrich: ${describeFailure(err, config)}\n`);
    process.exit(err instanceof EnrichRefusal ? 2 : 1);
  },
);
