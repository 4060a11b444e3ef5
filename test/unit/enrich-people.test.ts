// People and companies/products from entity lists: cleaning, spelling merges, thresholds, channel ids; no service needed (the recogniser here is a plain function over fixed lists).
import { expect } from 'chai';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { batchTexts, NerError, readEntities } from '../../pipeline/enrich/ner.js';
import {
  assignNames,
  cleanName,
  createPeopleStage,
  episodeNames,
  nameSlug,
  passages,
  readSpeech,
  sameSpokenName,
  speakerName,
  withBefore,
  type EpisodeNames,
  type NameMention,
} from '../../pipeline/enrich/people.js';
import type { NamedEntity, RecogniseEntities } from '../../pipeline/enrich/types.js';

const P = (text: string): NamedEntity => ({ text, label: 'PERSON' });
const O = (text: string): NamedEntity => ({ text, label: 'ORG' });
const names = (list: { name: string; mentions: number }[]) => list.map((n) => `${n.name}×${n.mentions}`);

describe('enrich people: cleaning a name', function () {
  it('strips possessives, forms of address (also glued on), a leading "the" and the dots of spelled initials', function () {
    expect(cleanName("Varma's", 'person')).to.equal('Varma');
    expect(cleanName('Mr.LeBlanc', 'person')).to.equal('LeBlanc');
    expect(cleanName('Dr. Raghuram Rajan', 'person')).to.equal('Raghuram Rajan');
    expect(cleanName('Madam Minister Freeland', 'person')).to.equal('Freeland');
    expect(cleanName('MinisterMcKenna', 'person')).to.equal('McKenna');
    expect(cleanName('the World Bank', 'entity')).to.equal('World Bank');
    expect(cleanName('I.V.M.', 'entity')).to.equal('IVM');
    expect(cleanName('Drew Barrymore', 'person'), 'a name that starts like a title').to.equal('Drew Barrymore');
  });

  it('drops what ASR and the model make of pronouns, fillers, numbers, markers and stutters', function () {
    for (const junk of [
      'I',
      'Um',
      'Mmm',
      'Uhhh',
      'Yeah',
      'Chair',
      'Madam Chair',
      'MadamChair',
      'Chair Hon',
      '2019',
      'COVID-19',
      'Tu tu tu tu',
      'Jane Jane',
      'mike',
      'have—.',
      'Inaudible.]—be',
      'X',
    ])
      expect(cleanName(junk, 'person'), junk).to.equal(null);
    expect(cleanName('Bill S-204', 'person'), 'a digit in a person').to.equal(null);
    expect(cleanName('3M', 'entity'), 'too few letters').to.equal(null);
    expect(cleanName('Parliament', 'entity'), 'a generic noun a committee capitalises').to.equal(null);
    expect(cleanName('K-N-O-T-T-Y', 'entity'), 'spelled out').to.equal(null);
    expect(cleanName('Minister of Finance', 'entity'), 'a role').to.equal(null);
    expect(cleanName('Ministry of Finance', 'entity')).to.equal('Ministry of Finance');
    expect(cleanName('Ludwig van Beethoven', 'person'), 'a lower-case particle inside a name').to.equal('Ludwig van Beethoven');
  });

  it('gives one slug to spellings that differ in case, accents and apostrophes', function () {
    expect(nameSlug("D'Entremont")).to.equal(nameSlug('d’Entremont'));
    expect(nameSlug('Siân Gwenllian')).to.equal('sian-gwenllian');
  });

  it('takes ASR variants of one surname for one person, and different first names for different people', function () {
    expect(sameSpokenName('amit-varma', 'amit-verma')).to.equal(true);
    expect(sameSpokenName('narendra-shenoy', 'narendra-shanoi')).to.equal(true);
    expect(sameSpokenName('amit-varma', 'amit-doshi')).to.equal(false);
    expect(sameSpokenName('ram-guha', 'ram-gupta'), 'short surnames must match closely').to.equal(false);
    expect(sameSpokenName('jane-doe', 'john-doe')).to.equal(false);
  });
});

