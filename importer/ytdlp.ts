// A yt-dlp download folder → one channel: `<title> [<id>].info.json` beside `<title> [<id>].<lang>.vtt` per video.
// Chapters from the info's `chapters`, else from description timestamps by YouTube's rules.
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { descriptionChapters, ytdlpChapters } from './chapters.js';
import type { ChannelSourceRecord } from '../core/contract/library-format.js';
import { durationOf, episodeEnd, episodeRecord, FacetNames, httpUrl, ingestProblem, summaryOf, transcriptRecord, type ImportedChannel } from './model.js';
import { parseJson, readConfinedText } from './sources.js';
import { parseCaptions } from './captions.js';
import { cleanText, ImportProblem, primaryLanguage, slugify, type DraftTranscript } from './text.js';

/** The fields of yt-dlp's info.json the importer reads (it holds many more). */
export const YtdlpInfo = Type.Object({
  id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_-]+$' }),
  title: Type.String(),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  upload_date: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{8}$' }), Type.Null()])),
  timestamp: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  duration: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  webpage_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  thumbnail: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  view_count: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  tags: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  categories: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  channel: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** The YouTube channel's id (`UC…`): the source's identity. */
  channel_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  channel_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  uploader: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  uploader_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** The video's spoken language, when YouTube knows it (`en`, `de`, `pt-BR`). */
  language: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  chapters: Type.Optional(
    Type.Union([Type.Array(Type.Object({ start_time: Type.Number({ minimum: 0 }), end_time: Type.Optional(Type.Number()), title: Type.String() })), Type.Null()]),
  ),
});
type Info = Static<typeof YtdlpInfo>;

function publishedAt(info: Info): string | undefined {
  if (typeof info.timestamp === 'number') return new Date(info.timestamp * 1000).toISOString();
  const d = info.upload_date;
  return d ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T00:00:00.000Z` : undefined;
}

/** The caption file of a video: in its spoken language when the info names one, else English, then any English variant, then the first. */
function captionFile(files: readonly string[], base: string, spoken?: string | null): string | undefined {
  const mine = files.filter((f) => f.startsWith(`${base}.`) && /\.(vtt|srt)$/.test(f) && !f.endsWith('.info.json')).sort();
  const lang = (f: string) => f.slice(base.length + 1).replace(/\.(vtt|srt)$/, '');
  const said = spoken ? (mine.find((f) => lang(f) === spoken) ?? mine.find((f) => primaryLanguage(lang(f)) === primaryLanguage(spoken))) : undefined;
  return said ?? mine.find((f) => lang(f) === 'en') ?? mine.find((f) => lang(f).startsWith('en')) ?? mine[0];
}

/**
 * The folder's source identity: the YouTube channel id its videos name, else the uploader's id, else the
 * channel's title (a folder from an old yt-dlp that wrote neither).
 */
function ytdlpSource(infos: readonly Info[], title: string): ChannelSourceRecord {
  const channelId = infos.find((i) => i.channel_id)?.channel_id;
  const uploaderId = infos.find((i) => i.uploader_id)?.uploader_id;
  const url = httpUrl(infos.find((i) => i.channel_url)?.channel_url) ?? (channelId ? `https://www.youtube.com/channel/${encodeURIComponent(channelId)}` : null);
  return { kind: 'youtube', id: channelId ? `channel:${channelId}` : uploaderId ? `uploader:${uploaderId}` : `title:${title}`, url };
}

