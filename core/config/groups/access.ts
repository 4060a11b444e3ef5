// Access: anonymous reads, rate limits, trust proxy, JWT and OAuth servers, the v1 deprecation.
import { choice, custom, integer, optionalText, readDate, readJwksSource } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { TRUST_PROXY_NAMES, MAX_PROXY_HOPS, MIN_HS_SECRET_BYTES, readTrustProxy, readHsSecret, list } from '../readers.js';

export const ACCESS = {
  // Access
  anonymousRead: choice('ANONYMOUS_READ', 'none', ['none', 'published'], '`published`: REST calls without a credential read published episodes'),
  rateLimit: {
    max: integer('RATE_LIMIT_MAX', 600, 1, 10_000_000, 'requests per credential (or per client IP without one) and window'),
    windowSeconds: integer('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400, 'the rate-limit window'),
  },
  failedKeyLookupsPerIp: integer(
    'FAILED_KEY_LOOKUPS_PER_IP',
    30,
    1,
    10_000_000,
    'unknown or revoked API keys one IP may present per window; past it its failing lookups are 429, valid keys still pass',
  ),
  /** Express `trust proxy`: `false` (the socket address is the client), a hop count, or the proxies' addresses and ranges. */
  trustProxy: custom(
    'TRUST_PROXY',
    { fallback: 'false', accepts: `\`false\`, a hop count 0–${MAX_PROXY_HOPS}, or IPs, CIDR ranges, ${TRUST_PROXY_NAMES.join(', ')}` },
    'Express `trust proxy`: which hops in front may name the client in `X-Forwarded-For` (`true` is refused: any client could forge its address)',
    readTrustProxy,
  ),
  jwt: {
    issuer: optionalText('JWT_ISSUER', 'required `iss` of OAuth access tokens (default: the one authorization server)'),
    audience: optionalText('JWT_AUDIENCE', 'required `aud` of OAuth access tokens (default: `PUBLIC_BASE_URL`)'),
    publicKeyFile: optionalText('JWT_PUBLIC_KEY_FILE', 'RS256/ES256 verification key, a PEM file', { accepts: 'file path' }),
    jwks: custom(
      'JWT_JWKS',
      { shown: 'unset', accepts: 'file path, https URL (http on loopback only)' },
      'verification keys as a JWKS file or URL, chosen by `kid`',
      readJwksSource,
    ),
    jwksMaxStaleSeconds: integer('JWT_JWKS_MAX_STALE_SECONDS', 3600, 0, 7 * 86_400, 'how long JWKS keys keep serving past their cache age while the JWKS URL cannot be fetched'),
    hsSecret: custom(
      'JWT_HS_SECRET',
      { shown: 'unset', accepts: `at least ${MIN_HS_SECRET_BYTES} bytes` },
      'development only: accept HS256 tokens signed with this secret (the API warns at start)',
      readHsSecret,
    ),
    clockSkewSeconds: integer('JWT_CLOCK_SKEW_SECONDS', 30, 0, 600, 'tolerance on `exp` and `nbf`'),
  },
  authorizationServers: custom(
    'OAUTH_AUTHORIZATION_SERVERS',
    { shown: 'empty', accepts: 'comma-separated URLs' },
    'authorization servers advertised in the RFC 9728 metadata document',
    (raw) => list(raw),
  ),
  /** Set when `API_V1_DEPRECATED_AT` is: /api/v1 then sends `Deprecation`, `Sunset` and `Link` headers. */
  deprecation: computed(
    [
      custom('API_V1_DEPRECATED_AT', { shown: 'unset', accepts: 'ISO 8601 date' }, 'marks `/api/v1` deprecated (`Deprecation` header)', readDate),
      custom('API_V1_SUNSET_AT', { shown: 'unset', accepts: 'ISO 8601 date' }, '`Sunset` header of a deprecated `/api/v1`', readDate),
      optionalText('API_V1_SUCCESSOR', '`Link: <…>; rel="successor-version"` of a deprecated `/api/v1`', { accepts: 'URL' }),
    ],
    (deprecatedAt, sunsetAt, successor) => (deprecatedAt ? { deprecatedAt, sunsetAt, successor } : undefined),
  ),
} satisfies Schema;
