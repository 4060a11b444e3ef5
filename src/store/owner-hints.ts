// Which user owned the channel behind a slug when last read: lets the owner's read travel with the channel's.
import { LRUCache } from 'lru-cache';

/**
 * Slug → owner id as the store last said, at most `max` slugs (the least recently read
 * go first). A hint only chooses which user document is read beside the channel search;
 * the channel read at call time decides, and a wrong or missing hint costs one more read
 * (see `channelAndOwner` in queries.ts). Nothing is ever answered from it.
 */
export class OwnerHints {
  private readonly owners: LRUCache<string, string>;

  constructor(max = 10_000) {
    this.owners = new LRUCache({ max });
  }

  get(slug: string): string | undefined {
    return this.owners.get(slug);
  }

  set(slug: string, ownerId: string): void {
    this.owners.set(slug, ownerId);
  }
}
