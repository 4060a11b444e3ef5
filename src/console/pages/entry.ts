// The ways in and out: sign-in (throttled per account and address), sign-out, and the one-time link that sets a password.
import { setTimeout as sleep } from 'node:timers/promises';
import { h } from 'preact';
import type { Request, Response, Router } from 'express';
import { getAccount, setPasswordHash } from '../../../core/store/accounts.js';
import { accountStore } from '../identity.js';
import { field, notice, postForm, renderConsolePage } from '../layout.js';
import { consumeLink, peekLink } from '../links.js';
import { hashPassword, passwordProblem, verifyPassword } from '../passwords.js';
import { ConsolePageError, formValue, rawFormValue, type ConsoleDeps } from '../section.js';
import { signIn, signOut, signedInUser } from '../session.js';
import { newPasswordInputs } from './account.js';
import { upstreamSignInButton } from './upstream.js';
import { CONSOLE_HOME, safeNext } from '../next.js';

export { CONSOLE_HOME, safeNext };

function page(req: Request, res: Response, title: string, main: Parameters<typeof renderConsolePage>[2], status = 200): void {
  res
    .status(status)
    .type('html')
    .send(renderConsolePage(req, { title }, main));
}

function signInForm(
  req: Request,
  res: Response,
  deps: ConsoleDeps,
  { next, userId = '', problem, status = 200 }: { next?: string | undefined; userId?: string; problem?: string; status?: number },
): void {
  page(
    req,
    res,
    'Sign in',
    [
      problem ? notice('error', problem) : null,
      postForm(req, '/console/sign-in', [
        next ? h('input', { type: 'hidden', name: 'next', value: next }) : null,
        field('userId', 'User id', { type: 'text', required: true, value: userId, autocomplete: 'username', autocapitalize: 'none', spellcheck: false }),
        field('password', 'Password', { type: 'password', required: true, autocomplete: 'current-password' }),
        h('button', { type: 'submit' }, 'Sign in'),
      ]),
      upstreamSignInButton(req, deps.upstream, next),
      h('p', { class: 'hint' }, 'No account? Accounts are by invitation: ask your admin for a one-time link.'),
    ],
    status,
  );
}

const GONE = 'This link has been used or has expired. Ask your admin for a new one-time link.';

function linkForm(req: Request, res: Response, { token, userId, problem, status = 200 }: { token: string; userId: string; problem?: string; status?: number }): void {
  page(
    req,
    res,
    'Set your password',
    [
      problem ? notice('error', problem) : null,
      h('p', null, `Choose the password of ${userId}. This link works once: after this form, sign in with your user id and this password.`),
      postForm(req, `/console/link/${token}`, [...newPasswordInputs(), h('button', { type: 'submit' }, 'Set password and sign in')]),
    ],
    status,
  );
}

/** Adds the sign-in, sign-out and one-time link routes. */
export function mountEntry(router: Router, deps: ConsoleDeps): void {
  const accounts = accountStore(deps.identity);

  router.get('/console/sign-in', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await signedInUser(req)) return res.redirect(303, next ?? CONSOLE_HOME);
    signInForm(req, res, deps, { next });
  });

  router.post('/console/sign-in', async (req, res) => {
    const next = safeNext(formValue(req, 'next'));
    const userId = formValue(req, 'userId');
    const password = rawFormValue(req, 'password');
    if (!userId || !password || userId.length > 200) return signInForm(req, res, deps, { next, userId, problem: 'Give your user id and your password.', status: 400 });
    const ip = req.ip ?? 'unknown';
    const verdict = await deps.throttle.check(userId, ip);
    if (verdict.refused) {
      const minutes = Math.ceil(verdict.retryAfterSeconds / 60);
      throw new ConsolePageError(429, `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, { 'Retry-After': String(verdict.retryAfterSeconds) });
    }
    if (verdict.delayMs > 0) await sleep(verdict.delayMs);
    const account = await getAccount(accounts, userId);
    if (!(await verifyPassword(account?.passwordHash, password))) {
      await deps.throttle.failed(userId, ip);
      req.log.info({ userId }, 'console sign-in refused');
      return signInForm(req, res, deps, { next, userId, problem: 'That user id and password do not match an account.', status: 401 });
    }
    await deps.throttle.succeeded(userId);
    await signIn(req, userId);
    req.log.info({ userId }, 'console sign-in');
    res.redirect(303, next ?? CONSOLE_HOME);
  });

  router.post('/console/sign-out', async (req, res) => {
    await signOut(req, res);
    res.redirect(303, '/console/sign-in');
  });

  // A GET only shows the form: a link scanner (a mail or chat preview) that opens the link does not use it up.
  router.get('/console/link/:token', async (req, res) => {
    const token = String(req.params.token);
    const grant = await peekLink(deps.identity.links, token);
    if (!grant) throw new ConsolePageError(410, GONE);
    linkForm(req, res, { token, userId: grant.userId });
  });

  router.post('/console/link/:token', async (req, res) => {
    const token = String(req.params.token);
    const password = rawFormValue(req, 'password');
    const problem = passwordProblem(password, rawFormValue(req, 'confirmation'));
    if (problem) {
      const grant = await peekLink(deps.identity.links, token);
      if (!grant) throw new ConsolePageError(410, GONE);
      return linkForm(req, res, { token, userId: grant.userId, problem, status: 400 });
    }
    // Hashed before the link is used up, so that a slow hash never leaves a used link and no password.
    const hashed = await hashPassword(password);
    const grant = await consumeLink(deps.identity.links, token);
    if (!grant || !(await getAccount(accounts, grant.userId))) throw new ConsolePageError(410, GONE);
    await setPasswordHash(accounts, grant.userId, hashed);
    await signIn(req, grant.userId);
    req.log.info({ userId: grant.userId, purpose: grant.purpose }, 'console password set with a one-time link');
    res.redirect(303, CONSOLE_HOME);
  });
}
