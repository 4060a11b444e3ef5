// Real transcripts for the enrichment suites: meetings of the compact qmsum corpus (test/data/qmsum-cut), read without services.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { EpisodeRecord } from '../../core/library/checks.js';
import type { EmbedTexts } from '../../pipeline/enrich/types.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';

const CUT = fileURLToPath(new URL('../data/qmsum-cut/episodes/', import.meta.url));

/** One meeting of the compact corpus by id (`ep_bdb001`, `ep_es2010a`, …). */
export function cutEpisode(id: string): EpisodeRecord {
  return JSON.parse(gunzipSync(readFileSync(join(CUT, `${id}.json.gz`))).toString('utf8')) as EpisodeRecord;
}

/** The deterministic stand-in embedder (hashed words) as enrichment's `EmbedTexts`, counting the texts it was given. */
export function hashEmbed(): EmbedTexts & { texts: number } {
  const model = createHashEmbedder(128);
  const fn = (async (texts: string[]) => {
    fn.texts += texts.length;
    return model.embedPassages(texts);
  }) as EmbedTexts & { texts: number };
  fn.texts = 0;
  return fn;
}
