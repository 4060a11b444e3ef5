// Sign-in and consent for the authorization server: who is signed in comes from the console (an injected host), consent is this module's page.
import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { Logger } from '../../core/ground/logger.js';
import type { GrantStore } from './grants.js';
import { redirectHost, redirectKind } from './native-clients.js';
import { consentPage, errorPage, PAGE_CSP } from './pages.js';
import { interactionPath } from './provider.js';

/** The signed-in user of a request, as the console knows it. */
export interface SignedInUser {
  userId: string;
  role: string;
}

/** What the console provides the authorization server: who is signed in, and where to sign in. */
export interface InteractionHost {
  signedInUser(req: Request): Promise<SignedInUser | undefined>;
  /** The sign-in page's path, which sends the user back to `next` (a same-origin path) once signed in. */
  signInPath(next: string): string;
}

/** The console's sign-in page; `signedInUser` is the console session's (src/app.ts wires it), nobody here. */
export const CONSOLE_SIGN_IN: InteractionHost = {
  signedInUser: async () => undefined,
  signInPath: (next) => `/console/sign-in?next=${encodeURIComponent(next)}`,
};

/**
 * The consent form's CSRF token: an HMAC of the interaction and the user under the first key. The interaction's uid
 * is bound to its cookie by oidc-provider (`interactionDetails` refuses another browser's), and the token binds the
 * form to the user it was shown to.
 */
function csrfToken(secret: string, uid: string, userId: string): string {
  return createHmac('sha256', secret).update(`consent\0${uid}\0${userId}`).digest('base64url');
}

function csrfValid(secrets: readonly string[], presented: unknown, uid: string, userId: string): boolean {
  if (typeof presented !== 'string') return false;
  const given = Buffer.from(presented);
  return secrets.some((secret) => {
    const expected = Buffer.from(csrfToken(secret, uid, userId));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);

/** An error of oidc-provider (it carries `status` and `error`) or ours, as a page. */
function sendError(res: Response, log: Logger, error: unknown): void {
  const known = error as { status?: number; error?: string; error_description?: string; message?: string };
  const status = typeof known.status === 'number' && known.status >= 400 && known.status < 500 ? known.status : 500;
  if (status === 500) log.error({ err: error }, 'oauth interaction failed');
  const description = status === 500 ? 'Something went wrong on our side.' : (known.error_description ?? known.message);
  res
    .status(status)
    .type('html')
    .send(errorPage({ error: known.error ?? 'server_error', description }));
}

export interface InteractionRoutesOptions {
  provider: Provider;
  host: InteractionHost;
  grants: GrantStore;
  /** Secrets of the CSRF tokens, the first signs (the cookie keys: they rotate with the signing keys). */
  csrfSecrets: readonly string[];
  log: Logger;
}

/** The routes of `/oauth/interaction/:uid`: GET shows the step (sign-in or consent), POST takes the consent answer. */
export function interactionRoutes({ provider, host, grants, csrfSecrets, log }: InteractionRoutesOptions): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  /** The interaction bound to this browser and this uid, and the console's user; answers the request itself when there is nothing to show. */
  async function step(req: Request, res: Response): Promise<{ details: Interaction; user: SignedInUser } | undefined> {
    const details = await provider.interactionDetails(req, res);
    const uid = String(req.params.uid);
    if (details.uid !== uid) {
      res
        .status(400)
        .type('html')
        .send(errorPage({ error: 'invalid_request', description: 'This sign-in page belongs to another request.' }));
      return undefined;
    }
    const user = await host.signedInUser(req);
    if (!user) {
      res.redirect(303, host.signInPath(interactionPath(uid)));
      return undefined;
    }
    // Sign-in is the console's: its user signs in here, and a change of user there starts the consent again for the new one.
    if (details.prompt.name === 'login' || details.session?.accountId !== user.userId) {
      await provider.interactionFinished(req, res, { login: { accountId: user.userId } }, { mergeWithLastSubmission: false });
      return undefined;
    }
    return { details, user };
  }

  router.get('/:uid', async (req, res) => {
    res.set('Content-Security-Policy', PAGE_CSP).set('Cache-Control', 'no-store');
    try {
      const current = await step(req, res);
      if (!current) return;
      const { details, user } = current;
      if (details.prompt.name !== 'consent') throw Object.assign(new Error(`unknown prompt ${details.prompt.name}`), { status: 500 });
      const client = await provider.Client.find(details.params.client_id);
      if (!client) throw Object.assign(new Error('The app is no longer registered.'), { status: 400, error: 'invalid_client' });
      const redirectUri = typeof details.params.redirect_uri === 'string' ? details.params.redirect_uri : (client.redirectUris[0] ?? '');
      const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
      const resources = Object.keys(missing).length > 0 ? Object.keys(missing) : asList(details.params.resource);
      const view = clientView(client);
      res.type('html').send(
        consentPage({
          ...view,
          redirectHost: redirectHost(redirectUri),
          redirectIsLocal: redirectKind(redirectUri) === 'loopback',
          scopes: [...new Set([...Object.values(missing).flat(), ...asList(details.params.scope?.split(' '))])].filter((s) => s !== ''),
          resources,
          userId: user.userId,
          action: interactionPath(details.uid),
          csrfToken: csrfToken(csrfSecrets[0]!, details.uid, user.userId),
        }),
      );
    } catch (error) {
      sendError(res, log, error);
    }
  });

  router.post('/:uid', form, async (req, res) => {
    res.set('Content-Security-Policy', PAGE_CSP).set('Cache-Control', 'no-store');
    try {
      const current = await step(req, res);
      if (!current) return;
      const { details, user } = current;
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!csrfValid(csrfSecrets, body.csrf, details.uid, user.userId)) {
        res
          .status(403)
          .type('html')
          .send(errorPage({ error: 'csrf_failed', description: 'This form was not sent from its consent page, or that page has expired. Start the sign-in again from the app.' }));
        return;
      }
      if (body.decision !== 'allow') {
        await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user did not allow access.' }, { mergeWithLastSubmission: false });
        return;
      }
      const grantId = await saveGrant(provider, details, user.userId);
      const client = await provider.Client.find(details.params.client_id);
      if (client) {
        const view = clientView(client);
        await grants.rememberClient(grantId, {
          clientName: view.clientName,
          verified: view.clientKind === 'metadata-document',
          redirectHosts: [...new Set(client.redirectUris.map(redirectHost))],
        });
      }
      log.info({ grantId, clientId: details.params.client_id, userId: user.userId }, 'oauth consent given');
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    } catch (error) {
      sendError(res, log, error);
    }
  });

  return router;
}

/** How the consent page and the console name a client. */
function clientView(client: { clientId: string; clientName?: string }): { clientName: string; clientKind: 'dynamic' | 'metadata-document'; clientHost?: string } {
  const documentUrl = client.clientId.startsWith('https://') ? URL.parse(client.clientId) : null;
  if (documentUrl) return { clientName: client.clientName ?? documentUrl.host, clientKind: 'metadata-document', clientHost: documentUrl.host };
  return { clientName: client.clientName ?? client.clientId, clientKind: 'dynamic' };
}

/** The grant of this consent: the interaction's existing one (a new scope asked later) or a new one, with what it asked for. */
async function saveGrant(provider: Provider, details: Interaction, accountId: string): Promise<string> {
  const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId, clientId: details.params.client_id });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  return grant.save();
}
