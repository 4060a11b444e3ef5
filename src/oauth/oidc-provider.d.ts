// The part of oidc-provider's API this project uses (the package ships no types): the server in src/oauth/ and the test issuer in test/support/oidc-server.ts.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** An interaction's state, as `interactionDetails` reads it (bound to its cookie). */
  export interface Interaction {
    uid: string;
    returnTo: string;
    prompt: { name: 'login' | 'consent' | string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id: string; redirect_uri?: string; scope?: string; resource?: string | string[] };
    session?: { accountId?: string; uid?: string } | undefined;
    grantId?: string | undefined;
    lastSubmission?: Record<string, unknown> | undefined;
  }

  export interface Grant {
    jti?: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface Client {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    applicationType?: string;
    clientAuthMethod?: string;
    grantTypeAllowed(grant: string): boolean;
  }

  /** An OpenID Provider / OAuth authorization server; see its documentation for `configuration`. */
  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Grant: { new (properties: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    Client: { find(id: string): Promise<Client | undefined> };
  }

  export const errors: Record<string, new (description?: string, detail?: string) => Error & { status: number; error: string }>;

  export const interactionPolicy: {
    base(): Iterable<{ name: string; checks: { add(check: unknown): void } }> & { get(name: string): { checks: { add(check: unknown): void } } };
    Check: {
      new (reason: string, description: string, check: (ctx: { oidc: { result?: Record<string, unknown> } }) => boolean | Promise<boolean>): unknown;
      REQUEST_PROMPT: true;
      NO_NEED_TO_PROMPT: false;
    };
  };
}
