// schema.org data of an episode page: PodcastEpisode for audio, VideoObject otherwise, the creator's chapters and key moments as Clip parts; serialized so that no library text can close its script element.
import type { EpisodePage } from './load.js';
import { isoDuration, playerFor, safeHttpUrl } from './media.js';

/**
 * JSON that is safe inside `<script type="application/ld+json">`: `<`, `>` and `&` are
 * escaped (so `</script>` or `<!--` in a title cannot end the element), and U+2028/U+2029,
 * which some parsers treat as line ends.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The episode as schema.org data (object form, for tests; {@link episodeJsonLd} serializes it). */
export function episodeStructuredData(page: EpisodePage): Record<string, unknown> {
  const { episode, channel } = page;
  const player = playerFor(episode.mediaUrl, episode.link);
  // Library text: only an http(s) URL is a thumbnail (crawlers and link previews follow it).
  const thumbnail = safeHttpUrl(episode.thumbnail);
  const audio = player.kind === 'audio';
  const clip = (name: string, startMs: number, endMs: number | undefined) => ({
    '@type': 'Clip',
    name,
    startOffset: Math.floor(startMs / 1000),
    ...(endMs !== undefined && endMs > startMs ? { endOffset: Math.ceil(endMs / 1000) } : {}),
    url: `${page.url}?t=${Math.floor(startMs)}`,
  });
  // Only the creator's chapters and moments are Clips (decision 27): a Clip is the publisher stating where its own key
  // moments are, and schema.org has no way to say "machine-written"; a search engine that wants moments made from the
  // speech makes its own. The page, its twin and the API still show the generated ones, labelled.
  const parts = page.chapters
    .filter((c) => !c.generated)
    .flatMap((c) => [clip(c.title, c.startMs, c.endMs), ...c.moments.filter((m) => !m.generated).map((m) => clip(m.title, m.startMs, m.endMs ?? undefined))]);
  const common = {
    '@context': 'https://schema.org',
    name: episode.title,
    url: page.url,
    ...(episode.summary || episode.description ? { description: episode.summary ?? episode.description } : {}),
    ...(episode.durationMs ? { duration: isoDuration(episode.durationMs) } : {}),
    ...(parts.length > 0 ? { hasPart: parts } : {}),
  };
  if (audio) {
    return {
      '@type': 'PodcastEpisode',
      ...common,
      datePublished: episode.publishedAt,
      partOfSeries: { '@type': 'PodcastSeries', name: channel.doc.title, url: `${channel.origin}/` },
      associatedMedia: { '@type': 'MediaObject', contentUrl: player.kind === 'audio' ? player.src : undefined },
    };
  }
  return {
    '@type': 'VideoObject',
    ...common,
    uploadDate: episode.publishedAt,
    ...(thumbnail ? { thumbnailUrl: thumbnail } : {}),
    ...(player.kind === 'youtube'
      ? { embedUrl: `https://www.youtube-nocookie.com/embed/${player.videoId}`, contentUrl: player.source }
      : player.kind === 'video'
        ? { contentUrl: player.src }
        : {}),
  };
}

export function episodeJsonLd(page: EpisodePage): string {
  return scriptSafeJson(episodeStructuredData(page));
}
