// Following sources and transcribing their episodes.
import { integer, optionalText, text, toggle } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { PACKAGE_VERSION, localBaseUrl, PORT, PUBLIC_BASE_URL, TRANSCRIBE_URL } from './shared.js';

export const PIPELINE = {
  /** Following sources and transcribing their episodes (the pipeline's worker and `npm run follow`). */
  pipeline: {
    libraryDir: text(
      'FOLLOW_LIBRARY_DIR',
      '.cache/follow',
      "where each followed channel's library folder is written (what the pipeline produced, so nothing is transcribed twice): a persistent volume in production",
      { accepts: 'folder path' },
    ),
    pollIntervalSeconds: integer(
      'FOLLOW_POLL_INTERVAL_SECONDS',
      900,
      1,
      7 * 86_400,
      'how often a followed source is polled; errors back off from it, `Retry-After` and `Cache-Control: max-age` can only lengthen it',
    ),
    maxBackoffSeconds: integer('FOLLOW_MAX_BACKOFF_SECONDS', 86_400, 1, 30 * 86_400, 'longest wait between polls of a source that keeps failing'),
    recentDays: integer(
      'FOLLOW_RECENT_DAYS',
      7,
      0,
      3650,
      'an episode published within this many days is `new`: transcribed before any backfill (older episodes), channels taking turns',
    ),
    recentItems: integer('FOLLOW_RECENT_ITEMS', 1, 0, 1000, "the newest this many episodes of each feed are `new` too, however old (a monthly show's latest)"),
    maxItemsPerPoll: integer(
      'FOLLOW_MAX_ITEMS_PER_POLL',
      100,
      1,
      100_000,
      'new items one poll takes from a feed, the newest first; the rest are taken by the next polls (the poll report says how many wait)',
    ),
    maxQueuedPerChannel: integer(
      'FOLLOW_MAX_QUEUED_PER_CHANNEL',
      50,
      1,
      100_000,
      'processing jobs one channel may have queued or running; the rest (its oldest backfill) wait for later polls',
    ),
    userAgent: computed(
      [
        optionalText('FOLLOW_USER_AGENT', 'User-Agent of every outbound request (feeds, transcripts, audio)', { shown: '`CreatorContentAPI/<version> (+$PUBLIC_BASE_URL)`' }),
        PUBLIC_BASE_URL,
        PORT,
      ],
      (agent, url, port) => agent ?? `CreatorContentAPI/${PACKAGE_VERSION} (+${url ?? localBaseUrl(port)})`,
    ),
    allowPrivate: toggle('OUTBOUND_ALLOW_PRIVATE', false, '`true`: outbound fetches may reach loopback, private and link-local addresses (tests and local demos only)', [
      'true',
      'false',
    ]),
    audioMaxBytes: integer('AUDIO_MAX_BYTES', 1024 ** 3, 1024, 64 * 1024 ** 3, 'largest audio file fetched for transcription (decoded bytes counted while streaming)'),
    audioMaxSeconds: integer('AUDIO_MAX_SECONDS', 6 * 3600, 1, 48 * 3600, 'longest audio transcribed'),
    audioMinBytesPerSecond: integer(
      'AUDIO_MIN_BYTES_PER_SECOND',
      16 * 1024,
      0,
      1024 ** 3,
      'slowest audio download kept (averaged over `AUDIO_RATE_WINDOW_SECONDS`, from the request on); a slower host fails the episode without a retry. `0`: no floor',
    ),
    audioRateWindowSeconds: integer('AUDIO_RATE_WINDOW_SECONDS', 60, 1, 3600, 'the window the audio download rate floor is measured over'),
    transcribe: {
      /** The first service (what NER_URL defaults to). */
      url: computed([TRANSCRIBE_URL], (urls) => urls?.[0]),
      /** Every service, in the order given (empty: none). */
      urls: computed([TRANSCRIBE_URL], (urls) => urls ?? []),
      model: text('TRANSCRIBE_MODEL', 'base', 'model named in each transcription request (`whisper-1` for OpenAI; the local service serves its own model whatever is asked)'),
      apiKey: optionalText('TRANSCRIBE_API_KEY', 'Bearer key of a remote transcription service'),
      maxUploadBytes: integer(
        'TRANSCRIBE_MAX_UPLOAD_BYTES',
        24 * 1024 ** 2,
        64 * 1024,
        1024 ** 3,
        'largest audio piece sent in one request; longer audio is cut at silences (OpenAI refuses more than 25 MB)',
      ),
      timeoutMs: integer('TRANSCRIBE_TIMEOUT_MS', 30 * 60_000, 1000, 6 * 3_600_000, 'longest one transcription request may take'),
      concurrency: integer(
        'TRANSCRIBE_CONCURRENCY',
        1,
        1,
        64,
        'requests at once on each transcription service from one worker; the worker processes this many episodes at once per service in `TRANSCRIBE_URL`',
      ),
    },
  },
} satisfies Schema;
