// Which user owned the channel behind a slug when last read: lets the owner's read travel with the channel's.

/**
 * Slug → owner id as the store last said, at most `max` slugs (the least recently read
 * go first). A hint only chooses which user document is read beside the channel search;
 * the channel read at call time decides, and a wrong or missing hint costs one more read
 * (see `channelAndOwner` in queries.ts). Nothing is ever answered from it.
 */
export class OwnerHints {
  private readonly owners = new Map<string, string>();

  constructor(private readonly max = 10_000) {}

  get(slug: string): string | undefined {
    return this.owners.get(slug);
  }

  set(slug: string, ownerId: string): void {
    // Re-inserting moves the slug to the end, so the first key is always the least recently read.
    this.owners.delete(slug);
    this.owners.set(slug, ownerId);
    if (this.owners.size > this.max) this.owners.delete(this.owners.keys().next().value!);
  }
}
