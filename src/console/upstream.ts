// The console as a client of an upstream OpenID Connect provider (openid-client): discovery, the authorization URL
// (code flow, PKCE S256, state and nonce), and the callback checked down to the ID token. It tells who the provider
// says signed in, as (issuer, subject); which account that is, if any, is the caller's business.
import { readFileSync } from 'node:fs';
import * as oidc from 'openid-client';
import type { Logger } from '../../core/ground/logger.js';
import type { AccountLink } from '../../core/store/accounts.js';
import type { UpstreamConfig } from '../../core/config/groups/upstream.js';
import { defineErrors, type ErrorCatalogue } from '../../core/ground/define-errors.js';

/** The path the provider sends people back to; `PUBLIC_BASE_URL` + this is the redirect URI to register there. */
export const UPSTREAM_CALLBACK = '/console/oidc/callback';

/** Only the `openid` scope: the subject is all the console reads, so it asks for no e-mail or profile claims. */
const SCOPE = 'openid';

/** How long an outside call to the provider may take (discovery, the token endpoint, its keys), in seconds. */
const TIMEOUT_SECONDS = 10;

/** A failed discovery is tried again after this long, not on every click. */
const RETRY_DISCOVERY_MS = 5_000;

/** What a flow keeps in the console session between the start and the callback: secrets that never leave the server. */
export interface FlowSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

const UPSTREAM_ERRORS = {
  unreachable: { message: 'the sign-in provider cannot be reached' },
  refused: { message: 'the sign-in provider refused the sign-in' },
  invalid: { message: 'the sign-in provider answered something unusable' },
} as const satisfies ErrorCatalogue;

/** Why an upstream sign-in did not tell who signed in: a sentence for the page, and whether to try later (503). */
export class UpstreamError extends defineErrors('UpstreamError', UPSTREAM_ERRORS).Error {}

export interface UpstreamProvider {
  /** The button's label ("Authentik"). */
  readonly name: string;
  /** The issuer as configured: links made through it carry it. */
  readonly issuer: string;
  /** The origins a console form may lead to (its CSP's form-action): the provider's authorization endpoint, once known. */
  formTargets(): string[];
  /** Discovers the provider now (a failure is logged, and tried again on use); never rejects. */
  ready(): Promise<void>;
  /** The URL to send the browser to, and what to keep for the callback. Throws an {@link UpstreamError} (`unreachable`). */
  begin(): Promise<{ url: URL; secrets: FlowSecrets }>;
  /**
   * The identity of a callback, `currentUrl` being the callback's URL as the browser opened it: state, `iss`, the code
   * exchanged with the PKCE verifier, the ID token's signature, issuer, audience, nonce and expiry all checked.
   */
  finish(currentUrl: URL, secrets: FlowSecrets): Promise<AccountLink>;
}

export interface UpstreamOptions {
  config: UpstreamConfig;
  publicBaseUrl: string;
  log: Logger;
}

/** The client secret from the configuration or its file; a file that cannot be read stops the start with its name. */
function clientSecretOf(config: UpstreamConfig): string {
  if ('value' in config.clientSecret) return config.clientSecret.value;
  let text: string;
  try {
    text = readFileSync(config.clientSecret.file, 'utf8').trim();
  } catch (error) {
    throw new Error(`CONSOLE_OIDC_CLIENT_SECRET_FILE: cannot read ${config.clientSecret.file}: ${(error as Error).message}`);
  }
  if (!text) throw new Error(`CONSOLE_OIDC_CLIENT_SECRET_FILE: ${config.clientSecret.file} is empty`);
  return text;
}

/**
 * The client authentication the provider's metadata allows: `client_secret_basic` (OpenID Connect's default, also when
 * the metadata lists none), else `client_secret_post`.
 */
function clientAuthFor(metadata: oidc.ServerMetadata, secret: string): oidc.ClientAuth {
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (!methods || methods.includes('client_secret_basic')) return oidc.ClientSecretBasic(secret);
  if (methods.includes('client_secret_post')) return oidc.ClientSecretPost(secret);
  throw new UpstreamError('invalid', `the provider accepts neither client_secret_basic nor client_secret_post (it lists ${methods.join(', ')})`);
}

