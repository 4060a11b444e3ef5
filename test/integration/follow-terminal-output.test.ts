// `npm run follow` prints no control character a feed sent: an item title that would set the terminal's title, clear
// a line and move the cursor up reaches the operator as visible replacement characters, in the poll report and in
// `--list` (security review 2026-11-27, item 15). The real CLI, OpenSearch and Redis.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { ensureIndices, type Client } from '../../src/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../support/hash-embeddings-server.js';
import { startCountingRelay, startFeedServer, type FeedServer } from '../support/feed-server.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';
import { dropFollowStore, followEnv, runFollow } from '../support/follow-env.js';

const HOSTILE = '\u001b]0;pwned\u0007Evil\u001b[2K\u001b[1A\u009b31m\u202eeman';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('follow: what the CLI prints of a hostile feed', function () {
  this.timeout(120_000);
  const config = loadConfig(process.env);
  let client: Client;
  let prefix: string;
  let libraryDir: string;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let embeddings: HashEmbeddingsServer;
  let feed: FeedServer;
  let env: Record<string, string>;

  before(async function () {
    client = testClient();
    prefix = privatePrefix('follow-terminal');
    libraryDir = await mkdtemp(join(tmpdir(), 'follow-terminal-lib-'));
    relay = await startCountingRelay('http://127.0.0.1:9');
    embeddings = await startHashEmbeddingsServer();
    env = followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env });
    const aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: 'u_creator', body: userDocument({ id: 'u_creator', name: 'Creator', plan: 'paid' }), refresh: true } as never);
    feed = await startFeedServer({
      title: 'Hostile',
      items: [
        { guid: 'h', title: HOSTILE, pubDate: new Date(Number.NaN) },
        { guid: 'ok', title: 'Plain', pubDate: new Date(Date.UTC(2026, 1, 1)) },
      ],
    });
  });

  after(async function () {
    await embeddings?.close();
    await feed?.close();
    await relay?.close();
    if (client) await dropFollowStore({ client, prefix, redisUrl: config.redisUrl });
    await rm(libraryDir, { recursive: true, force: true });
  });

  it('shows a skipped item whose title carries escape sequences with each control character replaced', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'hostile', '--owner', 'u_creator'], env);
    expect(run.code, run.stderr).to.equal(0);
    const skipped = run.stdout.split('\n').find((l) => l.startsWith('  skipped '));
    expect(skipped).to.equal('  skipped \uFFFD]0;pwned\uFFFDEvil\uFFFD[2K\uFFFD[1A\uFFFD31m\uFFFDeman: no valid pubDate (Invalid Date)');
    expect(run.stdout).to.not.match(CONTROL);
  });

  it('keeps --list to its tab-separated fields when the last poll error carries controls and tabs', async function () {
    const path = join(libraryDir, 'hostile', 'follow.json');
    const state = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...state, lastError: `the feed is not an RSS feed (${HOSTILE}\tfake\tfields)`, errors: 1 }));
    const run = await runFollow(['--list'], env);
    expect(run.code, run.stderr).to.equal(0);
    const line = run.stdout.split('\n').find((l) => l.startsWith('hostile\t'))!;
    expect(line).to.not.match(CONTROL);
    expect(line.split('\t')).to.have.length(7);
    expect(line).to.contain('1 poll errors (last: the feed is not an RSS feed (\uFFFD]0;pwned\uFFFDEvil');
  });
});
