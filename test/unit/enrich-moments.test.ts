import { expect } from 'chai';
import { speechOf } from '../../pipeline/enrich/rules.js';
import { chapterWeights, chooseMoments, claimOf, momentType, sentencesOf, standaloneClaim } from '../../pipeline/enrich/moments.js';
import { spokenWords, tidySpeech } from '../../pipeline/enrich/text.js';
import { MOMENT_TYPES, type EnrichSegment } from '../../pipeline/enrich/types.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { cutEpisode } from './enrich-fixture.js';

const seg = (i: number, text: string, speakerLabel: string | null = 'A'): EnrichSegment => ({ startMs: i * 10_000, endMs: i * 10_000 + 9_000, text, speakerLabel });

/** A turn said from `startMs` at 400 ms a word, each word timed (a hearing's turn runs for minutes). */
function timedTurn(startMs: number, text: string, speakerLabel: string | null): EnrichSegment {
  const words = text.split(' ').map((t, i) => ({ t, s: startMs + i * 400, e: startMs + i * 400 + 350 }));
  return { startMs, endMs: words.at(-1)!.e, text, speakerLabel, words };
}

/** When a word of `turn` is said: its `n`th occurrence of `word` (the first by default). */
function saidAt(turn: EnrichSegment, word: string, n = 1): { s: number; e: number } {
  const found = turn.words!.filter((w) => w.t === word)[n - 1];
  if (!found) throw new Error(`no ${word} in the turn`);
  return found;
}

const claim = (text: string) => standaloneClaim(text, 'en');

