// Ingest jobs: what a library turns into, and the one function that runs a job (queue or direct).
import { createHash } from 'node:crypto';
import { bulkWrite, type BulkOp } from './bulk.js';
import { facetDocId, type FacetDoc } from '../core/store/documents.js';
import { channelDocument, facetDocuments, sourceHash, userDocument } from './documents.js';
import { createIndexError } from './errors.js';
import { countEpisodes, readEpisodes, readLibraryMeta, type FacetEntry, type LibraryIssue } from '../core/library/reader.js';
import { indexEpisode, removeEpisodesNotIn, type EpisodeResult, type IndexContext } from './load-episode.js';
import { deleteWhere } from './scroll.js';
import { checkChannel, checkCollection, checkEpisode, checkFacet, checkUser, type ChannelRecord, type EpisodeRecord, type UserRecord } from '../core/library/checks.js';

/** Users, channels and facet names of one library. */
export interface MetaJob {
  kind: 'meta';
  library: string;
  users: UserRecord[];
  channels: ChannelRecord[];
  facets: FacetEntry[];
}

/** One episode record, exactly as read (the payload is the record itself). */
export interface EpisodeJob {
  kind: 'episode';
  record: EpisodeRecord;
  /** Where it was read, for messages. */
  source?: { path: string; line?: number };
  /** Rewrite even when the stored version has the same sourceHash. */
  force?: boolean;
}

/** Removes the episodes of `channelIds` that the library no longer holds. */
export interface SyncJob {
  kind: 'sync';
  library: string;
  channelIds: string[];
  keepIds: string[];
}

export type IngestJob = MetaJob | EpisodeJob | SyncJob;

export type JobResult =
  ({ kind: 'episode' } & EpisodeResult) | { kind: 'meta'; users: number; channels: number; facets: number } | { kind: 'sync'; removedEpisodes: number; removedPassages: number };

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/**
 * Queue job id: the same content gives the same id, so enqueueing it again while it
 * waits is a no-op. BullMQ refuses `:` in ids, hence `-`.
 */
export function jobIdOf(job: IngestJob): string {
  switch (job.kind) {
    case 'episode':
      return `episode-${job.record.id}-${sourceHash(job.record).slice(0, 16)}${job.force ? '-force' : ''}`;
    case 'meta':
      return `meta-${digest([job.users, job.channels, job.facets])}`;
    case 'sync':
      return `sync-${digest([job.channelIds, job.keepIds])}`;
  }
}

/**
 * The jobs of a library, in the order they must be enqueued: users/channels/facets
 * first, then each valid episode (streamed, one record in memory at a time), then
 * the sync. Every skipped file or record goes to `onIssue`. When an episode file
 * could not even be identified, the sync is withheld (`onSyncWithheld`): deleting
 * "missing" episodes that are only unreadable would lose data.
 */
export async function* libraryJobs(
  dir: string,
  {
    onIssue,
    onSyncWithheld,
    onTotal,
  }: {
    onIssue: (issue: LibraryIssue) => void;
    onSyncWithheld?: (reason: string) => void;
    /** Called once with the number of episode records, before the first episode job. */
    onTotal?: (episodes: number) => void;
  },
): AsyncGenerator<IngestJob> {
  const meta = await readLibraryMeta(dir);
  meta.issues.forEach(onIssue);
  yield { kind: 'meta', library: dir, users: meta.users, channels: meta.channels, facets: meta.facets };
  onTotal?.(await countEpisodes(dir));

  const keep = new Set<string>();
  let unidentified = 0;
  const channelIds = new Set(meta.channels.map((c) => c.id));
  for await (const entry of readEpisodes(dir, {
    channelIds,
    onIssue: (issue) => {
      // A record that failed but has an id is still in the library: keep its stored version.
      if (issue.id) keep.add(issue.id);
      else unidentified++;
      onIssue(issue);
    },
  })) {
    keep.add(entry.record.id);
    yield {
      kind: 'episode',
      record: entry.record,
      source: { path: entry.path, ...(entry.line === undefined ? {} : { line: entry.line }) },
    };
  }
  if (unidentified > 0) {
    onSyncWithheld?.(`${unidentified} episode file(s) or line(s) could not be identified; nothing was removed`);
    return;
  }
  yield { kind: 'sync', library: dir, channelIds: [...channelIds].sort(), keepIds: [...keep].sort() };
}

