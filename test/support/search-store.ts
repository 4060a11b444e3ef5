// A private store holding exactly the documents the indexer derives from a few records, every passage given one
// constant vector: for the search suites that need hand-made episodes on the real engine without loading a library.
import { expect } from 'chai';
import type { ChannelDoc } from '../../core/store/documents.js';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { episodeDocuments } from '../../indexer/documents.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { openWorld } from './world.js';

/** Creates the indices under `prefix` (the caller's to delete) and loads the channel and each record's catalog row, transcript and passages. */
export async function seedSearchStore(client: Client, prefix: string, channel: ChannelDoc, records: readonly EpisodeRecord[]): Promise<IndexAliases> {
  const { aliases } = await openWorld({ client, prefix });
  const body: unknown[] = [{ index: { _index: aliases.channels, _id: channel.id } }, channel];
  for (const record of records) {
    const docs = episodeDocuments(record, { modelId: 'test-model', indexedAt: new Date().toISOString() });
    body.push({ index: { _index: aliases.episodes, _id: record.id } }, docs.episode);
    body.push({ index: { _index: aliases.transcripts, _id: record.id } }, docs.transcript);
    for (const p of docs.passages) body.push({ index: { _index: aliases.passages, _id: p.id } }, { ...p, embedding: new Array(384).fill(0.05) });
  }
  const res = await client.bulk({ body: body as never, refresh: 'true' });
  expect(res.body.errors, JSON.stringify(res.body.items)).to.equal(false);
  return aliases;
}