describe('key moments', function () {
  it('makes a claim of a whole sentence, dropping leading fillers and refusing one that leans on its context', function () {
    expect(claim('So, um, the battery should last a whole year.')).to.equal('The battery should last a whole year.');
    expect(claim('It should last a whole year.')).to.equal(null);
    expect(claim('And this is why we changed it.')).to.equal(null);
    expect(claim('What should the battery last?')).to.equal(null);
    expect(claim('the battery should last a whole')).to.equal(null);
  });

  it('types a reply to another speaker’s question as qa, and cues as prediction, story and debate', function () {
    const segs = [
      seg(0, 'How long should the battery last?', 'A'),
      seg(1, 'The battery should last at least a full year of daily use.', 'B'),
      seg(2, 'I think prices will rise sharply over the next decade for all of this.', 'A'),
      seg(3, 'I remember when I was a student we built one out of wood.', 'A'),
      seg(4, 'I disagree with that, the rubber buttons are cheaper to make.', 'B'),
    ];
    expect(momentType(segs, 1, 0, segs[1]!.text, 'en')).to.equal('qa');
    expect(momentType(segs, 2, 0, segs[2]!.text, 'en')).to.equal('prediction');
    expect(momentType(segs, 3, 0, segs[3]!.text, 'en')).to.equal('story');
    expect(momentType(segs, 4, 0, segs[4]!.text, 'en')).to.equal('debate');
    expect(momentType(segs, 4, 0, segs[4]!.text, 'de')).to.equal('insight');
  });

  it('chooses one to three moments per chapter, each from its claim’s first word to its last, with a standalone title', function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const last = segments.length - 1;
    const [weights] = chapterWeights([segments.map((s) => s.text).join(' ')], 'en');
    const moments = chooseMoments(segments, 0, last, { language: 'en', weights: weights! });
    expect(moments.length).to.be.within(1, 3);
    const words = segments.flatMap((s) => s.words!);
    for (const m of moments) {
      expect(MOMENT_TYPES).to.include(m.type);
      const first = words.find((w) => w.s === m.startMs);
      expect(first, 'starts on a word start').to.not.equal(undefined);
      expect(first!.t.toLowerCase()).to.equal(m.title.split(' ')[0]!.toLowerCase());
      expect(words.some((w) => w.e === m.endMs)).to.equal(true);
      expect(m.title).to.match(/^[A-Z0-9]/);
      expect(m.title).not.to.match(/^(he|she|it|this|that|so|and|but)\b/i);
      expect(m.title.length).to.be.at.most(200);
    }
    for (let i = 1; i < moments.length; i++) expect(moments[i]!.startMs).to.be.greaterThan(moments[i - 1]!.startMs);
  });

  it('quotes speech without transcription markup, cut-off starts or a word said twice, and keeps every other word', () => {
    expect(claim('The idea is to f to feed the output of that belief - net into another belief - net.')).to.equal(
      'The idea is to feed the output of that belief-net into another belief-net.',
    );
    expect(claim('Forth, we go all the way f through Parking, Hotel, @ @ Riots, or Disasters.')).to.equal('Forth, we go all the way through Parking, Hotel, Riots, or Disasters.');
    expect(claim('Look at that structure in the the output.')).to.equal('Look at that structure in the output.');
    expect(claim('I think a plan is good.')).to.equal('I think a plan is good.');
  });

  describe('times', function () {
    // education_10, 40:52: the moment's sentence is said 100 s into a turn.
    const opening = 'Thank you for the question. '.repeat(50).trim();
    const turn = timedTurn(2_452_000, `${opening} We try to prevent universities from taking the money out of franchise and onto campus.`, 'David Blaney');

    it('starts a moment at its sentence’s first word and ends it at its last, not at its turn’s start and end', function () {
      const [sentence] = sentencesOf([turn], 0, 0).filter((s) => s.text.startsWith('We try'));
      const made = claimOf(sentence!.words, 'en')!;
      expect(made.text).to.equal('We try to prevent universities from taking the money out of franchise and onto campus.');
      expect(made.startMs).to.equal(saidAt(turn, 'We').s);
      expect(made.startMs - turn.startMs).to.be.above(90_000);
      expect(made.endMs).to.equal(saidAt(turn, 'campus.').e);
      const [moment] = chooseMoments([turn], 0, 0, {
        language: 'en',
        weights: new Map([
          ['universitie', 1],
          ['franchise', 1],
        ]),
      });
      expect([moment!.startMs, moment!.endMs]).to.deep.equal([made.startMs, made.endMs]);
    });

    it('takes the times from the words kept when fillers, a vocative or a restart are dropped', function () {
      const said = timedTurn(60_000, 'Mr. Chair, we feel we feel obligated to collect more data from the ministry, um, this year.', 'A');
      const made = claimOf(sentencesOf([said], 0, 0)[0]!.words, 'en')!;
      expect(made.text).to.equal('We feel obligated to collect more data from the ministry, this year.');
      expect(made.startMs, 'the second "we": the words said again').to.equal(saidAt(said, 'we', 2).s);
      expect(made.endMs).to.equal(saidAt(said, 'year.').e);
    });

    it('uses its segment’s start and end where the words carry no times, or times spread over the cue', function () {
      const untimed: EnrichSegment = { startMs: 5_000, endMs: 65_000, text: `${opening} We try to keep provision local.`, speakerLabel: 'A' };
      const spread: EnrichSegment = { ...timedTurn(5_000, untimed.text, 'A'), wordsInterpolated: true };
      const miscounted: EnrichSegment = { ...timedTurn(5_000, untimed.text, 'A'), text: `${untimed.text} Indeed.` };
      for (const s of [untimed, spread, miscounted]) {
        const sentence = sentencesOf([s], 0, 0).find((x) => x.text.startsWith('We try'))!;
        const made = claimOf(sentence.words, 'en')!;
        expect([made.startMs, made.endMs]).to.deep.equal([s.startMs, s.endMs]);
      }
    });

    it('marks every segment of a transcript whose word times were spread by length, so its moments start at the cue', function () {
      const segments = [timedTurn(0, 'We try to keep provision local in every region.', 'A')];
      const record = { id: 'ep_x', transcript: { formatVersion: 1, wordTimings: 'interpolated', segments } } as unknown as EpisodeRecord;
      expect(speechOf(record)[0]!.wordsInterpolated).to.equal(true);
      expect(speechOf({ ...record, transcript: { ...record.transcript!, wordTimings: 'source' } })[0]!.wordsInterpolated).to.equal(undefined);
    });
  });

  describe('disfluencies', function () {
    it('says once a run of one to four words said again (Bmr026)', function () {
      expect(claim('We feel We feel obligated to collect more data.')).to.equal('We feel obligated to collect more data.');
      expect(claim('The rest is read is read TIMIT data and ATIS data and Wall Street Journal.')).to.equal('The rest is read TIMIT data and ATIS data and Wall Street Journal.');
      expect(claim("You can't you can't access that so you have to install Tcl first.")).to.equal("You can't access that so you have to install Tcl first.");
      expect(claim('I tested the uh the sort of final version of the PLP configuration.')).to.equal('I tested the sort of final version of the PLP configuration.');
      expect(claim('We will put it in the in the in the highly matched case first.')).to.equal('We will put it in the highly matched case first.');
    });

    it('drops a word cut off before its restart, and a false start before a capitalised restart', function () {
      expect(claim('I I jus I just gave Thilo some about ten gigs, the last ten gigs of space.')).to.equal('I just gave Thilo some about ten gigs, the last ten gigs of space.');
      expect(claim('The value of the triang triangular filter is given for each point.')).to.equal('The value of the triangular filter is given for each point.');
      expect(claim('We need a jus- just a second microphone for the meeting room.')).to.equal('We need a just a second microphone for the meeting room.');
      expect(claim('Um I jus So the latest result was that I tested the final version on development data.')).to.equal(
        'The latest result was that I tested the final version on development data.',
      );
    });

    it('keeps words said twice that are no stumble, and a short word before a longer one', function () {
      expect(claim('In twenty twenty we had had three meetings about the budget.')).to.equal('In twenty twenty we had had three meetings about the budget.');
      expect(claim('We were planning to do some sort of touch screen.')).to.equal('We were planning to do some sort of touch screen.');
      expect(claim('I think the theory is about an answer to the question.')).to.equal('I think the theory is about an answer to the question.');
      expect(tidySpeech('अलग अलग रास्ते')).to.equal('अलग अलग रास्ते');
    });

    it('drops the person addressed at the start of a turn', function () {
      expect(claim('Mr. Chair, farmers have contacted my office about the massive delays with the loans.')).to.equal(
        'Farmers have contacted my office about the massive delays with the loans.',
      );
      expect(claim('Mr.Chair, we have committed $50million to beef producers through the AgriRecovery program.')).to.equal(
        'We have committed $50million to beef producers through the AgriRecovery program.',
      );
      expect(claim('Madam Speaker, the tourism industry in the region is the sum of all its stakeholders.')).to.equal(
        'The tourism industry in the region is the sum of all its stakeholders.',
      );
      expect(claim('Well, MadamChair, again, we continue to work very closely with our partners.')).to.equal('We continue to work very closely with our partners.');
      expect(claim('Like the minister, last week I spoke with the director of the newspaper.')).to.equal(
        'Like the minister, last week I spoke with the director of the newspaper.',
      );
    });
  });

  describe('refusals', function () {
    it('refuses a claim holding another speaker’s interjection', function () {
      expect(claim('The banks could cut their interest by half Mr. Brian Masse: Not on credit cards.')).to.equal(null);
      expect(claim('We do not want to jeopardize The Chair: We go back to the member for Victoria.')).to.equal(null);
      expect(claim('Marie-Claude Bibeau: Our government has worked with farmers from the start.')).to.equal(null);
      expect(claim('We introduced measures Mr.Paul-Hus: Which day was that, exactly.')).to.equal(null);
      // The chair addressed, a name in a title: the speaker's own words.
      expect(claim('I want to make it very clear, Mr.Chair: Fraud is unacceptable in every program.')).to.equal(
        'I want to make it very clear, Mr.Chair: Fraud is unacceptable in every program.',
      );
      expect(claim('I think linking is a game changer inside of Photoshop: linking smart objects.')).to.equal(
        'I think linking is a game changer inside of Photoshop: linking smart objects.',
      );
    });

    it('refuses a claim with no finite verb, unless a short figure or judgement', function () {
      expect(claim('Not the actual plastic outside case, just the rubber thing round the outside.')).to.equal(null);
      expect(claim('The kind of honest broker role for the council, kind of.')).to.equal(null);
      expect(claim('Two to the power of the number of neurons.')).to.equal(null);
      expect(claim('In our region, the tourism industry generates more than $300million in activity.')).to.equal(
        'In our region, the tourism industry generates more than $300million in activity.',
      );
      expect(claim('At the home in Dorval, 31 seniors died in one month.')).to.equal('At the home in Dorval, 31 seniors died in one month.');
      expect(claim('The eternal battle for control of the controls.')).to.equal('The eternal battle for control of the controls.');
    });

    it('refuses a sentence never finished as said: a broken-off word, a broken noun phrase, a filler inside, a restart, a dangling end (labels of 2026-12-02)', function () {
      for (const line of [
        'You want to st store your favourite channel.',
        'I think to recognize the Italian digits with the neural netw Spanish neural network.',
        'For example, in Spain, the Spanish have several phones that do not appear in the E English.',
        'He is making the time sh finer grained and the frequency resolution less fine grained.',
        'Em we have talked this morning with the with Tilman about the generator.',
        'For the broader class nets we are going to increase it because the, the digits nets only correspond to about twenty phonemes.',
        "We'll meet when the we'll discuss on the further meeting.",
        'They can find it through, you know, ten tons of newspapers and magazines at home.',
        "The third point, it's very important to establish our marketing image, okay, with this new product.",
        'If you have a huge amount of data do word models But if you have a huge amount of data then you are fine.',
        'For the debugging we will probably just have a drop-down menu and while you are debugging you will just OK.',
        'Marcus Lerkult is actually implementing that stuff and Michael is leading the discussion there.',
        'Maybe this is more adequate for English and in German set processing is used.',
        'Like a normal cheap plastic case which can be covered up in a wooden case.',
        'Once you get past the turnoff to the Bay Bridge.',
        'Sure my name is Agnes and I am the user interface designer.',
        "In the next video, you'll get creative with this image as you learn how to blur parts of it.",
        'Click this button right here and watch what happens in the Layers panel.',
        'Up here in the Options bar, click the Check mark to finish working on this text.',
      ])
        expect(claim(line), line).to.equal(null);
    });

    it('keeps acronyms, "as you know", an ending pronoun, and drops a filler the sentence ends with', function () {
      expect(claim('At the end, I think that with LabeCut I can transfer to ASCII format, and HTK is an ASCII format.')).to.not.equal(null);
      expect(claim('Sixty-three days later, small oil and gas companies still cannot apply for BDC loans.')).to.not.equal(null);
      expect(claim('As you know, the committee has received a letter from the minister.')).to.not.equal(null);
      expect(claim("I'll choose Content Aware and Color Adaptation, hit OK, and click to deselect.")).to.not.equal(null);
      expect(claim('We looked at the budget and we decided to cut it.')).to.not.equal(null);
      expect(claim('The remote should have a bright yellow case like the fruit um.')).to.equal('The remote should have a bright yellow case like the fruit.');
      expect(claim('The scroll wheel needs a more expensive chip than the push button, yeah.')).to.equal('The scroll wheel needs a more expensive chip than the push button.');
      expect(claim('The push button only requires a simple chip and Mmm.')).to.equal(null);
    });

    it('refuses hearing procedure: apologies, welcomes, the floor, petitions, calls to order', function () {
      for (const line of [
        "We've received apologies for absence from Suzy Davies, and I'm very pleased to welcome Angela Burns, who is substituting for Suzy this morning.",
        'Mr. Chair, I am presenting a petition today signed by Canadians who are concerned about Bill C-7.',
        'I rise today to table e-petition 2466, initiated by a constituent of mine in Stittsville.',
        'The honourable member for Victoria has the floor for the next five minutes.',
        'I call on the Minister of Finance to answer the question from the member.',
        'Order, order, the member for Calgary Centre must be heard in silence.',
        'I would like to remind members that any petition must have already been certified by the clerk.',
      ])
        expect(claim(line), line).to.equal(null);
    });
  });

  describe('types', function () {
    const type = (segs: EnrichSegment[], at: number, nth = 0) => {
      const made = claimOf(spokenWords(segs[at]!.text), 'en')!;
      return momentType(segs, at, nth, made.text, 'en', made.said);
    };

    it('types qa only an answer to another speaker’s question that shares a word with it or asks “you”', function () {
      const hearing = [
        seg(0, 'Has HEFCW done any assessment to look at the effect of underfunding research?', 'Sian Gwenllian AM'),
        seg(1, "We've relied on the expert assessment of people like Graeme Reid.", 'Dr David Blaney'),
      ];
      expect(type(hearing, 1)).to.equal('qa');
      const asked = [seg(0, 'Can you tell me when the units arrive?', 'A'), seg(1, 'The factory ships every Tuesday from the port in Rotterdam.', 'B')];
      expect(type(asked, 1)).to.equal('qa');
      // Bmr026: a question about something else, and one the speaker asks themself.
      const pen = [seg(0, 'C can I have a pen?', 'Grad E'), seg(1, 'Jane seems to be moving right along on the transcriptions from the ICSI side.', 'Professor B')];
      expect(type(pen, 1)).to.equal('insight');
      const own = [seg(0, 'How long should the battery last?', 'A'), seg(1, 'The battery should last at least a full year of daily use.', 'A')];
      expect(type(own, 1)).to.equal('insight');
      const unknown = [seg(0, 'How long should the battery last?', null), seg(1, 'The battery should last at least a full year of daily use.', null)];
      expect(type(unknown, 1)).to.equal('insight');
    });

    it('types story only with a past-time anchor, never on “we had to”, “we got” or “we were planning”', function () {
      const one = (text: string) => type([seg(0, text)], 0);
      expect(one('We established from the outset that we had to impose conditions on executive compensation.')).to.equal('insight');
      expect(one('We got the figures from the finance team on Monday morning.')).to.equal('insight');
      expect(one('We were planning to put a touch screen on the remote control.')).to.equal('insight');
      expect(one('Two and a half years ago, the Prime Minister travelled to China to commence free trade negotiations.')).to.equal('story');
      expect(one('Back in 1998 we built the first version of the recogniser ourselves.')).to.equal('story');
      expect(one('The government signed a lopsided investment treaty with China in 2012.')).to.equal('story');
      expect(one('At the time we got our initial alignments from Decipher.')).to.equal('story');
      expect(one('Hynek should be getting back in town shortly if he is not there already.')).to.equal('insight');
      // "If I remember" hedges a present claim (label of ep_bro013, 2026-12-02); "I remember" tells one.
      expect(one("If you don't use adaptation, the error rate is around fifty percent worse, I think, if I remember.")).to.equal('insight');
      expect(one('I remember the first recogniser we built took a whole week to train.')).to.equal('story');
    });

    it('types debate only a reply to another speaker that disagrees', function () {
      const proposal = seg(0, 'Anything you can get Snack to run on, the transcriber will work on.', 'Grad A');
      expect(type([proposal, seg(1, 'No, the version Transcriber works with is not supported anymore.', 'PhD C')], 1)).to.equal('debate');
      expect(type([proposal, seg(1, 'I disagree, the rubber buttons are cheaper to make than the plastic ones.', 'PhD C')], 1)).to.equal('debate');
      // After a backchannel, or inside one's own turn: no reply.
      expect(type([proposal, seg(1, 'Right.', 'PhD D'), seg(2, 'But the problem is the version Transcriber works with is not supported anymore.', 'PhD C')], 2)).to.equal(
        'insight',
      );
      const own = [proposal, seg(1, 'I disagree with the plan, the rubber buttons are cheaper to make.', 'Grad A'), seg(2, 'Yeah.', 'PhD C')];
      expect(type(own, 1)).to.equal('insight');
    });

    it('types quote a short evaluative or figurative line', function () {
      const one = (text: string) => type([seg(0, text)], 0);
      expect(one('The eternal battle for control of the controls.')).to.equal('quote');
      expect(one('I also think it is a bit of a game changer when it comes to working with images inside of Photoshop.')).to.equal('quote');
      expect(one('Gross contamination and filthy equipment are appalling conditions for any hospital.')).to.equal('quote');
      expect(one('The committee has looked at the appalling conditions in long-term care homes across the country, and at the reports of the armed forces.')).to.equal('insight');
    });
  });

  it('reads a long transcript in time linear in its length, restarts and labels included', function () {
    const cue = (n: number) => ({ startMs: 0, endMs: 1_000, text: 'we feel we feel I jus I just Mr. Brian Masse: the the '.repeat(n), speakerLabel: 'A' });
    const seconds = (n: number) => {
      const started = process.hrtime.bigint();
      sentencesOf([cue(n)], 0, 0);
      tidySpeech(cue(n).text);
      claimOf(spokenWords(cue(n).text), 'en');
      return Number(process.hrtime.bigint() - started) / 1e9;
    };
    seconds(200);
    const small = seconds(1_000);
    const large = seconds(4_000);
    expect(large, `4,000 repeats against 1,000 (${small.toFixed(3)} s, ${large.toFixed(3)} s)`).to.be.below(Math.max(6 * small, 0.25));
  });
});