describe('enrich people: the names of one episode', function () {
  it('merges case, possessive, title and a lone surname into the full name, shown in its most used spelling', function () {
    const got = episodeNames([[P('Amit Varma'), P("Varma's")], [P('Mr. Varma'), P('Amit Varma')], [P('Varma')]]);
    expect(names(got.people)).to.deep.equal(['Amit Varma×5']);
    expect(got.people[0]!.key).to.equal('amit-varma');
  });

  it('keeps a name mentioned twice and drops one mentioned once; a mention in the title counts', function () {
    const got = episodeNames([[O('Google'), O('Google'), O('Intel')], [P('Russ Roberts')]], [[P('Russ Roberts')]]);
    expect(names(got.entities)).to.deep.equal(['Google×2']);
    expect(names(got.people)).to.deep.equal(['Russ Roberts×2']);
    expect(names(episodeNames([[O('Intel')]], [], { minMentions: 1 }).entities), 'the threshold is a setting').to.deep.equal(['Intel×1']);
  });

  it('keeps a one-word person only with three mentions and never a noun like "Bill" alone', function () {
    const got = episodeNames([[P('Jerry'), P('Jerry'), P('Jerry'), P('Adam'), P('Adam'), P('Bill'), P('Bill'), P('Bill'), P('Bill')]]);
    expect(names(got.people)).to.deep.equal(['Jerry×3']);
  });

  it('leaves a first name two full names share apart rather than guessing', function () {
    const got = episodeNames([[P('Ram Guha'), P('Ram Guha'), P('Ram Gopal'), P('Ram Gopal'), P('Ram'), P('Ram'), P('Ram')]]);
    expect(names(got.people)).to.deep.equal(['Ram×3', 'Ram Gopal×2', 'Ram Guha×2']);
  });

  it('does not let a lone word that is no person join a full name said once ("Twitter" and "Twitter Blueroom")', function () {
    const got = episodeNames([[O('Twitter'), O('Twitter'), O('Twitter'), P('Twitter Blueroom')]]);
    expect(names(got.entities)).to.deep.equal(['Twitter×3']);
    expect(got.people).to.deep.equal([]);
  });

  it('joins ASR spellings of one person, shown as the majority spelling', function () {
    const got = episodeNames([[P('Amit Varma'), P('Amit Verma'), P('Amit Varma')]]);
    expect(names(got.people)).to.deep.equal(['Amit Varma×3']);
  });

  it('decides the kind by most mentions, and counts well-known platforms as companies whatever the label', function () {
    const got = episodeNames([[P('Infosys'), O('Infosys'), O('Infosys'), P('Twitter'), P('Twitter')]]);
    expect(names(got.entities)).to.deep.equal(['Infosys×3', 'Twitter×2']);
    expect(got.people).to.deep.equal([]);
  });

  it('takes an ORG-labelled full name for a person when its first word begins a person name of the episode', function () {
    const got = episodeNames([[O('Chinmay Tumbe'), O('Chinmay Tumbe'), P('Chinmay Kumar'), O('Times of India'), O('Times of India'), P('Times Smith'), O('IBM'), O('IBM')]]);
    expect(names(got.people)).to.deep.equal(['Chinmay Tumbe×2']);
    expect(names(got.entities), '"of" is no part of a person name; one word is not a full name').to.deep.equal(['IBM×2', 'Times of India×2']);
  });

  it("ignores places, dates and works of art, and names made of the channel's own title words", function () {
    const got = episodeNames(
      [
        [
          { text: 'Mumbai', label: 'GPE' },
          { text: 'Mumbai', label: 'GPE' },
          { text: 'Deep Work', label: 'WORK_OF_ART' },
          { text: 'Deep Work', label: 'WORK_OF_ART' },
          P('Unseen'),
          P('Unseen'),
          P('Unseen'),
        ],
      ],
      [],
      {
        channelName: 'The Seen and the Unseen',
      },
    );
    expect(got).to.deep.equal({ people: [], entities: [] });
  });

  it('orders by mentions then key, keeps at most maxPerKind, and gives the same answer for the same input', function () {
    const lists = [[O('Beta'), O('Beta'), O('Alpha'), O('Alpha'), O('Gamma'), O('Gamma'), O('Gamma')]];
    expect(names(episodeNames(lists).entities)).to.deep.equal(['Gamma×3', 'Alpha×2', 'Beta×2']);
    expect(names(episodeNames(lists, [], { maxPerKind: 2 }).entities)).to.deep.equal(['Gamma×3', 'Alpha×2']);
    expect(JSON.stringify(episodeNames(lists))).to.equal(JSON.stringify(episodeNames(lists)));
  });
});