function validated<T>(items: unknown[], check: (d: unknown) => { ok: true; value: T } | { ok: false; reason: string }, what: string): T[] {
  return items.map((item, i) => {
    const c = check(item);
    if (!c.ok) throw createIndexError('invalid_record', { message: `${what} ${i}: ${c.reason}` });
    return c.value;
  });
}

/**
 * Drops the facet documents a meta job no longer writes: those of the library's channels it did not write (a name gone
 * from the facet files), and the documents stored before decision 33 under the bare facet id with no channel, which
 * nothing reads any more. Run after the writes, so a page never misses a name that is still in the library.
 */
async function removeStaleFacets(
  ctx: Pick<IndexContext, 'client' | 'aliases' | 'log'>,
  { channelIds, kept, facetIds }: { channelIds: readonly string[]; kept: readonly FacetDoc[]; facetIds: readonly string[] },
): Promise<void> {
  const should: object[] = [];
  if (channelIds.length > 0) {
    should.push({ bool: { filter: [{ terms: { channelId: [...channelIds] } }], must_not: [{ ids: { values: kept.map((d) => facetDocId(d.channelId, d.id)) } }] } });
  }
  if (facetIds.length > 0) should.push({ bool: { filter: [{ ids: { values: [...new Set(facetIds)] } }], must_not: [{ exists: { field: 'channelId' } }] } });
  if (should.length === 0) return;
  const removed = await deleteWhere(ctx.client, ctx.aliases.facets, { bool: { should, minimum_should_match: 1 } }, { refreshFirst: false });
  if (removed > 0) ctx.log?.info({ removed, channelIds }, 'removed facet documents no longer in the library');
}

/**
 * Runs one job against the store: the worker and `--direct` both call this. A
 * payload that fails validation throws `invalid_record` (never retried).
 */
export async function runJob(ctx: IndexContext, job: IngestJob, { onEmbedded, force = false }: { onEmbedded?: (count: number) => void; force?: boolean } = {}): Promise<JobResult> {
  switch (job.kind) {
    case 'episode': {
      const checked = checkEpisode(job.record);
      if (!checked.ok) {
        const where = job.source ? ` (${job.source.path}${job.source.line ? `:${job.source.line}` : ''})` : '';
        throw createIndexError('invalid_record', { message: `episode ${String((job.record as { id?: unknown })?.id)}${where}: ${checked.reason}` });
      }
      return { kind: 'episode', ...(await indexEpisode(ctx, checked.value, { force: force || job.force === true, ...(onEmbedded ? { onEmbedded } : {}) })) };
    }
    case 'meta': {
      const users = validated(job.users, checkUser, 'user');
      const channels = validated(job.channels, checkChannel, 'channel');
      const channelIds = channels.map((c) => c.id);
      const facets = job.facets.map((f, i) => {
        const c = (f.kind === 'collection' ? checkCollection : checkFacet)(f.record);
        if (!c.ok) throw createIndexError('invalid_record', { message: `facet ${i}: ${c.reason}` });
        // A library names only its own channels: a facet of another one would rename that channel's (decision 33).
        const own = c.value.channelId;
        if (own != null && !channelIds.includes(own))
          throw createIndexError('invalid_record', { message: `facet ${i} (${c.value.id}): channel ${own} is not one of the library's` });
        return { kind: f.kind, record: c.value };
      });
      const facetDocs = facets.flatMap((f) => facetDocuments(f, channelIds));
      const { aliases } = ctx;
      const ops: BulkOp[] = [
        ...users.map((u): BulkOp => ({ op: 'index', index: aliases.users, id: u.id, doc: userDocument(u) })),
        ...channels.map((c): BulkOp => ({ op: 'index', index: aliases.channels, id: c.id, doc: channelDocument(c) })),
        ...facetDocs.map((doc): BulkOp => ({ op: 'index', index: aliases.facets, id: facetDocId(doc.channelId, doc.id), doc })),
      ];
      await bulkWrite(ctx.client, ops, { refresh: true });
      await removeStaleFacets(ctx, { channelIds, kept: facetDocs, facetIds: facets.map((f) => f.record.id) });
      return { kind: 'meta', users: users.length, channels: channels.length, facets: facets.length };
    }
    case 'sync': {
      const removed = await removeEpisodesNotIn(ctx, { channelIds: job.channelIds, keepIds: job.keepIds });
      return { kind: 'sync', removedEpisodes: removed.episodes, removedPassages: removed.passages };
    }
  }
}
