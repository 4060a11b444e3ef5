// Sign-in and linking through the upstream OpenID Connect provider: the start (a POST with the CSRF token), the
// callback, and the Account page's link and unlink. Present only when CONSOLE_OIDC_ISSUER is set (else these paths 404).
import { setTimeout as sleep } from 'node:timers/promises';
import { h } from 'preact';
import type { Request, RequestHandler, Response, Router } from 'express';
import { accountByLink, type AccountLink } from '../../../core/store/accounts.js';
import { accountStore, LinkRefusal, linkIdentity, unlinkIdentity } from '../identity.js';
import { postForm } from '../layout.js';
import { ConsolePageError, formValue, type ConsoleDeps, type SectionHandler } from '../section.js';
import { signIn, signedInUser } from '../session.js';
import { UPSTREAM_CALLBACK, UpstreamError, type FlowSecrets, type UpstreamProvider } from '../upstream.js';
import { CONSOLE_HOME, safeNext } from '../next.js';

/** A flow in progress, kept in the console session from the start to its callback (one at a time; a new start replaces it). */
interface UpstreamFlow extends FlowSecrets {
  mode: 'sign-in' | 'link';
  /** Where a sign-in goes afterwards (a same-origin path, {@link safeNext}). */
  next?: string | undefined;
  /** The account a link is for: the callback must come back to the same signed-in account. */
  userId?: string | undefined;
  startedAt: number;
}

declare module 'express-session' {
  interface SessionData {
    upstreamFlow?: UpstreamFlow;
  }
}

/** A flow not back within this long is over (the provider's own sign-in page has had plenty of time). */
export const FLOW_TTL_MS = 10 * 60_000;

export const UPSTREAM_START = '/console/oidc/start';
export const UPSTREAM_LINK = '/console/account/oidc/link';
export const UPSTREAM_UNLINK = '/console/account/oidc/unlink';

const save = (req: Request) => new Promise<void>((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));

/** The "Sign in with <name>" button of the sign-in page: a form, so that no other site can start a flow in a session. */
export function upstreamSignInButton(req: Request, upstream: UpstreamProvider | undefined, next: string | undefined) {
  if (!upstream) return null;
  return postForm(
    req,
    UPSTREAM_START,
    [next ? h('input', { type: 'hidden', name: 'next', value: next }) : null, h('button', { type: 'submit', class: 'secondary' }, `Sign in with ${upstream.name}`)],
    { class: 'upstream-sign-in' },
  );
}

/** The Account page's part: the links the account has (each with Unlink), and "Link <name>" when it has none of this provider. */
export function upstreamLinksPart(req: Request, upstream: UpstreamProvider | undefined, links: readonly AccountLink[]) {
  const linkButton =
    upstream && !links.some((l) => l.issuer === upstream.issuer)
      ? postForm(req, UPSTREAM_LINK, h('button', { type: 'submit' }, `Link ${upstream.name}`), { class: 'upstream-link' })
      : null;
  return [
    h('h2', null, 'Upstream sign-in links'),
    links.length === 0
      ? h(
          'p',
          null,
          upstream ? `None: this account signs in with its password only. Link ${upstream.name} to sign in with it too.` : 'None: this account signs in with its password only.',
        )
      : h(
          'ul',
          { class: 'upstream-links' },
          links.map((l) =>
            h(
              'li',
              null,
              upstream?.issuer === l.issuer ? `${upstream.name} ` : null,
              h('code', null, l.issuer),
              ' — subject ',
              h('code', null, l.subject),
              ' ',
              postForm(
                req,
                UPSTREAM_UNLINK,
                [
                  h('input', { type: 'hidden', name: 'issuer', value: l.issuer }),
                  h('input', { type: 'hidden', name: 'subject', value: l.subject }),
                  h('button', { type: 'submit', class: 'danger' }, 'Unlink…'),
                ],
                { class: 'inline', 'data-confirm': 'Unlink this identity? It will no longer sign in to this account.' },
              ),
            ),
          ),
        ),
    linkButton,
  ];
}

/** Starts a flow: its secrets in the session, then the browser to the provider. */
async function begin(req: Request, res: Response, upstream: UpstreamProvider, flow: Pick<UpstreamFlow, 'mode' | 'next' | 'userId'>): Promise<void> {
  let started: Awaited<ReturnType<UpstreamProvider['begin']>>;
  try {
    started = await upstream.begin();
  } catch (error) {
    throw pageError(error);
  }
  req.session.upstreamFlow = { ...flow, ...started.secrets, startedAt: Date.now() };
  await save(req);
  res.redirect(303, started.url.href);
}

function pageError(error: unknown): unknown {
  if (error instanceof UpstreamError)
    return new ConsolePageError(error.code === 'unreachable' ? 503 : 400, error.message, error.code === 'unreachable' ? { 'Retry-After': '30' } : {});
  return error;
}