describe('enrich people: ids across a channel', function () {
  const ep = (people: [string, number][], entities: [string, number][] = []): EpisodeNames => ({
    people: people.map(([name, mentions]) => ({ key: nameSlug(name), name, mentions, kind: 'person' })),
    entities: entities.map(([name, mentions]) => ({ key: nameSlug(name), name, mentions, kind: 'entity' })),
  });

  it('gives one pe_g-/en_g- id per name across episodes, most mentioned first in each episode, facets sorted by id', function () {
    const got = assignNames([
      {
        episodeId: 'ep_b',
        names: ep(
          [
            ['Russ Roberts', 2],
            ['Ram Guha', 9],
          ],
          [['TikTok', 4]],
        ),
      },
      {
        episodeId: 'ep_a',
        names: ep(
          [['Russ Roberts', 5]],
          [
            ['TikTok', 2],
            ['Intel', 3],
          ],
        ),
      },
    ]);
    expect(got.personIds.get('ep_a')).to.deep.equal(['pe_g-russ-roberts']);
    expect(got.personIds.get('ep_b')).to.deep.equal(['pe_g-ram-guha', 'pe_g-russ-roberts']);
    expect(got.entityIds.get('ep_a')).to.deep.equal(['en_g-intel', 'en_g-tiktok']);
    expect(got.people).to.deep.equal([
      { id: 'pe_g-ram-guha', name: 'Ram Guha', generated: true },
      { id: 'pe_g-russ-roberts', name: 'Russ Roberts', generated: true },
    ]);
    expect(got.entities.map((f) => f.id)).to.deep.equal(['en_g-intel', 'en_g-tiktok']);
  });

  it("keeps the creator's id for a name the library knows, ASR spelling included, and does not write it again", function () {
    const got = assignNames(
      [
        {
          episodeId: 'ep_a',
          names: ep([
            ['Amit Verma', 3],
            ['Ram Guha', 2],
          ]),
        },
      ],
      { knownPeople: [{ id: 'pe_amit-varma', name: 'Amit Varma' }] },
    );
    expect(got.personIds.get('ep_a')).to.deep.equal(['pe_amit-varma', 'pe_g-ram-guha']);
    expect(got.people.map((f) => f.id)).to.deep.equal(['pe_g-ram-guha']);
  });

  it('joins ASR spellings of a full name across episodes, but never a first name alone to a full name of another episode', function () {
    const got = assignNames([
      { episodeId: 'ep_a', names: ep([['Narendra Shenoy', 7]]) },
      {
        episodeId: 'ep_b',
        names: ep([
          ['Narendra Shanoi', 2],
          ['Narendra', 4],
        ]),
      },
    ]);
    expect(got.personIds.get('ep_b')).to.deep.equal(['pe_g-narendra', 'pe_g-narendra-shenoy']);
    expect(got.people.map((f) => f.name)).to.deep.equal(['Narendra', 'Narendra Shenoy']);
  });

  it('does not depend on the order the episodes come in', function () {
    const a = { episodeId: 'ep_a', names: ep([['Amit Varma', 2]], [['Google', 2]]) };
    const b = { episodeId: 'ep_b', names: ep([['Amit Verma', 3]], [['Google', 5]]) };
    const one = assignNames([a, b]);
    const two = assignNames([b, a]);
    expect(JSON.stringify([...one.personIds], null, 0) + JSON.stringify(one.people)).to.equal(JSON.stringify([...two.personIds], null, 0) + JSON.stringify(two.people));
    expect(one.people).to.deep.equal([{ id: 'pe_g-amit-verma', name: 'Amit Verma', generated: true }]);
  });
});

