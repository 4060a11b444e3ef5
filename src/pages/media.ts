// Which player an episode gets, and the only URLs library text may turn into: http(s), nothing else.
import { safeHttpUrl } from '../../core/ground/channel-urls.js';

export { safeHttpUrl };

const YOUTUBE_HOSTS = new Set(['www.youtube.com', 'youtube.com', 'm.youtube.com', 'youtu.be', 'www.youtube-nocookie.com']);
const VIDEO_EXTENSIONS = /\.(mp4|m4v|webm|mov|ogv)$/i;

/** The privacy-enhanced embed host: the only third party a page may load from. */
export const EMBED_ORIGIN = 'https://www.youtube-nocookie.com';

export type Player = { kind: 'youtube'; videoId: string; source: string } | { kind: 'audio' | 'video'; src: string; source: string } | { kind: 'none'; source: string | undefined };

/** The YouTube video id of a watch, short or embed URL; undefined otherwise. */
export function youtubeId(url: URL): string | undefined {
  if (!YOUTUBE_HOSTS.has(url.hostname)) return undefined;
  const id =
    url.hostname === 'youtu.be' ? url.pathname.slice(1) : url.pathname === '/watch' ? url.searchParams.get('v') : /^\/(embed|shorts|live)\/([^/]+)/.exec(url.pathname)?.[2];
  return id && /^[A-Za-z0-9_-]{6,20}$/.test(id) ? id : undefined;
}

/** A YouTube URL → the nocookie embed; an http(s) enclosure → native audio or video; else no player (the source link alone). */
export function playerFor(mediaUrl: string | null, link: string | null): Player {
  const media = safeHttpUrl(mediaUrl);
  if (media) {
    const url = new URL(media);
    const videoId = youtubeId(url);
    if (videoId) return { kind: 'youtube', videoId, source: media };
    return { kind: VIDEO_EXTENSIONS.test(url.pathname) ? 'video' : 'audio', src: media, source: media };
  }
  return { kind: 'none', source: safeHttpUrl(link) };
}

/** The embed URL cued to `t` ms (whole seconds, as the player takes them), with the JS API on for seeking. */
export function youtubeEmbedUrl(videoId: string, tMs: number, origin: string): string {
  const url = new URL(`${EMBED_ORIGIN}/embed/${encodeURIComponent(videoId)}`);
  url.searchParams.set('start', String(Math.floor(tMs / 1000)));
  url.searchParams.set('enablejsapi', '1');
  url.searchParams.set('origin', origin);
  url.searchParams.set('rel', '0');
  return url.href;
}

/** A media source cued by a media fragment (`#t=` seconds). */
export function mediaFragmentUrl(src: string, tMs: number): string {
  const url = new URL(src);
  url.hash = `t=${(Math.max(0, tMs) / 1000).toFixed(3).replace(/\.?0+$/, '')}`;
  return url.href;
}

/** ISO 8601 duration for schema.org (`PT1H2M3S`). */
export function isoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
}
