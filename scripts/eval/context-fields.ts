// Experiment: writes candidate "generated context" fields onto the speech passages of an eval store loaded from an
// enriched library copy, so the keyword leg can be tried with them (`--set "fields=text,chapterTitle,mainSpeakers,xTitle^0.3"`)
// without reloading. Fields: xTitle (the generated chapter's title), xKeys (its ten best keyphrases), xTopics (the
// episode's generated topic names), xEpKeys (the episode's twenty keyphrase candidates).
//
//   npx tsx scripts/eval/context-fields.ts --library .cache/eval/tutorialvqa-generated --prefix eval-tutorialvqa-generated-
import { Command } from 'commander';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { scrollHits } from '../../indexer/scroll.js';
import { candidatePhrases, documentFrequencies, rankCandidates, type DocumentFrequencies } from '../../pipeline/enrich/phrases.js';
import { episodeKeyphrases } from '../../pipeline/enrich/topics.js';
import { createOpenSearchClient, indexAliases } from '../../core/store/opensearch.js';

const FIELDS = ['xTitle', 'xKeys', 'xTopics', 'xEpKeys', 'xEpKeysLocal'] as const;

function chapterText(r: EpisodeRecord, startMs: number, endMs: number): string {
  return (r.transcript?.segments ?? [])
    .filter((s) => s.startMs >= startMs && s.startMs < endMs)
    .map((s) => s.text)
    .join(' ');
}

function topKeys(text: string, freq: DocumentFrequencies | undefined, n: number): string[] {
  return rankCandidates(candidatePhrases(text, 'en'), freq)
    .slice(0, n)
    .map((c) => c.surface);
}

async function main(): Promise<void> {
  const opts = new Command()
    .requiredOption('--library <dir>')
    .requiredOption('--prefix <prefix>')
    .option('--keys <n>', 'chapter keyphrases', '10')
    .parse()
    .opts<{ library: string; prefix: string; keys: string }>();
  const meta = await readLibraryMeta(opts.library);
  const topicName = new Map(meta.facets.filter((f) => f.kind === 'topic').map((f) => [f.record.id, f.record.name]));
  const records: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(opts.library, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) records.push(record);
  const freqs = new Map<string, DocumentFrequencies>();
  for (const c of meta.channels) {
    const mine = records.filter((r) => r.channelId === c.id);
    freqs.set(
      c.id,
      documentFrequencies(
        mine.map((r) => chapterText(r, -Infinity, Infinity)),
        'en',
      ),
    );
  }
  const byEpisode = new Map<string, { chapters: { startMs: number; endMs: number; title: string; keys: string }[]; topics: string; epKeys: string; epKeysLocal: string }>();
  for (const r of records) {
    const freq = freqs.get(r.channelId);
    byEpisode.set(r.id, {
      chapters: (r.chapters ?? []).map((c) => ({
        startMs: c.startMs,
        endMs: c.endMs,
        title: c.title,
        keys: topKeys(chapterText(r, c.startMs, c.endMs), freq, Number(opts.keys)).join(' · '),
      })),
      topics: (r.topicIds ?? []).map((id) => topicName.get(id) ?? '').join(' · '),
      epKeys: episodeKeyphrases(chapterText(r, -Infinity, Infinity), { language: 'en', ...(freq ? { freq } : {}) })
        .map((k) => k.phrase)
        .join(' · '),
      epKeysLocal: episodeKeyphrases(chapterText(r, -Infinity, Infinity), { language: 'en' })
        .map((k) => k.phrase)
        .join(' · '),
    });
  }
  const client = createOpenSearchClient({ url: process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200', timeoutMs: 120_000 });
  const index = indexAliases(opts.prefix).passages;
  await client.indices.putMapping({ index, body: { properties: Object.fromEntries(FIELDS.map((f) => [f, { type: 'text', analyzer: 'english' }])) } as never });
  let updated = 0;
  for await (const page of scrollHits<{ episodeId: string; startMs: number; kind: string }>(client, {
    index,
    query: { term: { kind: 'transcript' } },
    source: ['episodeId', 'startMs', 'kind'],
  })) {
    const body: unknown[] = [];
    for (const hit of page) {
      const ep = byEpisode.get(hit._source!.episodeId);
      if (!ep) continue;
      const at = hit._source!.startMs;
      const chapter = ep.chapters.find((c) => c.startMs <= at && at < c.endMs) ?? ep.chapters[ep.chapters.length - 1];
      body.push(
        { update: { _index: index, _id: hit._id } },
        { doc: { xTitle: chapter?.title ?? null, xKeys: chapter?.keys ?? null, xTopics: ep.topics, xEpKeys: ep.epKeys, xEpKeysLocal: ep.epKeysLocal } },
      );
    }
    if (body.length === 0) continue;
    const res = await client.bulk({ body: body as never, refresh: false });
    if ((res.body as { errors: boolean }).errors) throw new Error(JSON.stringify(res.body).slice(0, 2000));
    updated += body.length / 2;
  }
  await client.indices.refresh({ index });
  process.stdout.write(`${updated} passages of ${index} given ${FIELDS.join(', ')}\n`);
  await client.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