const tooMany = (retryAfterSeconds: number) => {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new ConsolePageError(429, `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, { 'Retry-After': String(retryAfterSeconds) });
};

/** Adds the start and the callback (the paths outside the Account page). */
export function mountUpstreamEntry(router: Router, deps: ConsoleDeps): void {
  const upstream = deps.upstream;
  if (!upstream) return;
  const accounts = accountStore(deps.identity);
  const noAccount = `No account is linked to this ${upstream.name} identity. Sign in with your password and link it on the Account page, or ask an admin for an invite.`;

  router.post(UPSTREAM_START, async (req, res) => {
    const next = safeNext(formValue(req, 'next'));
    if (await signedInUser(req)) return res.redirect(303, next ?? CONSOLE_HOME);
    const verdict = await deps.throttle.checkAddress(req.ip ?? 'unknown');
    if (verdict.refused) throw tooMany(verdict.retryAfterSeconds);
    await begin(req, res, upstream, { mode: 'sign-in', next });
  });

  router.get(UPSTREAM_CALLBACK, async (req, res) => {
    const ip = req.ip ?? 'unknown';
    // Taken out of the session before anything else: a callback opened twice (a replay, a reload) finds no flow.
    const flow = req.session.upstreamFlow;
    if (flow) {
      delete req.session.upstreamFlow;
      await save(req);
    }
    const verdict = await deps.throttle.checkAddress(ip);
    if (verdict.refused) throw tooMany(verdict.retryAfterSeconds);
    if (verdict.delayMs > 0) await sleep(verdict.delayMs);
    const refuse = async (status: number, message: string, log: Record<string, unknown>) => {
      await deps.throttle.failedAddress(ip);
      req.log.info({ ...log, mode: flow?.mode }, 'console upstream sign-in refused');
      return new ConsolePageError(status, message);
    };
    if (!flow || Date.now() - flow.startedAt > FLOW_TTL_MS) {
      throw await refuse(400, `This ${upstream.name} sign-in was not started here, has been used already, or took too long. Start it again from the sign-in page.`, {
        reason: flow ? 'expired' : 'no_flow',
      });
    }
    // The URL the provider sent the browser to, on the public base URL (the redirect URI it was given).
    const currentUrl = new URL(`${deps.publicBaseUrl.replace(/\/+$/, '')}${UPSTREAM_CALLBACK}${req.originalUrl.slice(req.path.length)}`);
    let identity: AccountLink;
    try {
      identity = await upstream.finish(currentUrl, flow);
    } catch (error) {
      if (error instanceof UpstreamError && error.code !== 'unreachable') throw await refuse(error.code === 'refused' ? 403 : 400, error.message, { reason: error.code });
      throw pageError(error);
    }

    if (flow.mode === 'link') {
      const user = await signedInUser(req);
      if (!user || user.userId !== flow.userId)
        throw await refuse(403, 'You are no longer signed in as the account this link was started for. Sign in and start it again.', { reason: 'signed_out' });
      try {
        await linkIdentity(deps.identity, user.userId, identity);
      } catch (error) {
        if (error instanceof LinkRefusal) {
          req.log.info({ userId: user.userId, reason: error.code }, 'console upstream link refused');
          throw new ConsolePageError(409, error.message);
        }
        throw error;
      }
      req.log.info({ userId: user.userId, issuer: identity.issuer }, 'console upstream identity linked');
      return res.redirect(303, '/console/account?linked=1');
    }

    // The identity's account, by issuer and subject only: never an e-mail, never a new account or a role from claims.
    const account = await accountByLink(accounts, identity);
    if (!account) throw await refuse(403, noAccount, { reason: 'not_linked', issuer: identity.issuer });
    await signIn(req, account.userId);
    req.log.info({ userId: account.userId, issuer: identity.issuer }, 'console sign-in through the upstream provider');
    res.redirect(303, flow.next ?? CONSOLE_HOME);
  });
}

/** Adds the Account page's link and unlink (signed-in pages: `page` is the account section's wrapper). */
export function mountUpstreamLinks(router: Router, deps: ConsoleDeps, page: (handle: SectionHandler) => RequestHandler): void {
  const upstream = deps.upstream;
  if (upstream) {
    router.post(
      UPSTREAM_LINK,
      page(({ req, res, user }) => begin(req, res, upstream, { mode: 'link', userId: user.userId })),
    );
  }
  // Unlink works with the provider switched off too: an account may drop a link to a provider it no longer uses.
  router.post(
    UPSTREAM_UNLINK,
    page(async ({ req, res, user, render }) => {
      const link = { issuer: formValue(req, 'issuer'), subject: formValue(req, 'subject') };
      if (formValue(req, 'confirm') !== 'yes') {
        return render('Unlink an identity', [
          h('p', null, 'Unlink ', h('code', null, link.issuer), ' — subject ', h('code', null, link.subject), '? It will no longer sign in to this account.'),
          postForm(req, UPSTREAM_UNLINK, [
            h('input', { type: 'hidden', name: 'issuer', value: link.issuer }),
            h('input', { type: 'hidden', name: 'subject', value: link.subject }),
            h('input', { type: 'hidden', name: 'confirm', value: 'yes' }),
            h('button', { type: 'submit', class: 'danger' }, 'Unlink'),
            ' ',
            h('a', { href: '/console/account' }, 'Keep it'),
          ]),
        ]);
      }
      if (!(await unlinkIdentity(deps.identity, user.userId, link))) throw new ConsolePageError(404, 'This account has no such link.');
      req.log.info({ userId: user.userId, issuer: link.issuer }, 'console upstream identity unlinked');
      res.redirect(303, '/console/account?unlinked=1');
    }),
  );
}
