// A podcast host on loopback for the follow suites: an RSS feed with ETag/304 support (gzip when asked), files
// (audio, transcripts) served from memory, items that can be added while it runs, and every request recorded.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface FeedServerItem {
  /** The item's `<guid>`, and the handle removeItem takes. */
  guid: string;
  /** Written without its `<guid>` (the guid stays the test's handle for removeItem). */
  withoutGuid?: boolean;
  /** Its `<link>`. */
  link?: string;
  title: string;
  pubDate: Date;
  /** Path on this server (`/audio/a.mp3`) or an absolute URL. */
  enclosure?: string;
  /** A Podcasting 2.0 transcript: path on this server and its MIME type. */
  transcript?: { path: string; type: string };
  /** HTML show notes. */
  description?: string;
  durationSeconds?: number;
}

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

export interface FeedServer {
  /** Base URL, no trailing slash. */
  url: string;
  feedUrl: string;
  requests: RecordedRequest[];
  addItem(item: FeedServerItem): void;
  /** Takes the item with this guid out of the feed. */
  removeItem(guid: string): void;
  /** Answers the feed URL with this instead of the feed (a 503, a 404, garbage), until called with undefined. */
  setFeedAnswer(answer: FeedAnswer | undefined): void;
  setFile(path: string, body: Buffer | string, type: string): void;
  /** The channel-level `<podcast:txt purpose="verify">` values the feed carries (decision 32); none at start. */
  setVerifyTokens(tokens: readonly string[]): void;
  close(): Promise<void>;
}

/** A canned answer of the feed URL. */
export interface FeedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The RSS document of `items` (newest first, as hosts write them). */
export function feedXml({
  title,
  language,
  base,
  items,
  verifyTokens = [],
}: {
  title: string;
  language: string;
  base: string;
  items: readonly FeedServerItem[];
  verifyTokens?: readonly string[];
}): string {
  const abs = (p: string) => (/^https?:/.test(p) ? p : `${base}${p}`);
  const rendered = [...items]
    .sort((a, b) => b.pubDate.getTime() - a.pubDate.getTime())
    .map(
      (i) => `    <item>
      <title>${escape(i.title)}</title>
      ${i.withoutGuid ? '' : `<guid isPermaLink="false">${escape(i.guid)}</guid>`}
      ${i.link ? `<link>${escape(i.link)}</link>` : ''}
      <pubDate>${i.pubDate.toUTCString()}</pubDate>
      ${i.description ? `<description>${escape(i.description)}</description>` : ''}
      ${i.enclosure ? `<enclosure url="${escape(abs(i.enclosure))}" length="0" type="audio/mpeg"/>` : ''}
      ${i.transcript ? `<podcast:transcript url="${escape(abs(i.transcript.path))}" type="${escape(i.transcript.type)}"/>` : ''}
      ${i.durationSeconds !== undefined ? `<itunes:duration>${i.durationSeconds}</itunes:duration>` : ''}
    </item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
  <channel>
    <title>${escape(title)}</title>
    <link>${base}/</link>
    <description>A feed served by the follow suites.</description>
    <language>${escape(language)}</language>
${verifyTokens.map((t) => `    <podcast:txt purpose="verify">${escape(t)}</podcast:txt>\n`).join('')}${rendered}
  </channel>
</rss>
`;
}

/** Starts the server on 127.0.0.1 (a free port). The feed is at `/feed.xml`; a file not set answers 404. */
export async function startFeedServer({ title = 'Loopback Radio', language = 'en', items = [] as FeedServerItem[] } = {}): Promise<FeedServer> {
  const list = [...items];
  const files = new Map<string, { body: Buffer; type: string }>();
  const requests: RecordedRequest[] = [];
  let canned: FeedAnswer | undefined;
  let verifyTokens: readonly string[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const answer = (status: number, headers: Record<string, string> = {}, body?: Buffer) => {
      requests.push({ path, headers: req.headers, status });
      res.writeHead(status, headers);
      res.end(body);
    };
    if (path === '/feed.xml' && canned) return answer(canned.status, canned.headers, Buffer.from(canned.body ?? ''));
    if (path === '/feed.xml') {
      const xml = Buffer.from(feedXml({ title, language, base, items: list, verifyTokens }));
      const etag = `"${createHash('sha1').update(xml).digest('hex')}"`;
      if (req.headers['if-none-match'] === etag) return answer(304, { ETag: etag });
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      return answer(200, { 'Content-Type': 'application/rss+xml', ETag: etag, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) }, gzip ? gzipSync(xml) : xml);
    }
    const file = files.get(path);
    if (!file) return answer(404, { 'Content-Type': 'text/plain' }, Buffer.from('not found'));
    return answer(200, { 'Content-Type': file.type, 'Content-Length': String(file.body.length) }, file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    feedUrl: `${base}/feed.xml`,
    requests,
    addItem: (item) => void list.push(item),
    removeItem: (guid) => void list.splice(0, list.length, ...list.filter((i) => i.guid !== guid)),
    setFeedAnswer: (a) => void (canned = a),
    setFile: (path, body, type) => void files.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body), type }),
    setVerifyTokens: (tokens) => void (verifyTokens = [...tokens]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A relay in front of a service that counts the transcription requests it passes on (`/v1/audio/…`); the same service's
 * other endpoints (the NER that enrichment calls, embeddings) pass through uncounted.
 */
export async function startCountingRelay(
  target: string,
  { rewriteAudioAnswer }: { rewriteAudioAnswer?: (answer: Record<string, unknown>) => unknown } = {},
): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const audio = req.url?.startsWith('/v1/audio/') === true;
    if (audio) count++;
    const upstream = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (up) => {
      if (!(audio && rewriteAudioAnswer && String(up.headers['content-type']).includes('json'))) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      // The transcription's JSON answer, rewritten whole (say, into what a service of another kind answers).
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const body = Buffer.from(JSON.stringify(rewriteAudioAnswer(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)));
        const headers = { ...up.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(up.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
