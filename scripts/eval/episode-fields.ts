// Experiment: writes candidate whole-episode fields onto the episode rows of an eval store, so an episode leg (BM25 over
// whole episodes, `--set "episode=xSpeech episodeW=0.3"`) can be tried without reloading. Fields: xSpeech (the
// episode's speech: its transcript passages' text in order), xGenTitles (the titles of its generated chapters, from the
// chapters index, every episode), xTopics (the names of its topics, from the facets index), xGen (both). It also gives
// the transcripts the product's `speech` and `speechMs` (from the passages, as a load with derivation 7 would), so a
// store loaded before them is searched as a new load is.
//
//   npx tsx scripts/eval/episode-fields.ts --prefix eval-qmsum-product-meetings-speech-
import { Command } from 'commander';
import { scrollHits } from '../../indexer/scroll.js';
import { createOpenSearchClient, indexAliases } from '../../core/store/opensearch.js';

const FIELDS = ['xSpeech', 'xGenTitles', 'xTopics', 'xGen'] as const;

interface Passage {
  episodeId: string;
  startMs: number;
  endMs: number;
  text: string;
}

async function main(): Promise<void> {
  const opts = new Command().requiredOption('--prefix <prefix>').parse().opts<{ prefix: string }>();
  const client = createOpenSearchClient({ url: process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200', timeoutMs: 120_000 });
  const aliases = indexAliases(opts.prefix);

  const speech = new Map<string, Passage[]>();
  for await (const page of scrollHits<Passage>(client, { index: aliases.passages, query: { term: { kind: 'transcript' } }, source: ['episodeId', 'startMs', 'endMs', 'text'] })) {
    for (const hit of page) {
      const p = hit._source!;
      const list = speech.get(p.episodeId) ?? [];
      list.push(p);
      speech.set(p.episodeId, list);
    }
  }
  const titles = new Map<string, string[]>();
  for await (const page of scrollHits<{ episodeId: string; chapters: { title: string; generated?: boolean }[] }>(client, {
    index: aliases.chapters,
    query: { match_all: {} },
    source: ['episodeId', 'chapters'],
  })) {
    for (const hit of page)
      titles.set(
        hit._source!.episodeId,
        (hit._source!.chapters ?? []).filter((c) => c.generated).map((c) => c.title),
      );
  }
  const topicName = new Map<string, string>();
  for await (const page of scrollHits<{ id: string; name: string }>(client, { index: aliases.facets, query: { term: { kind: 'topic' } }, source: ['id', 'name'] })) {
    for (const hit of page) topicName.set(hit._source!.id, hit._source!.name);
  }

  await client.indices.putMapping({ index: aliases.episodes, body: { properties: Object.fromEntries(FIELDS.map((f) => [f, { type: 'text', analyzer: 'english' }])) } as never });
  let updated = 0;
  for await (const page of scrollHits<{ id: string; topicIds?: string[] }>(client, { index: aliases.episodes, query: { match_all: {} }, source: ['id', 'topicIds'] })) {
    const body: unknown[] = [];
    for (const hit of page) {
      const id = hit._source!.id;
      const text = (speech.get(id) ?? [])
        .sort((a, b) => a.startMs - b.startMs)
        .map((p) => p.text)
        .join('\n');
      const gen = (titles.get(id) ?? []).join(' · ');
      const topics = (hit._source!.topicIds ?? []).map((t) => topicName.get(t) ?? '').join(' · ');
      body.push({ update: { _index: aliases.episodes, _id: hit._id } }, { doc: { xSpeech: text, xGenTitles: gen, xTopics: topics, xGen: `${gen} · ${topics}` } });
    }
    if (body.length === 0) continue;
    const res = await client.bulk({ body: body as never, refresh: false });
    if ((res.body as { errors: boolean }).errors) throw new Error(JSON.stringify(res.body).slice(0, 2000));
    updated += body.length / 2;
  }
  await client.indices.refresh({ index: aliases.episodes });
  await client.indices.putMapping({ index: aliases.transcripts, body: { properties: { speech: { type: 'text', analyzer: 'english' }, speechMs: { type: 'long' } } } as never });
  const body: unknown[] = [];
  for (const [id, list] of speech) {
    const ordered = list.sort((a, b) => a.startMs - b.startMs);
    const doc = { speech: ordered.map((p) => p.text).join('\n'), speechMs: Math.max(...ordered.map((p) => p.endMs)) };
    body.push({ update: { _index: aliases.transcripts, _id: id } }, { doc });
  }
  for (let i = 0; i < body.length; i += 100) {
    const res = await client.bulk({ body: body.slice(i, i + 100) as never, refresh: false });
    if ((res.body as { errors: boolean }).errors) throw new Error(JSON.stringify(res.body).slice(0, 2000));
  }
  await client.indices.refresh({ index: aliases.transcripts });
  process.stdout.write(`${updated} episodes of ${aliases.episodes} given ${FIELDS.join(', ')}\n`);
  await client.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
