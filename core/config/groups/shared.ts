// Variables that more than one group reads, declared once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../ground/package-root.js';
import { address, addressList, custom, integer, text } from '../values.js';
import { readIndexPrefix, readServiceUrl, readServiceUrls, HTTP } from '../readers.js';

export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
export const localBaseUrl = (port: number) => `http://localhost:${port}`;

// Variables that more than one field reads.
export const PORT = integer('PORT', 8080, 0, 65535, 'HTTP port of the API');
export const PUBLIC_BASE_URL = address(
  'PUBLIC_BASE_URL',
  undefined,
  HTTP,
  'base URL the API is reached at: the 401 challenge, the OAuth metadata document, the default token audience',
  '`http://localhost:$PORT`',
);
export const OPENSEARCH_URL = addressList(
  'OPENSEARCH_URL',
  'http://127.0.0.1:9200',
  HTTP,
  'OpenSearch node, or several comma-separated: requests are spread over them, and one a node refuses or drops goes to the next',
);
export const INDEX_PREFIX = custom(
  'INDEX_PREFIX',
  { fallback: 'cca-', accepts: 'lowercase letters, digits, `-`, `_`, `.`' },
  'prefix of every index, alias and queue name',
  readIndexPrefix,
);
export const MODEL_ID = text('MODEL_ID', 'Xenova/bge-small-en-v1.5', 'embedding model (model hub id)');
// Credentials in a service URL would be printed by every log line that names it (review 2026-11-27, item 16).
export const TRANSCRIBE_URL = custom(
  'TRANSCRIBE_URL',
  {
    shown: 'unset (episodes without a transcript in their source fail: nothing transcribes them)',
    accepts: 'http or https URL without credentials, or several comma-separated',
  },
  'OpenAI-compatible transcription service (`POST <url>/v1/audio/transcriptions`); several comma-separated: each piece goes to the least busy, one that fails is passed over for a minute. `npm run services -- up` starts the local one and prints its URL',
  readServiceUrls,
);
export const ENRICH_URL = custom(
  'ENRICH_URL',
  { shown: 'unset (titles and claims by the local method)', accepts: 'http or https URL without credentials' },
  'OpenAI-compatible chat service (`POST <url>/v1/chat/completions`: llama.cpp, Ollama, vLLM, a hosted one) that rewrites the titles and moment claims of generated chapters; it never chooses times',
  readServiceUrl,
);
export const ENRICH_CHAPTER_MIN_SECONDS = integer(
  'ENRICH_CHAPTER_MIN_SECONDS',
  120,
  10,
  3600,
  'shortest generated chapter of a meeting (speech under 90 s is one chapter; a one-voice talk under 15 minutes has chapters of at least a tenth of it, 30 s at least)',
);
export const ENRICH_CHAPTER_MAX_SECONDS = integer('ENRICH_CHAPTER_MAX_SECONDS', 1200, 60, 6 * 3600, 'longest generated chapter; at least `ENRICH_CHAPTER_MIN_SECONDS`');
