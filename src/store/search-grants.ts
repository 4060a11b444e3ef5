// Which credential last searched which channel here, and the channel as last read: lets that credential's next search start beside its checks.
import type { ChannelDoc } from './documents.js';

/**
 * Credential → the slugs it was last let into here (key found and not revoked, member, paid
 * plan), at most `maxCredentials` credentials of `maxSlugs` slugs each, and each slug's
 * channel as last read by any credential let in, at most `maxChannels` of them (a channel
 * document carries its member list, so it is kept once, not once per credential); the
 * least recently granted go first. A grant only decides whether a search is sent before the
 * checks answer (see `startEarlySearch`); the checks still run at call time and decide, and
 * nothing is answered from a grant. A refused request takes its grant back, so a revoked key
 * or a removed member costs at most one search that is thrown away.
 */
export class SearchGrants {
  private readonly slugsByCredential = new Map<string, Set<string>>();
  private readonly channels = new Map<string, ChannelDoc>();

  constructor(
    private readonly maxCredentials = 10_000,
    private readonly maxSlugs = 64,
    private readonly maxChannels = 4_096,
  ) {}

  /** The channel `slug` named when last read, if `credential` was let into it. */
  get(credential: string, slug: string): ChannelDoc | undefined {
    return this.slugsByCredential.get(credential)?.has(slug) ? this.channels.get(slug) : undefined;
  }

  grant(credential: string, slug: string, channel: ChannelDoc): void {
    // Re-inserting moves an entry to the end, so the first key is always the least recently granted.
    const slugs = this.slugsByCredential.get(credential) ?? new Set<string>();
    this.slugsByCredential.delete(credential);
    this.slugsByCredential.set(credential, slugs);
    slugs.delete(slug);
    slugs.add(slug);
    if (slugs.size > this.maxSlugs) slugs.delete(slugs.values().next().value!);
    if (this.slugsByCredential.size > this.maxCredentials) this.slugsByCredential.delete(this.slugsByCredential.keys().next().value!);
    this.channels.delete(slug);
    this.channels.set(slug, channel);
    if (this.channels.size > this.maxChannels) this.channels.delete(this.channels.keys().next().value!);
  }

  /** Takes back one slug's grant, or every grant of the credential when `slug` is undefined. */
  revoke(credential: string, slug?: string): void {
    if (slug === undefined) this.slugsByCredential.delete(credential);
    else this.slugsByCredential.get(credential)?.delete(slug);
  }
}
