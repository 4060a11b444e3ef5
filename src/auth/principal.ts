// Who is calling: the one shape every credential resolves to.

/** An authenticated caller (key or token: same membership and plan rules) or an anonymous reader. */
export type Principal = { kind: 'api_key'; userId: string; keyId: string } | { kind: 'oauth'; userId: string; grantId?: string | undefined } | { kind: 'anonymous'; userId: null };

/** The rate-limit bucket of a principal: per key, per token subject; anonymous callers are bucketed by IP elsewhere. */
export function principalBucket(principal: Principal): string | undefined {
  switch (principal.kind) {
    case 'api_key':
      return `key:${principal.keyId}`;
    case 'oauth':
      return `sub:${principal.userId}`;
    case 'anonymous':
      return undefined;
  }
}
