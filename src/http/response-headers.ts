// Headers every response carries: no caching of keyed data, no sniffing, and deprecation notices when configured.
import type { RequestHandler } from 'express';
import type { Config } from '../../core/config/load.js';

/** RFC 9745 `Deprecation` value: a structured-field date, `@<unix seconds>`. */
export function deprecationHeaders(deprecation: NonNullable<Config['deprecation']>): Record<string, string> {
  const headers: Record<string, string> = { Deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}` };
  if (deprecation.sunsetAt) headers.Sunset = deprecation.sunsetAt.toUTCString();
  if (deprecation.successor) headers.Link = `<${deprecation.successor}>; rel="successor-version"`;
  return headers;
}

/**
 * `Cache-Control: private, no-store` on everything (decision 14: simpler and safer than
 * telling keyed from anonymous responses) and, when /api/v1 is deprecated, `Deprecation`,
 * `Sunset` and `Link` on its responses (the unversioned alias is v1 too).
 */
export function responseHeaders({ deprecation }: { deprecation: Config['deprecation'] }): RequestHandler {
  const versioned = deprecation ? Object.entries(deprecationHeaders(deprecation)) : [];
  return (req, res, next) => {
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (versioned.length > 0 && /^\/api\/v1(\/|$)/.test(req.path)) {
      for (const [name, value] of versioned) res.setHeader(name, value);
    }
    next();
  };
}
