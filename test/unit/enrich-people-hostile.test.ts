// The people stage's new readings of the speech stay linear on hostile input: the interface-label scan over long
// runs of capitalised words and menu arrows, thousands of distinct speaker labels, and thousands of acronyms and long
// forms sharing their initials.
import { expect } from 'chai';
import { episodeNames, readSpeech } from '../../pipeline/enrich/people.js';
import type { NamedEntity } from '../../pipeline/enrich/types.js';

/** Best of two runs, seconds (the machine is shared). */
function seconds(run: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const started = process.hrtime.bigint();
    run();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return best;
}

/** Four times the input well under six times the time (a quadratic step gives 16), with a floor for noise. */
function expectLinear(small: number, large: number, what: string): void {
  expect(large, `${what}: ${small.toFixed(3)} s, then ${large.toFixed(3)} s`).to.be.below(Math.max(6 * small, 0.25));
}

describe('enrich people: hostile input', function () {
  this.timeout(60_000);

  const texts: Record<string, (n: number) => string> = {
    'capitalised words': (n) => 'Click Alpha '.repeat(n / 12),
    'menu arrows': (n) => 'Choose A > B > '.repeat(n / 15),
    'one long capitalised run': (n) => `${'Word '.repeat(n / 5)}tool.`,
  };
  for (const [name, text] of Object.entries(texts)) {
    it(`reads 40 KB of ${name} in time linear in its length`, function () {
      readSpeech([text(1024)]);
      expectLinear(
        seconds(() => readSpeech([text(10 * 1024)])),
        seconds(() => readSpeech([text(40 * 1024)])),
        name,
      );
    });
  }

  it('reads 8,000 distinct speaker labels and 8,000 long forms sharing initials in time linear in their number', function () {
    const input = (n: number) => {
      const speakers = Array.from({ length: n }, (_, i) => `Mr. John Q${i.toString(36)}son (Riding ${i}, CPC)`);
      const entities: NamedEntity[] = Array.from({ length: n }, (_, i) => ({ text: `European Union${i.toString(36)}`, label: 'ORG' }));
      entities.push(...Array.from({ length: n }, () => ({ text: 'EU', label: 'ORG' })));
      return { speakers, lists: [entities, entities] };
    };
    const small = input(2_000);
    const large = input(8_000);
    episodeNames(small.lists, [], { speakers: small.speakers });
    expectLinear(
      seconds(() => episodeNames(small.lists, [], { speakers: small.speakers })),
      seconds(() => episodeNames(large.lists, [], { speakers: large.speakers })),
      'speakers and acronyms',
    );
  });
});
