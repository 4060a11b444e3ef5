// Enrichment of episodes that arrive with a transcript only.
import { ConfigError, custom, integer, isLoopbackHost, optionalText, toggle } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { readServiceUrl, checkKeyTransport } from '../readers.js';
import { TRANSCRIBE_URL, ENRICH_URL, ENRICH_CHAPTER_MIN_SECONDS, ENRICH_CHAPTER_MAX_SECONDS } from './shared.js';

/** `url` without trailing slashes when it is on this machine, else undefined. */
const localService = (url: string | undefined): string | undefined => (url && isLoopbackHost(new URL(url).hostname) ? url.replace(/\/+$/, '') : undefined);

export const ENRICH = {
  /** Enrichment: chapters, typed key moments, topics, people and entities generated for episodes that have none (issue 41). */
  enrich: {
    enabled: toggle('ENRICH', true, '`off`: the follow pipeline publishes transcribed episodes without generated chapters, moments, topics and entities'),
    chapterMinMs: computed([ENRICH_CHAPTER_MIN_SECONDS], (seconds) => seconds * 1000),
    chapterMaxMs: computed([ENRICH_CHAPTER_MAX_SECONDS, ENRICH_CHAPTER_MIN_SECONDS], (max, min) => {
      if (max < min) throw new ConfigError('ENRICH_CHAPTER_MAX_SECONDS', `expected at least ENRICH_CHAPTER_MIN_SECONDS (${min}), got ${max}`);
      return max * 1000;
    }),
    /** The language model's service; unset: the local method's titles and claims stay. */
    url: ENRICH_URL,
    model: optionalText('ENRICH_MODEL', 'model named in each chat request (Ollama and hosted services need one)', { shown: "unset (none sent: the server's own)" }),
    apiKey: computed([optionalText('ENRICH_API_KEY', 'Bearer key of the chat service (https, or http on loopback only)'), ENRICH_URL], (key, url) =>
      checkKeyTransport(key, url, 'ENRICH_API_KEY'),
    ),
    timeoutMs: integer(
      'ENRICH_TIMEOUT_MS',
      60_000,
      100,
      600_000,
      "longest the chat service may take over one chapter; past it that chapter keeps the local method's title and claims",
    ),
    deadlineMs: integer(
      'ENRICH_DEADLINE_MS',
      300_000,
      100,
      3_600_000,
      "longest the enrichment of one episode may take before publishing (in the worker's enrichment thread, from when the thread takes it); past it the thread is stopped and the episode is published without generated chapters, counted as a failed enrichment",
    ),
    /**
     * Named-entity recognition (`POST <url>/v1/entities`): `NER_URL`, else the first `TRANSCRIBE_URL` when it is on
     * loopback (the local service); unset: no people or entities. Episode texts, drafts included, never go to a hosted
     * transcription provider unless `NER_URL` names it (security review 2026-12-01, finding 6).
     */
    nerUrl: computed(
      [
        custom(
          'NER_URL',
          {
            shown: 'the first `TRANSCRIBE_URL` when it is on loopback (the local service), else unset (people from named speaker labels only, no entities)',
            accepts: 'http or https URL without credentials',
          },
          'named-entity recognition service (`POST <url>/v1/entities`): people and companies/products of generated episodes; name an internal or hosted one here, since it receives every episode text',
          readServiceUrl,
        ),
        TRANSCRIBE_URL,
      ],
      (ner, transcribe) => ner ?? localService(transcribe?.[0]),
    ),
  },
} satisfies Schema;