/** Reads and maps one yt-dlp download folder; an info.json that cannot be read, or a video ingest would refuse, is skipped. */
export async function importYtdlpFolder(dir: string, opts: { slug?: string; onItem?: ((done: number, total: number) => void) | undefined }): Promise<ImportedChannel> {
  const files = (
    await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      throw new ImportProblem(dir, err.code === 'ENOENT' ? 'folder not found' : err.message);
    })
  ).sort();
  const infos = files.filter((f) => f.endsWith('.info.json'));
  if (infos.length === 0) throw new ImportProblem(dir, 'no <title> [<id>].info.json here: not a yt-dlp download folder');
  const people = new FacetNames('p');
  const topics = new FacetNames('t');
  const out: ImportedChannel = { channel: { id: '', slug: '', title: '', providerType: 'youtube' }, episodes: [], people: [], topics: [], items: [], warnings: [] };
  const episodes: { info: Info; file: string }[] = [];
  for (const file of infos) {
    const path = join(dir, file);
    try {
      const value = parseJson(await readConfinedText(dir, file), path);
      if (!Value.Check(YtdlpInfo, value)) {
        const first = [...Value.Errors(YtdlpInfo, value)][0];
        throw new ImportProblem(path, `not a yt-dlp info.json: ${first?.path || '/'} ${first?.message ?? ''}`.trim());
      }
      episodes.push({ info: value, file });
    } catch (err) {
      out.items.push({ item: file, outcome: 'skipped', notes: [(err as Error).message] });
    }
  }
  const title = cleanText(episodes.find((e) => e.info.channel)?.info.channel ?? episodes.find((e) => e.info.uploader)?.info.uploader ?? basename(dir));
  const slug = opts.slug ?? slugify(title);
  out.channel = {
    id: `ch_${slug}`,
    slug,
    title,
    providerType: 'youtube',
    source: ytdlpSource(
      episodes.map((e) => e.info),
      title,
    ),
  };

  for (const [index, { info, file }] of episodes.entries()) {
    opts.onItem?.(index + 1, episodes.length);
    const date = publishedAt(info);
    if (!date) {
      out.items.push({ item: file, outcome: 'skipped', notes: [`${file}: no upload_date or timestamp`] });
      continue;
    }
    const notes: string[] = [];
    const base = file.slice(0, -'.info.json'.length);
    const captions = captionFile(files, base, info.language);
    let draft: DraftTranscript | undefined;
    if (captions) {
      const path = join(dir, captions);
      try {
        draft = await parseCaptions(await readConfinedText(dir, captions), captions.endsWith('.srt') ? 'srt' : 'vtt', path);
      } catch (err) {
        notes.push((err as Error).message);
      }
    }
    if (!draft) notes.push('imported without a transcript');
    const durationMs = durationOf(info.duration);
    const end = episodeEnd(durationMs, draft);
    const description = cleanText(info.description ?? '');
    let chapters = info.chapters && info.chapters.length > 0 ? ytdlpChapters(info.chapters, end) : [];
    if (chapters.length === 0 && info.description) {
      const fromDescription = descriptionChapters(info.description, end);
      chapters = fromDescription.chapters;
      if (fromDescription.warning) notes.push(fromDescription.warning);
    }
    // Tied to the channel: the same video in two creators' folders is two episodes, never one taken over.
    const id = `ep_yt_${slug}_${info.id}`;
    const watch = httpUrl(info.webpage_url) ?? `https://www.youtube.com/watch?v=${info.id}`;
    const episode = episodeRecord({
      id,
      channelId: out.channel.id,
      title: cleanText(info.title) || info.id,
      description: description || null,
      summary: summaryOf(description),
      link: watch,
      thumbnail: httpUrl(info.thumbnail),
      mediaUrl: watch,
      durationMs,
      publishedAt: date,
      viewCount: info.view_count ?? null,
      personIds: [],
      topicIds: topics.ids([...(info.tags ?? []), ...(info.categories ?? [])]),
      transcript: draft ? transcriptRecord(draft) : null,
      chapters,
    });
    const refused = ingestProblem(episode);
    if (refused) {
      out.items.push({ item: id, outcome: 'skipped', notes: [refused, ...notes] });
      continue;
    }
    out.episodes.push(episode);
    out.items.push({ item: id, outcome: 'imported', notes });
  }
  out.people = people.records();
  out.topics = topics.records();
  return out;
}