describe('enrich people: the stage', function () {
  /** A recogniser over fixed answers: every text gets the entities of the words it holds. */
  const byWord =
    (known: Record<string, string>): RecogniseEntities =>
    (texts) =>
      Promise.resolve(texts.map((t) => Object.entries(known).flatMap(([text, label]) => (t.includes(text) ? [{ text, label }] : []))));

  it('sends the speech in passages of consecutive segments, then the title and description, and counts both', async function () {
    const seen: string[][] = [];
    const recognise: RecogniseEntities = (texts, opts) => {
      seen.push(texts);
      return byWord({ 'Adam Smith': 'PERSON' })(texts, opts);
    };
    const stage = createPeopleStage({ recognise, segmentsPerPassage: 2 });
    const got = await stage({ segments: [{ text: 'One.' }, { text: 'Adam Smith wrote.' }, { text: 'Three.' }, { text: ' ' }], title: 'On Adam Smith', language: 'en' });
    expect(seen).to.deep.equal([['One. Adam Smith wrote.', 'Three.', 'On Adam Smith']]);
    expect(names(got.people)).to.deep.equal(['Adam Smith×2']);
  });

  it('gives nothing, with the reason, for a language without a model, says so once and does not ask again', async function () {
    let calls = 0;
    const recognise: RecogniseEntities = () => {
      calls++;
      return Promise.reject(new NerError('ner_unsupported_language', 'no named-entity model for language de'));
    };
    const lines: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
    const stage = createPeopleStage({ recognise, log });
    const first = await stage({ segments: [{ text: 'Angela Merkel sprach.' }], language: 'de-AT' });
    const second = await stage({ segments: [{ text: 'Olaf Scholz sprach.' }], language: 'de' });
    expect(first.people).to.deep.equal([]);
    expect(first.skipped).to.match(/no named-entity model for language de/);
    expect(second.skipped).to.equal(first.skipped);
    expect(calls).to.equal(1);
    expect(lines.filter((l) => l.includes('no named-entity model'))).to.have.length(1);
  });

  it('gives nothing, once said, when the service has no /v1/entities (a hosted transcription URL)', async function () {
    let calls = 0;
    const recognise: RecogniseEntities = () => {
      calls++;
      return Promise.reject(new NerError('ner_not_served', 'no route POST /v1/entities'));
    };
    const stage = createPeopleStage({ recognise });
    const first = await stage({ segments: [{ text: 'Adam Smith.' }], language: 'en' });
    const second = await stage({ segments: [{ text: 'Adam Smith.' }], language: 'fr' });
    expect(first.skipped).to.match(/no \/v1\/entities/);
    expect(second.skipped).to.equal(first.skipped);
    expect(calls).to.equal(1);
  });

  it('lets any other failure through to the caller', async function () {
    const stage = createPeopleStage({ recognise: () => Promise.reject(new NerError('ner_unreachable', 'ECONNREFUSED')) });
    const err = await stage({ segments: [{ text: 'x' }], language: 'en' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NerError).with.property('code', 'ner_unreachable');
  });
});

describe('enrich ner client: pure helpers', function () {
  it('cuts texts into batches by count and by characters, in order, a long text alone', function () {
    expect(batchTexts(['a', 'b', 'c'], { maxTexts: 2, maxChars: 100 })).to.deep.equal([['a', 'b'], ['c']]);
    expect(batchTexts(['aaaa', 'bb', 'cccccccc', 'd'], { maxTexts: 10, maxChars: 6 })).to.deep.equal([['aaaa', 'bb'], ['cccccccc'], ['d']]);
    expect(batchTexts([], { maxTexts: 2, maxChars: 6 })).to.deep.equal([]);
  });

  it('passages join consecutive segments up to a count and a length, skipping blank ones', function () {
    expect(passages(['a', '', 'b', 'c'], { maxSegments: 2 })).to.deep.equal(['a b', 'c']);
    expect(passages(['aaaa', 'bbbb'], { maxChars: 6 })).to.deep.equal(['aaaa', 'bbbb']);
  });

  it('reads one list per text and refuses an answer of another shape', function () {
    expect(readEntities({ entities: [[{ text: 'IBM', label: 'ORG', start: 0, end: 3 }], []] }, 2)).to.deep.equal([[{ text: 'IBM', label: 'ORG', start: 0, end: 3 }], []]);
    expect(() => readEntities({ entities: [[]] }, 2)).to.throw(NerError, /expected 2 lists/);
    expect(() => readEntities({ entities: [[{ text: 'IBM' }]] }, 1)).to.throw(NerError, /without text, label, start and end/);
  });
});

describe('enrich people: speakers and the shape of a name', function () {
  /** A hearing's turns: each label as often as given. */
  const turns = (labels: Record<string, number>) => Object.entries(labels).flatMap(([label, n]) => Array.from({ length: n }, () => label));
  const P2 = (text: string, before: string): NameMention => ({ text, label: 'PERSON', before });

  it('reads the person a committee label names, without title, suffix, party or riding, and no one in a role or a cluster', function () {
    expect(speakerName('Mr. Ziad Aboultaif (Edmonton Manning, CPC)')).to.deep.equal({ name: 'Ziad Aboultaif', key: 'ziad-aboultaif', places: ['Edmonton Manning'] });
    expect(speakerName('The Chair (Hon. Wayne Easter)')?.name).to.equal('Wayne Easter');
    expect(speakerName('The Chair (Hon. Anthony Rota (NipissingTimiskaming, Lib.))')).to.deep.include({ name: 'Anthony Rota', places: ['NipissingTimiskaming'] });
    expect(speakerName('Hon. Bill Morneau (Minister of Finance)'), 'a portfolio is no place').to.deep.include({ name: 'Bill Morneau', places: [] });
    expect(speakerName('Right Hon. Justin Trudeau (Prime Minister)')?.name).to.equal('Justin Trudeau');
    expect(speakerName('Hefin David AM')?.name).to.equal('Hefin David');
    expect(speakerName('Dr David Blaney')?.name).to.equal('David Blaney');
    expect(speakerName('Jane')?.name, 'a VTT voice tag of a given name').to.equal('Jane');
    for (const role of ['The Chair', 'Project Manager', 'Marketing', 'User Interface', 'PhD A', 'Professor B', 'Guest 2', 'Guest']) expect(speakerName(role), role).to.equal(null);
  });

  it('gives a hearing every person its labels name, however many, before the names only said', function () {
    const speakers = Array.from(
      { length: 49 },
      (_, i) => `Mr. John Member${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}son (Riding ${i}, CPC)`,
    );
    const said = [[P('Graeme Reid'), P('Graeme Reid'), P('Ian Diamond'), P('Ian Diamond')]];
    const got = episodeNames(said, [], { speakers: [...speakers, ...speakers, 'The Chair', 'The Chair'] });
    expect(got.people).to.have.length(51);
    expect(
      got.people.slice(0, 49).every((p) => p.name.startsWith('John Member')),
      'speakers first',
    ).to.equal(true);
    expect(names(got.people.slice(49))).to.deep.equal(['Graeme Reid×2', 'Ian Diamond×2']);
  });

  it('gives the turns of a bare "The Chair" to the one person the episode names as chair', function () {
    const speakers = turns({ 'The Chair (Hon. Anthony Rota (NipissingTimiskaming, Lib.))': 1, 'The Chair': 5, 'Mr. Paul Manly (NanaimoLadysmith, GP)': 2, 'The Acting Chair': 3 });
    expect(names(episodeNames([], [], { speakers }).people)).to.deep.equal(['Anthony Rota×6', 'Paul Manly×2']);
    const two = turns({ 'The Chair (Hon. Wayne Easter)': 1, 'The Chair (Mr. John Doe)': 1, 'The Chair': 4 });
    expect(names(episodeNames([], [], { speakers: two }).people), 'two chairs: the bare turns are nobody’s').to.deep.equal(['John Doe×1', 'Wayne Easter×1']);
  });

  it('takes a surname or the end of a name said in speech for the only speaker it names', function () {
    const speakers = turns({
      'Mr. Ziad Aboultaif (Edmonton Manning, CPC)': 3,
      'Hon. Candice Bergen (Portage—Lisgar, CPC)': 2,
      'Mr. Tako Van Popta (LangleyAldergrove, CPC)': 1,
      'Mr. Brian Masse (Windsor West, NDP)': 2,
    });
    const said = [[P('Aboultaif'), P('Aboultaif'), P('Mr.Aboultaif'), P('Bergen'), P('Bergen'), P('Bergen'), P('Van Popta'), P('Van Popta'), P('Masse')]];
    const got = episodeNames(said, [], { speakers });
    expect(names(got.people)).to.deep.equal(['Ziad Aboultaif×6', 'Candice Bergen×5', 'Brian Masse×3', 'Tako Van Popta×3']);
  });

  it('leaves out a lone first name two speakers share, and a riding a label names', function () {
    const speakers = turns({ 'Dr David Blaney': 4, 'Hefin David AM': 3, 'Mr. Kody Blois (KingsHants, Lib.)': 1 });
    const got = episodeNames([[P('David'), P('David'), P('David'), O('KingsHants'), O('KingsHants'), O('HEFCW'), O('HEFCW')]], [], { speakers });
    expect(names(got.people)).to.deep.equal(['David Blaney×4', 'Hefin David×3', 'Kody Blois×1']);
    expect(names(got.entities)).to.deep.equal(['HEFCW×2']);
  });

  it('keeps a name found by the model alone only in a person’s shape: a given name, a title before it, or a speaker', function () {
    const said = [
      [
        ...[P('Saint David'), P('Saint David')],
        ...[P('Iver Johnson'), P('Iver Johnson')],
        ...[P("Bernie Woodrow's Rule"), P("Bernie Woodrow's Rule"), P("Bernie Woodrow's Rule")],
        ...Array.from({ length: 7 }, () => P('Transcriber')),
        ...[P2('Kay', "Yeah. '"), P2('Kay', "'"), P2('Kay', "Right. '")],
        ...[P2('Tochor', 'thank you, Mr. '), P2('Tochor', 'Mr. '), P2('Tochor', 'I ask ')],
        ...[P2('Mac', 'on a '), P2('Mac', 'your '), P2('Mac', 'on a ')],
        ...[P('Graeme Reid'), P('Graeme Reid')],
      ],
    ];
    const got = episodeNames(said);
    expect(names(got.people)).to.deep.equal(['Tochor×3', 'Graeme Reid×2', 'Iver Johnson×2']);
  });

  it('drops a surname written more often in lower case (a noun in a capital), not a given name', function () {
    const speech = readSpeech(['We trained the mel cepstra front-end. The cepstra look fine, the cepstra of the Mel Cepstra run too.']);
    const got = episodeNames([[P('Mel Cepstra'), P('Mel Cepstra'), P('Mel Gibson'), P('Mel Gibson')]], [], { speech });
    expect(names(got.people)).to.deep.equal(['Mel Gibson×2']);
  });

  it('takes a file format, and a longer name the speech writes in lower case, for no company (tutorial labels of 2026-12-02)', function () {
    const speech = readSpeech([
      'Convert the layer to a smart object. The smart object keeps its pixels, and a smart object scales cleanly. Save it as a JPEG.',
      'Smart Objects help. Open the smart object again. Adobe Photoshop opens it. Adobe Photoshop saves a copy.',
    ]);
    const got = episodeNames([[O('Smart Objects'), O('Smart Objects'), O('JPEG'), O('JPEG'), O('Adobe Photoshop'), O('Adobe Photoshop')]], [], { speech });
    expect(names(got.entities)).to.deep.equal(['Adobe Photoshop×2']);
  });

  it('takes interface labels of a tutorial for neither people nor companies', function () {
    const texts = [
      'Select the Patch Tool in the Tools panel. Choose Filter > Blur > Gaussian Blur. In the Layers panel, click the Pencil layer.',
      'Click Gaussian Blur again and go to Select. Open the Layers panel. Photoshop saves it. The layers are stacked, and these layers hide the layers below. Photoshop is open.',
    ];
    const said = [
      [
        P('Gaussian Blur'),
        P('Gaussian Blur'),
        P('the Patch Tool'),
        P('Patch Tool'),
        O('Pencil'),
        O('Pencil'),
        O('Select'),
        O('Select'),
        O('Layers'),
        O('Layers'),
        O('Tools'),
        O('Tools'),
      ],
      [O('Photoshop'), O('Photoshop'), P('Brush Size'), P('Brush Size')],
    ];
    const got = episodeNames(said, [], { speech: readSpeech(texts) });
    expect(got.people).to.deep.equal([]);
    expect(names(got.entities)).to.deep.equal(['Photoshop×2']);
  });

  it('folds an acronym into its long form and a plural into its singular', function () {
    const got = episodeNames([
      [
        O('EU'),
        O('EU'),
        O('EU'),
        O('European Union'),
        O('European Union'),
        O('UKRI'),
        O('UK Research and Innovation'),
        O('UK Research and Innovation'),
        O('iPod'),
        O('iPod'),
        O('iPods'),
      ],
    ]);
    expect(names(got.entities)).to.deep.equal(['European Union×5', 'iPod×3', 'UK Research and Innovation×3']);
  });

  it('the stage reads speakers without a recogniser, and the text before each entity when the recogniser gives offsets', async function () {
    const segments = [
      { text: 'Thank you, Mr. Tochor. Okay.', speakerLabel: 'The Chair (Hon. Wayne Easter)' },
      { text: "Mr. Tochor again, and Mr.Tochor. 'Kay.", speakerLabel: 'Mr. Corey Tochor (Saskatoon—University, CPC)' },
    ];
    expect(names((await createPeopleStage()({ segments, language: 'en' })).people)).to.deep.equal(['Corey Tochor×1', 'Wayne Easter×1']);
    const recognise: RecogniseEntities = (texts) =>
      Promise.resolve(texts.map((t) => [...t.matchAll(/Tochor|Kay/g)].map((m) => ({ text: m[0], label: 'PERSON', start: m.index, end: m.index + m[0].length }))));
    const got = await createPeopleStage({ recognise })({ segments, language: 'en' });
    expect(names(got.people)).to.deep.equal(['Corey Tochor×4', 'Wayne Easter×1']);
    expect(withBefore('Hi Mr. Masse', [{ text: 'Masse', label: 'PERSON', start: 7, end: 12 } as NamedEntity])[0]!.before).to.equal('Hi Mr. ');
  });
});
