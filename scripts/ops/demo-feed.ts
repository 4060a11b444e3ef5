// The demo's own podcast: sample-feed/episodes.json (short episodes written as text), spoken by espeak-ng into MP3s
// cached under .cache/demo-feed/ at the first run, and served as an RSS feed (ETag, 304) by a loopback server.
import { createHash } from 'node:crypto';
import { access, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../core/ground/logger.js';
import { probeSeconds } from '../../pipeline/transcribe/audio.js';
import { startFeedServer, type FeedServer } from '../lib/fakes/feed-server.js';
import { speak } from '../lib/fakes/speech.js';

export const SAMPLE_FEED = fileURLToPath(new URL('../../sample-feed/episodes.json', import.meta.url));

/** One episode of the demo feed: what is said, sentence by sentence. */
export interface DemoEpisode {
  guid: string;
  title: string;
  summary: string;
  sentences: string[];
}

export interface DemoFeed {
  title: string;
  description: string;
  language: string;
  episodes: DemoEpisode[];
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** Reads and checks the demo feed's scripts; a malformed file is one clear error. */
export async function readDemoFeed(file = SAMPLE_FEED): Promise<DemoFeed> {
  const data = JSON.parse(await readFile(file, 'utf8')) as Partial<DemoFeed>;
  const episodes = Array.isArray(data.episodes) ? data.episodes : [];
  const ok =
    isText(data.title) &&
    isText(data.language) &&
    episodes.length > 0 &&
    episodes.every((e) => isText(e.guid) && isText(e.title) && Array.isArray(e.sentences) && e.sentences.length > 0 && e.sentences.every(isText));
  if (!ok) throw new Error(`${path.basename(file)}: expected a title, a language and episodes with a guid, a title and sentences`);
  return { title: data.title!, description: data.description ?? '', language: data.language!, episodes };
}

/** The cached MP3 of an episode: named by its guid and a hash of its words and voice, so an edited script is spoken again. */
export function audioFile(cacheDir: string, episode: DemoEpisode): string {
  const digest = createHash('sha256')
    .update(JSON.stringify({ v: 1, sentences: episode.sentences }))
    .digest('hex')
    .slice(0, 12);
  return path.join(cacheDir, `${episode.guid}-${digest}.mp3`);
}

/** Speaks each episode into `<cacheDir>/<guid>-<hash>.mp3` unless it is there already; returns the files by guid. */
export async function ensureDemoAudio(feed: DemoFeed, { cacheDir, log }: { cacheDir: string; log?: Logger }): Promise<Map<string, string>> {
  await mkdir(cacheDir, { recursive: true });
  const files = new Map<string, string>();
  for (const episode of feed.episodes) {
    const file = audioFile(cacheDir, episode);
    const cached = await access(file).then(
      () => true,
      () => false,
    );
    if (!cached) {
      log?.info({ episode: episode.title }, 'speaking the episode with espeak-ng');
      await speak(episode.sentences, file, { gapMs: 700 });
    }
    files.set(episode.guid, file);
  }
  return files;
}

/** Serves the feed on 127.0.0.1 (a free port): newest first, one audio enclosure and its duration per episode, no transcript. */
export async function startDemoFeed(feed: DemoFeed, audio: ReadonlyMap<string, string>): Promise<FeedServer> {
  const server = await startFeedServer({ title: feed.title, language: feed.language });
  for (const [i, episode] of feed.episodes.entries()) {
    const file = audio.get(episode.guid);
    if (!file) throw new Error(`no audio for ${episode.guid}`);
    const enclosure = `/audio/${episode.guid}.mp3`;
    server.setFile(enclosure, await readFile(file), 'audio/mpeg');
    const durationSeconds = Math.round(await probeSeconds(file));
    server.addItem({ guid: episode.guid, title: episode.title, description: episode.summary, pubDate: new Date(Date.UTC(2026, 10, 1 + i)), enclosure, durationSeconds });
  }
  return server;
}
