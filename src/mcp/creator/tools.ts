// What each creator tool answers, as structured content and as text: the member's view through REST's own access checks and reads, on every call.
import type { Request } from 'express';
import { accessChannel, accessEpisode } from '../../auth/access.js';
import { createError } from '../../errors.js';
import { answeredChapter, episodePage, memberChannels, toChannelSummary, toRelatedEpisode } from '../../serve/member-reads.js';
import { channelOrigin, citation, type ChannelSites } from '../../../core/ground/channel-urls.js';
import { clock } from '../../../core/ground/clock.js';
import type { ChannelList, EpisodePage, RelatedEpisode } from '../../../core/contract/shapes.js';
import type { SearchParams } from '../../../core/search/types.js';
import type { ChannelDoc } from '../../../core/store/documents.js';
import type { SearchService } from '../../serve/search-service.js';
import { generatedMarks, oneLine, renderSearchText, toSearchParams, type SearchArgs } from '../search-tool.js';
import { TRANSCRIPT_PAGE_CHARS, type ChaptersPage, type CreatorSearchResult, type TranscriptPage } from './schemas.js';
import type { SortName, StatusView } from '../../store/episode-queries.js';

/** Channels one `search` without `channel` searches at most (by slug); the others are listed as skipped. */
export const MAX_SEARCHED_CHANNELS = 10;
/** Channel searches of one call running at once: each holds a place of the members' share, and all share the request's store budget. */
const SEARCHES_AT_ONCE = 3;

/** What a tool answers: its structured content and the text an assistant reads. */
export interface ToolAnswer<T> {
  structured: T;
  text: string;
}

export interface ToolDeps {
  search: SearchService;
  channelSites: ChannelSites;
}

/** The caller's user id: the router lets no anonymous request reach a tool. */
function userOf(req: Request): string {
  const userId = req.principal?.userId;
  if (!userId) throw new Error('a creator tool ran without an authenticated principal');
  return userId;
}

/** `fn` over `items`, at most `n` at a time, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

export async function listChannelsTool(req: Request): Promise<ToolAnswer<ChannelList>> {
  const channels = await memberChannels(req.queries, userOf(req));
  const structured = { channels: channels.map(({ channel, apiAccess }) => toChannelSummary(channel, apiAccess)) };
  const lines = [`${channels.length} channel${channels.length === 1 ? '' : 's'} you are a member of (by slug):`];
  for (const c of structured.channels) {
    const access = c.apiAccess ? 'API access' : "no API access: the owner's plan does not include it, so its tools answer plan_required";
    lines.push(`- ${c.slug}: "${oneLine(c.title)}" (${c.providerType}, ${access})`);
  }
  return { structured, text: lines.join('\n') };
}

/**
 * `search`: one channel (access checked as REST does: unknown and not-a-member alike, then the plan), or every channel
 * the caller is a member of whose owner's plan includes API access, at most {@link MAX_SEARCHED_CHANNELS}. Each channel
 * is searched by the caller's credential in the members' share of the search gate, drafts included; the episodes of
 * all are ranked together by score, each naming its channel.
 */
export async function searchTool(
  req: Request,
  { search }: ToolDeps,
  { channel: slug, ...args }: SearchArgs & { channel?: string | undefined },
): Promise<ToolAnswer<CreatorSearchResult>> {
  const params: SearchParams = { ...toSearchParams(args), publishedOnly: false };
  const skipped: CreatorSearchResult['skipped'] = [];
  let targets: ChannelDoc[];
  if (slug !== undefined) targets = [(await accessChannel(req.queries, req.principal!, slug)).channel];
  else {
    const member = await memberChannels(req.queries, userOf(req));
    for (const { channel } of member.filter((c) => !c.apiAccess)) skipped.push({ channel: channel.slug, reason: 'plan_required' });
    const open = member.filter((c) => c.apiAccess).map((c) => c.channel);
    targets = open.slice(0, MAX_SEARCHED_CHANNELS);
    for (const channel of open.slice(MAX_SEARCHED_CHANNELS)) skipped.push({ channel: channel.slug, reason: 'too_many_channels' });
  }
  const results = await mapLimited(targets, SEARCHES_AT_ONCE, (channel) => search.runAsMember(req, channel, params));
  const episodes = results
    .flatMap((result, i) => result.episodes.map((episode) => ({ ...episode, channel: targets[i]!.slug })))
    // Stable: equal scores keep the channels' slug order.
    .sort((a, b) => b.score - a.score)
    .slice(0, params.limit);
  const degraded = results.find((r) => r.degraded)?.degraded;
  const structured: CreatorSearchResult = { query: params.query, channels: targets.map((c) => c.slug), skipped, episodes, ...(degraded ? { degraded } : {}) };
  return { structured, text: await renderCreatorSearch(req, structured, targets) };
}

