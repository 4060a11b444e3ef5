// What a console section is (one module per section, under pages/): its place in the navigation, who may open it, and
// its routes. A section added later (follow a feed, episodes, webhooks, connected apps) is one more module in SECTIONS.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ComponentChildren } from 'preact';
import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ground/logger.js';
import type { AccountRole } from '../../core/store/accounts.js';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import type { Queue } from 'bullmq';
import type { KeyStoreDeps } from '../auth/key-store.js';
import type { FollowRequestJob, FollowRequestResult } from '../../pipeline/follow/requests.js';
import type { Keyring } from '../../pipeline/webhooks/sealed.js';
import type { Queries } from '../store/queries.js';
import type { IdentityDeps } from './identity.js';
import { renderConsolePage, type NavEntry } from './layout.js';
import { signedInUser, type SignedInUser } from './session.js';
import type { SignInThrottle } from './throttle.js';
import type { UpstreamProvider } from './upstream.js';

/** What the console's sections are given: the same stores and functions the operator CLIs use. */
export interface ConsoleDeps {
  client: Client;
  aliases: IndexAliases;
  redis: Redis;
  log: Logger;
  publicBaseUrl: string;
  identity: IdentityDeps;
  keys: KeyStoreDeps;
  throttle: SignInThrottle;
  /** The API's own store reads (users, channels), fresh for each request. */
  queries(): Queries;
  /** The deployment's index prefix (follow claims, the webhooks' journal and the follow requests' queue carry it). */
  indexPrefix: string;
  /** The pipeline's outbound rules, for what the console fetches itself: a feed's preview, a webhook's test event. */
  outbound: { allowPrivate: boolean; userAgent: string };
  /** SECRETS_KEY (and SECRETS_KEY_PREVIOUS): undefined when unset, and then webhooks cannot be added here. */
  keyring: Keyring | undefined;
  /** The queue the worker takes console follows from (made on first use, on the process's Redis connection). */
  followRequests(): Queue<FollowRequestJob, FollowRequestResult>;
  /** The upstream OpenID Connect provider (CONSOLE_OIDC_ISSUER); undefined: no upstream sign-in. */
  upstream?: UpstreamProvider | undefined;
}

export interface ConsoleSection {
  /** Its entry page, under /console (`/console/keys`); its other routes live under it. */
  path: string;
  /** Its name in the navigation. */
  label: string;
  /** Who may open it (others get a 404: a creator does not learn what an admin page holds). */
  roles: readonly AccountRole[];
  /**
   * Adds its routes. `page` wraps a handler of the section (see {@link sectionPage}): it runs only for a signed-in
   * account of the section's roles, and renders within the console's frame.
   */
  mount(router: Router, deps: ConsoleDeps, page: (handle: SectionHandler) => RequestHandler): void;
}

/** A console page answered with a status other than 200 and a sentence (rendered as a page by the router). */
export class ConsolePageError extends Error {
  override name = 'ConsolePageError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The navigation an account sees: the sections its role may open. */
export function navFor(sections: readonly ConsoleSection[], user: SignedInUser): NavEntry[] {
  return sections.filter((s) => s.roles.includes(user.role)).map((s) => ({ href: s.path, label: s.label }));
}

/** A request of a signed-in account, with what its page needs. */
export interface SectionRequest {
  req: Request;
  res: Response;
  user: SignedInUser;
  /** Renders the page of this section around `main`, with `status` (default 200). */
  render(title: string, main: ComponentChildren, status?: number): void;
}

/** Where sign-in sends back to afterwards: this request's path (a GET), else the section's page. */
function returnPath(req: Request, section: ConsoleSection): string {
  return req.method === 'GET' ? req.originalUrl : section.path;
}

/**
 * A handler of `section` for signed-in accounts of its roles: anyone else is sent to sign in (303, back here afterwards)
 * or, signed in with another role, answered 404.
 */
export type SectionHandler = (ctx: SectionRequest) => Promise<void> | void;

export function sectionPage(sections: readonly ConsoleSection[], section: ConsoleSection, handle: SectionHandler): RequestHandler {
  return async (req, res) => {
    const user = await signedInUser(req);
    if (!user) return res.redirect(303, `/console/sign-in?next=${encodeURIComponent(returnPath(req, section))}`);
    if (!section.roles.includes(user.role)) throw new ConsolePageError(404, 'There is no such page in the console.');
    const render = (title: string, main: ComponentChildren, status = 200) => {
      res
        .status(status)
        .type('html')
        .send(renderConsolePage(req, { title, user, nav: navFor(sections, user), current: section.path }, main));
    };
    await handle({ req, res, user, render });
  };
}

/** A form field's value as a trimmed string ('' when absent or not a string). */
export function formValue(req: Request, name: string): string {
  const body = req.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A form field's value exactly as sent (passwords are not trimmed). */
export function rawFormValue(req: Request, name: string): string {
  const body = req.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value : '';
}
