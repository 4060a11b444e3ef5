// Which credential last searched which channel here, and the channel as read then: lets that credential's next search start beside its checks.
import type { ChannelDoc } from './documents.js';

/**
 * Credential → slug → the channel as read when that credential was last let into it
 * (key found and not revoked, member, paid plan), at most `maxCredentials` credentials of
 * `maxSlugs` slugs each, the least recently granted going first. A grant only decides
 * whether a search is sent before the checks answer (see `startEarlySearch`); the checks
 * still run at call time and decide, and nothing is answered from a grant. A refused
 * request takes its grant back, so a revoked key or a removed member costs at most one
 * search that is thrown away.
 */
export class SearchGrants {
  private readonly grants = new Map<string, Map<string, ChannelDoc>>();

  constructor(
    private readonly maxCredentials = 10_000,
    private readonly maxSlugs = 64,
  ) {}

  get(credential: string, slug: string): ChannelDoc | undefined {
    return this.grants.get(credential)?.get(slug);
  }

  grant(credential: string, slug: string, channel: ChannelDoc): void {
    // Re-inserting moves an entry to the end, so the first key is always the least recently granted.
    const slugs = this.grants.get(credential) ?? new Map<string, ChannelDoc>();
    this.grants.delete(credential);
    this.grants.set(credential, slugs);
    slugs.delete(slug);
    slugs.set(slug, channel);
    if (slugs.size > this.maxSlugs) slugs.delete(slugs.keys().next().value!);
    if (this.grants.size > this.maxCredentials) this.grants.delete(this.grants.keys().next().value!);
  }

  /** Takes back one slug's grant, or every grant of the credential when `slug` is undefined. */
  revoke(credential: string, slug?: string): void {
    if (slug === undefined) this.grants.delete(credential);
    else this.grants.get(credential)?.delete(slug);
  }
}