/** The text of a search over several channels: each channel's episodes under its own heading, channels in the order of their best episode. */
async function renderCreatorSearch(req: Request, result: CreatorSearchResult, targets: readonly ChannelDoc[]): Promise<string> {
  const marks = await generatedMarks({ query: result.query, episodes: result.episodes }, (id) => req.queries.chapters(id));
  const lines = [`Searched ${result.channels.length} channel${result.channels.length === 1 ? '' : 's'} (drafts included): ${result.channels.join(', ') || 'none'}.`];
  if (result.skipped.length > 0) lines.push(`Not searched: ${result.skipped.map((s) => `${s.channel} (${s.reason})`).join(', ')}.`);
  const bySlug = new Map(targets.map((c) => [c.slug, c]));
  const order = [...new Set(result.episodes.map((e) => e.channel))];
  if (order.length === 0) lines.push('', `No episode matches "${oneLine(result.query)}".`);
  for (const slug of order) {
    const episodes = result.episodes.filter((e) => e.channel === slug);
    lines.push('', renderSearchText({ query: result.query, episodes }, `${bySlug.get(slug)?.title ?? slug} (channel ${slug})`, marks, { view: 'member' }));
  }
  return lines.join('\n');
}

export async function listEpisodesTool(
  req: Request,
  { channelSites }: ToolDeps,
  { channel, status, sort, limit, cursor }: { channel: string; status: StatusView; sort: SortName; limit: number; cursor?: string | undefined },
): Promise<ToolAnswer<EpisodePage>> {
  const page = await episodePage(req.queries, req.principal!, { channelSites }, { slug: channel, status, sort, limit, cursor, filters: {} });
  const lines = [`${channel}: ${page.episodes.length} episode${page.episodes.length === 1 ? '' : 's'} (status ${status}, ${sort} first).`];
  for (const e of page.episodes) {
    lines.push(`- ${e.id} [${e.status}] ${e.publishedAt.slice(0, 10)} "${oneLine(e.title)}"`);
    if (e.error) lines.push(`  failed: ${oneLine(e.error)}`);
  }
  if (page.nextCursor) lines.push('', `More: call list_episodes again with cursor "${page.nextCursor}".`);
  return { structured: page, text: lines.join('\n') };
}

