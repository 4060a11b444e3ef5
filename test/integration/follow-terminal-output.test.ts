// `npm run follow` prints no control character a feed sent: an item title that would set the terminal's title, clear
// a line and move the cursor up reaches the operator as visible replacement characters, in the poll report and in
// `--list` (security review 2026-11-27, item 15). The real CLI, OpenSearch and Redis.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow } from '../support/follow-env.js';

const HOSTILE = '\u001b]0;pwned\u0007Evil\u001b[2K\u001b[1A\u009b31m\u202eeman';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('follow: what the CLI prints of a hostile feed', function () {
  this.timeout(120_000);
  let libraryDir: string;
  let feed: FeedServer;
  let env: Record<string, string>;
  /** Closes what the store opened, drops its queues and indices, deletes the library folder. */
  let drop: (() => Promise<void>) | undefined;

  before(async function () {
    const store = await openFollowStore('follow-terminal');
    ({ libraryDir, env, drop } = store);
    feed = await startFeedServer({
      title: 'Hostile',
      items: [
        { guid: 'h', title: HOSTILE, pubDate: new Date(Number.NaN) },
        { guid: 'ok', title: 'Plain', pubDate: new Date(Date.UTC(2026, 1, 1)) },
      ],
    });
  });

  after(async function () {
    await feed?.close();
    await drop?.();
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
