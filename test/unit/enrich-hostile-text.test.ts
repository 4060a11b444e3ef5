// Security review 2026-12-01, finding 1 (HIGH), the text side: hostile transcript text costs time linear in its length.
// The review's cues go through the real path (the importer's parser, the library transcript, the enrichment stages'
// episode step with a deterministic stub embedder); 8,000 distinct names go through the per-episode name merge.
import { expect } from 'chai';
import { transcriptRecord } from '../../importer/model.js';
import { parseTranscriptText } from '../../importer/sources.js';
import { episodeNames } from '../../pipeline/enrich/people.js';
import { stagesOf } from '../../pipeline/enrich/stages.js';
import type { NamedEntity } from '../../pipeline/enrich/types.js';

/** A vector from the text's characters: the same text, the same vector. */
const stubEmbed = async (texts: string[]) =>
  texts.map((t) => {
    const v = new Array<number>(16).fill(0);
    for (let i = 0; i < t.length; i++) v[i % 16]! += (t.charCodeAt(i) % 7) + 1;
    return v;
  });

const stages = stagesOf({ embed: stubEmbed });

/** Seconds the real path takes for an SRT file whose first cue is `cue`, best of two (the machine is shared). */
async function enrichSeconds(cue: string): Promise<number> {
  const srt = `1\n00:00:00,000 --> 00:00:30,000\n${cue}\n\n2\n00:00:30,000 --> 00:01:00,000\nAnd that is the end of the show for today.\n`;
  let best = Infinity;
  for (let run = 0; run < 2; run++) {
    const started = process.hrtime.bigint();
    const transcript = transcriptRecord(await parseTranscriptText(srt, 'hostile.srt'));
    const made = await stages.episode(
      {
        episodeId: 'ep_hostile',
        title: 'Hostile',
        description: null,
        language: 'en',
        segments: transcript.segments,
        want: { chapters: true, topics: true, people: false, entities: false },
      },
      stages.stats([], 'en'),
    );
    expect(made.chapters, 'the episode is still enriched').to.have.length.above(0);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return best;
}

/** Time linear in size: 4 times the text well under 6 times the time (a quadratic step gives 16), with a floor for noise. */
function expectLinear(seconds: Record<number, number>, what: string): void {
  expect(seconds[40]!, `${what}: 40 KB against 10 KB (${JSON.stringify(seconds)})`).to.be.below(Math.max(6 * seconds[10]!, 0.25));
  expect(seconds[40]!, `${what}: 40 KB in seconds`).to.be.below(2);
}

describe('enrichment of hostile transcript text', function () {
  // The old code took seconds a cue here; the bound that matters is in each test.
  this.timeout(120_000);

  const families: Record<string, (bytes: number) => string> = {
    "a'a'a'…a.": (bytes) => `${"a'".repeat(bytes / 2 - 1)}a.`,
    '""…"x.': (bytes) => `${'"'.repeat(bytes - 2)}x.`,
  };
  for (const [name, cue] of Object.entries(families)) {
    it(`costs time linear in one cue of ${name} at 10, 20 and 40 KB`, async function () {
      await enrichSeconds(cue(1024)); // compile first
      const seconds: Record<number, number> = {};
      for (const kb of [10, 20, 40]) seconds[kb] = await enrichSeconds(cue(kb * 1024));
      expectLinear(seconds, name);
    });
  }

  it('merges 8,000 distinct names sharing a first name in bounded time, still joining two spellings of one', function () {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    /** Surnames no two of which are within the edits that join spellings (they differ in three letters or more). */
    const surname = (i: number) => `Q${[0, 1, 2].map((k) => letters[Math.floor(i / 26 ** k) % 26]!.repeat(3)).join('')}`;
    const names = (n: number): NamedEntity[][] => {
      const list: NamedEntity[] = Array.from({ length: n }, (_, i) => ({ text: `John ${surname(i)}`, label: 'PERSON' }));
      // One guest said often, and ASR's other spelling of him.
      list.push(...Array.from({ length: 6 }, () => ({ text: 'John Varma', label: 'PERSON' })), ...Array.from({ length: 3 }, () => ({ text: 'John Verma', label: 'PERSON' })));
      return [list, list];
    };
    const timed = (n: number) => {
      const started = process.hrtime.bigint();
      const result = episodeNames(names(n));
      return { result, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
    };
    timed(200);
    const small = timed(2_000);
    const large = timed(8_000);
    expect(large.result.people[0], 'the two spellings are one person').to.deep.include({ key: 'john-varma', mentions: 18 });
    expect(large.seconds, `8,000 names against 2,000 (${small.seconds.toFixed(2)} s, ${large.seconds.toFixed(2)} s)`).to.be.below(Math.max(6 * small.seconds, 0.5));
    expect(large.seconds, '8,000 names in seconds').to.be.below(3);
  });
});
