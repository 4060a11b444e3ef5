// The configured enrichment stages: chapters and keyphrases with the embedder, people and entities through the NER
// service when there is one, titles and claims by a language model when ENRICH_URL names one.
import type { Config } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import type { Logger } from '../../core/ground/logger.js';
import { enrichTranscript } from './enrich-episode.js';
import type { EpisodeMade, GenerateInput, Stages } from './rules.js';
import { speechText } from './speech.js';
import { CHAT_OUTCOMES, createChatWriter, type ChatOutcome } from './llm.js';
import { createNerClient } from './ner.js';
import { createPeopleStage, type FindNames } from './people.js';
import { documentFrequencies } from './phrases.js';
import { episodeKeyphrases } from './topics.js';
import type { ChapterBounds, ChapterWriter, EmbedTexts, RecogniseEntities } from './types.js';

export interface StageParts {
  embed: EmbedTexts;
  bounds?: Partial<ChapterBounds> | undefined;
  /** Titles and claims by a language model; absent: the local method's. */
  writer?: ChapterWriter | undefined;
  /** People and entities; absent: none are generated. */
  findNames?: FindNames | undefined;
}

/** The stages from their parts (the CLI, the worker and the eval each bring their own). */
export function stagesOf({ embed, bounds, writer, findNames }: StageParts): Stages {
  return {
    stats: (texts, language) => ({ freq: documentFrequencies(texts, language) }),
    keyphrases: (text, language, stats) => episodeKeyphrases(text, { language, freq: stats.freq }),
    async episode(input: GenerateInput, stats, signal): Promise<EpisodeMade> {
      const { segments, language, title, description, want, channelName } = input;
      const made: EpisodeMade = { keyphrases: [] };
      if (want.chapters) {
        const out = await enrichTranscript({ segments, language, title }, { embed, writer, bounds, signal, freq: stats.freq });
        made.chapters = out.chapters;
        made.keyphrases = out.keyphrases;
      } else {
        made.keyphrases = episodeKeyphrases(speechText(segments), { language, freq: stats.freq });
      }
      if (findNames && (want.people || want.entities)) {
        try {
          made.names = await findNames({ segments, title, description, language, channelName }, signal);
          if (made.names.skipped) made.notes = [made.names.skipped];
        } catch (err) {
          signal?.throwIfAborted();
          // Chapters and topics stand without names: the episode is enriched in part and says why.
          made.notes = [`people and entities not generated: ${(err as Error).message}`];
        }
      }
      return made;
    },
  };
}

export interface ConfiguredStages {
  stages: Stages;
  /** The I/O the stages are made of (the worker's enrichment thread answers these and runs the rest off its event loop). */
  parts: Omit<StageParts, 'findNames'> & { recognise?: RecogniseEntities | undefined };
  /** Language-model outcomes so far (`ok`, `malformed`, `timeout`, `error`): a fallback is any but `ok`. */
  counts(): Record<ChatOutcome, number>;
}

/**
 * The stages as configured: the indexer's embedder (passed in by the worker, which has one; else made here, behind
 * the passage-vector cache), the chapter bounds, `NER_URL` (else the transcription service), `ENRICH_URL`.
 */
export async function createStages(
  config: Pick<Config, 'enrich' | 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedCacheDir' | 'embedding'>,
  { log, embedder, onOutcome }: { log?: Logger | undefined; embedder?: Pick<Embedder, 'embedPassages'>; onOutcome?: (outcome: ChatOutcome) => void } = {},
): Promise<ConfiguredStages> {
  // Imported only when needed: the enrichment thread imports this module and must never load the model library
  // (onnxruntime-node corrupts the process when a thread that loaded it is terminated, core/embedding/embedder-pool.ts).
  const model = embedder ?? (await (await import('../../core/embedding/indexer-embedder.js')).createIndexerEmbedder(config, log ? { log } : {}));
  const { enrich } = config;
  const counts = Object.fromEntries(CHAT_OUTCOMES.map((o) => [o, 0])) as Record<ChatOutcome, number>;
  const writer = enrich.url
    ? createChatWriter({
        url: enrich.url,
        ...(enrich.model ? { model: enrich.model } : {}),
        ...(enrich.apiKey ? { apiKey: enrich.apiKey } : {}),
        timeoutMs: enrich.timeoutMs,
        log,
        onOutcome: (outcome) => {
          counts[outcome]++;
          onOutcome?.(outcome);
        },
      })
    : undefined;
  const recognise = enrich.nerUrl ? createNerClient({ url: enrich.nerUrl, log }) : undefined;
  // Without NER the people stage still reads who speaks: named speaker labels are an episode's people first.
  const findNames = createPeopleStage({ recognise, log });
  if (!recognise) log?.info('no NER service (NER_URL or TRANSCRIBE_URL): people come from named speaker labels only, and no entities are generated');
  const parts = { embed: (texts: string[]) => model.embedPassages(texts), bounds: { minMs: enrich.chapterMinMs, maxMs: enrich.chapterMaxMs }, writer, recognise };
  const stages = stagesOf({ ...parts, findNames });
  return {
    stages,
    parts,
    counts: () => ({ ...counts }),
  };
}
