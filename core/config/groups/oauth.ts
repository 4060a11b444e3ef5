// The built-in authorization server (decision 30): its signing keys, token lifetimes, registration limits and client ID metadata documents.
import { integer, optionalText, toggle, custom } from '../values.js';
import { type Schema } from '../tree.js';
import { list } from '../readers.js';

export const OAUTH = {
  /** Off (its routes absent) while `keysFile` is unset; everything else works without it. */
  oauth: {
    keysFile: optionalText(
      'OAUTH_SIGNING_KEYS_FILE',
      "the authorization server's private signing keys, a JWKS file (`npm run oauth-keys -- rotate <file>` makes it): the first key signs, the others still verify; the same file on every API process. Unset: no authorization server",
      { accepts: 'file path' },
    ),
    accessTokenTtlSeconds: integer('OAUTH_ACCESS_TOKEN_TTL_SECONDS', 600, 5, 86_400, 'lifetime of an access token it issues'),
    refreshTokenTtlSeconds: integer('OAUTH_REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 60, 365 * 86_400, 'lifetime of a refresh token (each refresh rotates it and starts a new one)'),
    grantTtlSeconds: integer('OAUTH_GRANT_TTL_SECONDS', 90 * 86_400, 60, 3 * 365 * 86_400, "how long a user's consent to an app (a grant) lasts before they are asked again"),
    clientIdleDays: integer('OAUTH_CLIENT_IDLE_DAYS', 30, 1, 3650, 'a dynamically registered client unused this long is deleted (each use starts the count again)'),
    registration: {
      rateLimitMax: integer('OAUTH_REGISTRATION_RATE_LIMIT_MAX', 20, 1, 100_000, 'dynamic client registrations one IP may make per window'),
      rateLimitWindowSeconds: integer('OAUTH_REGISTRATION_RATE_LIMIT_WINDOW_SECONDS', 3600, 1, 86_400, 'the registration rate-limit window'),
    },
    clientIdMetadataDocuments: toggle(
      'OAUTH_CLIENT_ID_METADATA_DOCUMENTS',
      true,
      'clients identified by an https URL whose metadata document the server fetches (through the safe fetcher)',
    ),
    clientIdMetadataHosts: custom(
      'OAUTH_CLIENT_ID_METADATA_HOSTS',
      { shown: 'empty (any public https host)', accepts: 'comma-separated host names' },
      'when set, only client ID metadata documents on these hosts are fetched',
      (raw) => list(raw).map((host) => host.toLowerCase()),
    ),
  },
} satisfies Schema;