/** Makes the console's client of `config`; discovery happens on first use (and at {@link UpstreamProvider.begin}). */
export function createUpstreamProvider({ config, publicBaseUrl, log }: UpstreamOptions): UpstreamProvider {
  const secret = clientSecretOf(config);
  const redirectUri = `${publicBaseUrl.replace(/\/+$/, '')}${UPSTREAM_CALLBACK}`;
  const insecure = new URL(config.issuer).protocol === 'http:';
  const execute = insecure ? [oidc.allowInsecureRequests] : [];
  const unreachable = `${config.name} cannot be reached right now, so signing in with it is not possible; try again in a moment, or sign in with your password.`;

  let discovered: Promise<oidc.Configuration> | undefined;
  let known: oidc.Configuration | undefined;
  let failedAt = 0;

  async function discover(): Promise<oidc.Configuration> {
    const found = await oidc.discovery(new URL(config.issuer), config.clientId, undefined, undefined, { execute, timeout: TIMEOUT_SECONDS });
    const metadata = found.serverMetadata();
    const client = new oidc.Configuration(metadata, config.clientId, { redirect_uris: [redirectUri], response_types: ['code'] }, clientAuthFor(metadata, secret));
    client.timeout = TIMEOUT_SECONDS;
    for (const run of execute) run(client);
    return client;
  }

  /** The provider's configuration, discovered once; a failure is a sentence, and is tried again a few seconds later. */
  function configuration(): Promise<oidc.Configuration> {
    if (!discovered && Date.now() - failedAt < RETRY_DISCOVERY_MS) return Promise.reject(new UpstreamError('unreachable', unreachable));
    discovered ??= discover().then(
      (client) => (known = client),
      (error: unknown) => {
        discovered = undefined;
        failedAt = Date.now();
        log.warn({ err: error, issuer: config.issuer }, 'the upstream OpenID Connect provider cannot be discovered');
        throw error instanceof UpstreamError ? error : new UpstreamError('unreachable', unreachable);
      },
    );
    return discovered;
  }

  return {
    name: config.name,
    issuer: config.issuer,

    formTargets() {
      const endpoint = known?.serverMetadata().authorization_endpoint;
      return [...new Set([new URL(config.issuer).origin, ...(endpoint ? [new URL(endpoint).origin] : [])])];
    },

    async ready() {
      await configuration().then(
        () => undefined,
        () => undefined,
      );
    },

    async begin() {
      const client = await configuration();
      const secrets: FlowSecrets = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
      const url = oidc.buildAuthorizationUrl(client, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        state: secrets.state,
        nonce: secrets.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url, secrets };
    },

    async finish(currentUrl, secrets) {
      const client = await configuration();
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(client, currentUrl, {
          pkceCodeVerifier: secrets.codeVerifier,
          expectedState: secrets.state,
          expectedNonce: secrets.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw callbackError(config.name, unreachable, error, log);
      }
      const claims = tokens.claims();
      if (!claims?.sub) throw new UpstreamError('invalid', `The answer from ${config.name} names nobody; start again.`);
      // openid-client has compared the ID token's `iss` with the discovered issuer, which discovery compared with ours.
      return { issuer: config.issuer, subject: claims.sub };
    },
  };
}

/** A failed callback as one sentence: the provider said no, it could not be reached, or its answer did not check out. */
function callbackError(name: string, unreachable: string, error: unknown, log: Logger): UpstreamError {
  if (error instanceof oidc.AuthorizationResponseError) {
    return new UpstreamError('refused', `${name} did not sign you in (${error.error}${error.error_description ? `: ${error.error_description}` : ''}).`);
  }
  const network = error instanceof TypeError || (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError'));
  log.info({ err: error }, network ? 'the upstream provider could not be reached at the callback' : 'an upstream sign-in answer was refused');
  if (network) return new UpstreamError('unreachable', unreachable);
  return new UpstreamError('invalid', `The answer from ${name} could not be verified, so it was refused. Start the sign-in again.`);
}
