// Sign-in to the console through an upstream OpenID Connect provider (Authentik, Keycloak, Pocket ID …): off unless its issuer is set.
import { ConfigError, isLoopbackHost, optionalText, type Setting } from '../values.js';
import { computed, type Schema } from '../tree.js';

/**
 * An issuer identifier, exactly as the provider names itself (a trailing slash kept: Authentik's issuers end in one, and
 * discovery compares the two byte for byte): https, or http on a loopback host only.
 */
export function readIssuer(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected an https URL, got "${raw}"`);
  }
  const loopback = isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new ConfigError(name, `expected an https URL (http only on loopback), got "${raw}"`);
  if (url.search || url.hash || url.username || url.password) throw new ConfigError(name, `an issuer has no query, fragment or credentials, got "${raw}"`);
  return raw;
}

const issuer: Setting<string | undefined> = {
  ...optionalText(
    'CONSOLE_OIDC_ISSUER',
    'an upstream OpenID Connect provider people may sign in to the console with, its issuer exactly as its discovery document names it (register the redirect URI `PUBLIC_BASE_URL/console/oidc/callback` there). Accounts are matched on issuer and subject only, never on an e-mail, and no account or role comes from it. Unset: no upstream sign-in',
    { shown: 'unset (off)', accepts: 'https URL (http only on loopback)' },
  ),
  read: (raw, as) => readIssuer(raw?.trim() || undefined, as),
};
const clientId = optionalText('CONSOLE_OIDC_CLIENT_ID', "the console's client id at the upstream provider (needed with `CONSOLE_OIDC_ISSUER`)");
const clientSecret = optionalText('CONSOLE_OIDC_CLIENT_SECRET', "the console's client secret at the upstream provider (or `CONSOLE_OIDC_CLIENT_SECRET_FILE`)");
const clientSecretFile = optionalText('CONSOLE_OIDC_CLIENT_SECRET_FILE', 'a file holding the client secret instead (read by the API at start)', { accepts: 'file path' });
const name = optionalText('CONSOLE_OIDC_NAME', 'what the sign-in button calls the provider ("Sign in with Authentik")', { shown: "the issuer's host name" });

/** The upstream provider as the console uses it. */
export interface UpstreamConfig {
  issuer: string;
  clientId: string;
  /** The secret itself, or the file that holds it (exactly one). */
  clientSecret: { value: string } | { file: string };
  /** The button's label. */
  name: string;
}

export const UPSTREAM = {
  /** Undefined while `CONSOLE_OIDC_ISSUER` is unset: the console has no upstream sign-in and nothing else changes. */
  upstream: computed([issuer, clientId, clientSecret, clientSecretFile, name], (issuerValue, id, secret, secretFile, label): UpstreamConfig | undefined => {
    if (issuerValue === undefined) return undefined;
    if (id === undefined) throw new ConfigError('CONSOLE_OIDC_CLIENT_ID', 'required when CONSOLE_OIDC_ISSUER is set');
    if (secret !== undefined && secretFile !== undefined) throw new ConfigError('CONSOLE_OIDC_CLIENT_SECRET', 'set it or CONSOLE_OIDC_CLIENT_SECRET_FILE, not both');
    if (secret === undefined && secretFile === undefined) {
      throw new ConfigError('CONSOLE_OIDC_CLIENT_SECRET', 'required when CONSOLE_OIDC_ISSUER is set (or CONSOLE_OIDC_CLIENT_SECRET_FILE)');
    }
    return {
      issuer: issuerValue,
      clientId: id,
      clientSecret: secret !== undefined ? { value: secret } : { file: secretFile! },
      name: label ?? new URL(issuerValue).hostname,
    };
  }),
} satisfies Schema;
