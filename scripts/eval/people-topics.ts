// People, entities and topics that enrichment makes of some episodes of a library, printed for reading: the people
// stage (speaker labels, and the NER service's /v1/entities when one runs, its answers cached in a temp folder) and
// the channel's topic choice over its episodes outside the test split. Prints counts a reader can compare across runs:
// speakers found by their full name, people and entities per episode, and the topics of each episode shown.
// TutorialVQA has no splits.json: its dev side is the videos whose id's sha1 is even (its README), the rest held out.
//   npx tsx scripts/eval/people-topics.ts <library> [--episodes ep_a,ep_b] [--no-ner] [--topics N]
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { withRecordedServices } from '../../core/config/recorded-services.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { createNerClient } from '../../pipeline/enrich/ner.js';
import { createPeopleStage, speakerName } from '../../pipeline/enrich/people.js';
import { documentFrequencies } from '../../pipeline/enrich/phrases.js';
import { speechText } from '../../pipeline/enrich/speech.js';
import { assignTopics, episodeKeyphrases } from '../../pipeline/enrich/topics.js';
import type { NamedEntity } from '../../pipeline/enrich/types.js';

const program = new Command()
  .argument('<library>', 'library folder')
  .option('--episodes <ids>', 'episode ids, comma-separated (default: every episode outside the test split)')
  .option('--no-ner', 'speaker labels only, no named-entity service')
  .option('--topics <n>', 'episodes whose topics are printed', '30')
  .parse();
const [dir] = program.args as [string];
const opts = program.opts<{ episodes?: string; ner: boolean; topics: string }>();

const splits = JSON.parse(await readFile(join(dir, 'splits.json'), 'utf8').catch(() => '{}')) as Record<string, string>;
const meta = await readLibraryMeta(dir);
const records: EpisodeRecord[] = [];
for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => {} })) records.push(record);
records.sort((a, b) => (a.id < b.id ? -1 : 1));
const heldOut = (id: string) => (Object.keys(splits).length > 0 ? splits[id] === 'test' : parseInt(createHash('sha1').update(id).digest('hex').slice(-1), 16) % 2 === 1);
const usable = records.filter((r) => !heldOut(r.id) && (r.transcript?.segments.length ?? 0) > 0);
const chosen = opts.episodes ? usable.filter((r) => opts.episodes!.split(',').includes(r.id)) : usable;

const url = opts.ner ? withRecordedServices(process.env).env.TRANSCRIBE_URL : undefined;
const cacheDir = join(tmpdir(), 'people-topics-ner');
await mkdir(cacheDir, { recursive: true });
const client = url ? createNerClient({ url, timeoutMs: 120_000 }) : undefined;
/** The service's answers, cached by the texts sent (NER is the slow part, and its answer does not change). */
const recognise = client
  ? async (texts: string[], o: { language: string }): Promise<NamedEntity[][]> => {
      const file = join(
        cacheDir,
        `${createHash('sha256')
          .update(JSON.stringify([texts, o.language]))
          .digest('hex')}.json`,
      );
      const cached = await readFile(file, 'utf8').catch(() => undefined);
      if (cached) return JSON.parse(cached) as NamedEntity[][];
      const got = await client(texts, o);
      await writeFile(file, JSON.stringify(got));
      return got;
    }
  : undefined;
const stage = createPeopleStage(recognise ? { recognise } : {});
console.log(`${chosen.length} episodes; NER: ${url ?? 'none'}`);

let speakersNamed = 0;
let speakersFound = 0;
for (const r of chosen) {
  const segments = r.transcript!.segments;
  const channelName = meta.channels.find((c) => c.id === r.channelId)?.title;
  const names = await stage({ segments, title: r.title, description: r.description ?? null, language: r.language ?? 'en', channelName });
  // Speakers of the labels that name someone, by the key of the name they carry; found when a person has that key.
  const labelled = new Set(segments.map((s) => (s.speakerLabel ? speakerName(s.speakerLabel)?.key : undefined)).filter((k): k is string => !!k));
  const found = [...labelled].filter((k) => names.people.some((p) => p.key === k)).length;
  speakersNamed += labelled.size;
  speakersFound += found;
  console.log(`\n${r.id} (${splits[r.id] ?? 'dev'}) ${r.title}`);
  console.log(`  speakers named in labels ${labelled.size}, found by full name ${found}; people ${names.people.length}, entities ${names.entities.length}`);
  console.log(`  people: ${names.people.map((n) => `${n.name}×${n.mentions}`).join(', ')}`);
  console.log(`  entities: ${names.entities.map((n) => `${n.name}×${n.mentions}`).join(', ')}`);
}
console.log(`\nspeakers found by full name: ${speakersFound} of ${speakersNamed}`);

// Topics: each channel of the chosen episodes, over its episodes outside the test split.
const shown = Number(opts.topics);
for (const channelId of new Set(chosen.map((r) => r.channelId))) {
  const mine = usable.filter((r) => r.channelId === channelId);
  const texts = new Map(mine.map((r) => [r.id, speechText(r.transcript!.segments)]));
  const language = meta.channels.find((c) => c.id === channelId)?.language ?? 'en';
  const freq = documentFrequencies(texts.values(), language);
  const topics = assignTopics(mine.map((r) => ({ episodeId: r.id, keyphrases: episodeKeyphrases(texts.get(r.id)!, { language, freq }) })));
  const nameOf = new Map(topics.facets.map((f) => [f.id, f.name]));
  const ids = [...topics.topicIds.keys()].filter((id) => chosen.some((r) => r.id === id));
  // A fixed sample: every k-th chosen episode, so the same episodes are read in every run.
  const step = Math.max(1, Math.floor(ids.length / shown));
  const all = [...topics.topicIds.values()].flat().map((id) => nameOf.get(id)!);
  console.log(`\n${channelId}: ${mine.length} episodes, ${all.length} topics given, ${all.filter((t) => !t.includes(' ')).length} of them single words`);
  for (const id of ids.filter((_, i) => i % step === 0).slice(0, shown))
    console.log(
      `  ${id}: ${topics.topicIds
        .get(id)!
        .map((t) => nameOf.get(t))
        .join(' | ')}`,
    );
}
