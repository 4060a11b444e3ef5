// Wall time of local enrichment per hour of speech, with the configured model and no cache (the worst case) and with
// the passage-vector cache warm (the case of an episode whose passages loading has embedded, or the reverse):
//   npx tsx scripts/eval/enrich-cost.ts [library dir, default the compact corpus] [--episodes 3]
import { Command } from 'commander';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createConfiguredEmbedder } from '../../core/embedding/configured.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import { useProvisionedModel } from '../ops/provision/model.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { evalConfig } from './harness.js';

async function main(): Promise<void> {
  const opts = new Command()
    .argument('[dir]', 'library', join(PROJECT_ROOT, 'test', 'data', 'qmsum-cut'))
    .option('--episodes <n>', 'episodes to enrich', Number, 3)
    .parse();
  const dir = opts.processedArgs[0] as string;
  const { episodes } = opts.opts<{ episodes: number }>();
  await useProvisionedModel('eval');
  const model = await createConfiguredEmbedder(evalConfig());
  const meta = await readLibraryMeta(dir);
  const records: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    if ((record.transcript?.segments.length ?? 0) > 0) records.push(record);
    if (records.length >= episodes) break;
  }
  const cache = new Map<string, number[]>();
  let modelMs = 0;
  const embedCold = async (texts: string[]) => {
    const t = Date.now();
    const v = await model.embedPassages(texts);
    modelMs += Date.now() - t;
    texts.forEach((x, i) => cache.set(x, v[i]!));
    return v;
  };
  const embedWarm = async (texts: string[]) => texts.map((x) => cache.get(x) ?? []);
  let hours = 0;
  let coldMs = 0;
  let warmMs = 0;
  for (const r of records) {
    const segments = r.transcript!.segments;
    hours += (segments[segments.length - 1]!.endMs - segments[0]!.startMs) / 3_600_000;
    let t = Date.now();
    await enrichTranscript({ segments, language: 'en' }, { embed: embedCold });
    coldMs += Date.now() - t;
    t = Date.now();
    await enrichTranscript({ segments, language: 'en' }, { embed: embedWarm });
    warmMs += Date.now() - t;
  }
  const perHour = (ms: number) => (ms / 1000 / hours).toFixed(1);
  process.stdout.write(
    `${records.length} episodes, ${hours.toFixed(2)} h of speech, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}\n` +
      `no cache: ${perHour(coldMs)} s per hour of speech (${perHour(modelMs)} s of it in the model)\n` +
      `vectors cached: ${perHour(warmMs)} s per hour of speech\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
