// Which credential last searched which channel here, and the channel as last read: lets that credential's next search start beside its checks.
import { LRUCache } from 'lru-cache';
import type { ChannelDoc } from '../../core/store/documents.js';

/**
 * Credential → the slugs it was last let into here (key found and not revoked, member, paid
 * plan), at most `maxCredentials` credentials of `maxSlugs` slugs each, and each slug's
 * channel as last read by any credential let in, at most `maxChannels` of them (a channel
 * document carries its member list, so it is kept once, not once per credential); the
 * least recently granted go first. A grant only decides whether a search is sent before the
 * checks answer (see `src/serve/search-service.ts`); the checks still run at call time and decide, and
 * nothing is answered from a grant. A refused request takes its grant back, so a revoked key
 * or a removed member costs at most one search that is thrown away.
 */
export class SearchGrants {
  private readonly slugsByCredential: LRUCache<string, LRUCache<string, true>>;
  private readonly channels: LRUCache<string, ChannelDoc>;

  constructor(
    maxCredentials = 10_000,
    private readonly maxSlugs = 64,
    maxChannels = 4_096,
  ) {
    this.slugsByCredential = new LRUCache({ max: maxCredentials });
    this.channels = new LRUCache({ max: maxChannels });
  }

  /** The channel `slug` named when last read, if `credential` was let into it. */
  get(credential: string, slug: string): ChannelDoc | undefined {
    // Peeks: only a grant moves an entry up, as a read by the channel itself would not.
    return this.slugsByCredential.peek(credential)?.has(slug) ? this.channels.peek(slug) : undefined;
  }

  grant(credential: string, slug: string, channel: ChannelDoc): void {
    let slugs = this.slugsByCredential.get(credential);
    if (!slugs) {
      slugs = new LRUCache({ max: this.maxSlugs });
      this.slugsByCredential.set(credential, slugs);
    }
    slugs.set(slug, true);
    this.channels.set(slug, channel);
  }

  /** Takes back one slug's grant, or every grant of the credential when `slug` is undefined. */
  revoke(credential: string, slug?: string): void {
    if (slug === undefined) this.slugsByCredential.delete(credential);
    else this.slugsByCredential.peek(credential)?.delete(slug);
  }
}
