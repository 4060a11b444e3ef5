// The API process: its port, host, public URL, logs, channel sites and HTTP timeouts.
import { choice, integer, optionalInteger, text, toggle } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { localBaseUrl, PORT, PUBLIC_BASE_URL } from './shared.js';

export const API = {
  // The API process
  port: PORT,
  host: text('HOST', '127.0.0.1', 'interface the API binds to'),
  /** `PUBLIC_BASE_URL`, else `http://localhost:$PORT`. */
  publicBaseUrl: computed([PUBLIC_BASE_URL, PORT], (url, port) => url ?? localBaseUrl(port)),
  logLevel: choice('LOG_LEVEL', 'info', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], 'pino log level'),
  /** Channels without a custom domain live at `<slug>.<baseDomain>`; their URLs use `scheme` and `port`. */
  channelSites: {
    baseDomain: computed([text('CHANNEL_BASE_DOMAIN', 'creators.example.com', 'channel hosts are `<slug>.<domain>` unless the channel has a custom domain')], (domain) =>
      domain.toLowerCase(),
    ),
    scheme: choice('CHANNEL_URL_SCHEME', 'https', ['https', 'http'], "scheme of the channel sites' URLs: episode `url`s, citations, the pages' own links (`http` for a local run)"),
    customDomains: toggle(
      'CHANNEL_CUSTOM_DOMAINS',
      true,
      "`off`: every channel's host is `<slug>.$CHANNEL_BASE_DOMAIN` only, in its URLs and in the hosts served (a local run, a staging copy whose custom domains lead to production)",
    ),
    port: optionalInteger('CHANNEL_URL_PORT', 1, 65535, "port in the channel sites' URLs (a local run: the API's `PORT`)", "unset (the scheme's own)"),
  },
  /** Node's HTTP server timeouts: a client that sends its headers (or its request) too slowly gets a JSON 408. */
  http: {
    headersTimeoutMs: integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000, "a client's headers must arrive within this, else a JSON 408"),
    requestTimeoutMs: integer('HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000, 'a whole request must arrive within this, else a JSON 408'),
  },
} satisfies Schema;