/** A stored transcript's segments as far as this tool reads them; anything else is a 502, as REST answers it. */
function storedSegments(document: unknown): { startMs: number; endMs: number; text: string; speakerLabel?: string | null }[] {
  const parsed = typeof document === 'string' ? safeJson(document) : document;
  const segments = (parsed as { segments?: unknown } | undefined)?.segments;
  const valid = (s: unknown): boolean => {
    const seg = s as Record<string, unknown> | null;
    return !!seg && Number.isInteger(seg.startMs) && Number.isInteger(seg.endMs) && typeof seg.text === 'string';
  };
  if (!Array.isArray(segments) || !segments.every(valid)) throw createError('transcript_unreadable');
  return segments as ReturnType<typeof storedSegments>;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `get_transcript`: one page of the transcript (without word timings) from `offset`: at most `limit` segments and
 * {@link TRANSCRIPT_PAGE_CHARS} characters of text (a single longer segment, at most 30,000, comes alone).
 */
export async function transcriptTool(
  req: Request,
  { channelSites }: ToolDeps,
  { episodeId, offset, limit }: { episodeId: string; offset: number; limit: number },
): Promise<ToolAnswer<TranscriptPage>> {
  const { channel, episode } = await accessEpisode(req.queries, req.principal!, episodeId);
  const stored = await req.queries.transcriptForPage(episode.id);
  if (!stored || stored.document === null || stored.document === undefined) throw createError('transcript_not_found');
  const all = storedSegments(stored.document);
  const origin = channelOrigin(channel, channelSites);
  const segments: TranscriptPage['segments'] = [];
  let chars = 0;
  for (let i = offset; i < all.length && segments.length < limit; i++) {
    const s = all[i]!;
    // A segment that would take the page past its characters starts the next page (one longer than a page comes alone).
    if (segments.length > 0 && chars + s.text.length > TRANSCRIPT_PAGE_CHARS) break;
    chars += s.text.length;
    segments.push({ index: i, startMs: s.startMs, endMs: s.endMs, speaker: s.speakerLabel ?? null, text: s.text, url: citation(origin, episode.id, s.startMs).url });
  }
  const end = offset + segments.length;
  const structured: TranscriptPage = { episodeId: episode.id, title: episode.title, totalSegments: all.length, offset, nextOffset: end < all.length ? end : null, segments };
  const lines = [
    segments.length === 0
      ? `"${oneLine(episode.title)}" (${episode.id}, ${episode.status}) has ${all.length} segments: none from offset ${offset}.`
      : `"${oneLine(episode.title)}" (${episode.id}, ${episode.status}): segments ${offset}–${end - 1} of ${all.length}.`,
  ];
  // Transcript text is the feed's: folded to one line per segment, so it cannot start lines of its own.
  for (const s of segments) lines.push(`[${clock(s.startMs)}]${s.speaker ? ` ${oneLine(s.speaker)}:` : ''} ${oneLine(s.text, Number.MAX_SAFE_INTEGER)}`);
  if (structured.nextOffset !== null) lines.push('', `More: call get_transcript again with offset ${structured.nextOffset}.`);
  return { structured, text: lines.join('\n') };
}

export async function chaptersTool(req: Request, { episodeId, offset, limit }: { episodeId: string; offset: number; limit: number }): Promise<ToolAnswer<ChaptersPage>> {
  const { episode } = await accessEpisode(req.queries, req.principal!, episodeId);
  const all = ((await req.queries.chapters(episode.id))?.chapters ?? []).map(answeredChapter);
  const chapters = all.slice(offset, offset + limit);
  const end = offset + chapters.length;
  const structured: ChaptersPage = { episodeId: episode.id, totalChapters: all.length, offset, nextOffset: end < all.length ? end : null, chapters };
  const lines = [
    `"${oneLine(episode.title)}" (${episode.id}): ${all.length} chapter${all.length === 1 ? '' : 's'}${chapters.length < all.length ? `, ${offset}–${end - 1} shown` : ''}.`,
  ];
  for (const c of chapters) {
    const made = c.generated ? " (generated from the transcript, not the creator's)" : '';
    lines.push(`- [${clock(c.startMs)}–${clock(c.endMs)}] "${oneLine(c.title)}"${made}`);
    for (const m of c.moments) lines.push(`  - [${clock(m.startMs)}] ${oneLine(m.type, 40)}: "${oneLine(m.title)}"${m.generated ? ' (generated)' : ''}`);
  }
  if (structured.nextOffset !== null) lines.push('', `More: call get_chapters again with offset ${structured.nextOffset}.`);
  return { structured, text: lines.join('\n') };
}

/** `get_related`: decision 16, as REST answers it (other published episodes of the channel sharing topics). */
export async function relatedTool(
  req: Request,
  { channelSites }: ToolDeps,
  { episodeId }: { episodeId: string },
): Promise<ToolAnswer<{ episodeId: string; related: RelatedEpisode[] }>> {
  const { channel, episode } = await accessEpisode(req.queries, req.principal!, episodeId);
  const topics = new Set(episode.topicIds ?? []);
  const rows = await req.queries.relatedEpisodes({ channel, episodeId: episode.id, topicIds: [...topics] });
  const origin = channelOrigin(channel, channelSites);
  const related = rows.map((r) => toRelatedEpisode(r, origin, topics));
  const lines = [`${related.length} published episode${related.length === 1 ? '' : 's'} related to ${episode.id} by shared topics:`];
  for (const r of related) lines.push(`- ${r.id} ${r.publishedAt.slice(0, 10)} "${oneLine(r.title)}" (${r.score} shared topic${r.score === 1 ? '' : 's'})`, `  ${r.url}`);
  return { structured: { episodeId: episode.id, related }, text: lines.join('\n') };
}
