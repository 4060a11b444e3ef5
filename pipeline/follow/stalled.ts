// A processing job whose worker died goes back to wait (BullMQ's stalled check): its episode says `pending` (the
// API's `queued`) again until a worker runs it, instead of `processing` for as long as it waits.
import type { Queue } from 'bullmq';
import type { IndexContext } from '../../indexer/load-episode.js';
import { saveEpisode } from './library.js';
import { readEpisodeRecord } from '../../core/library/reader.js';
import type { ProcessJob } from './queues.js';
import { channelDir } from '../../core/library/layout.js';
import { readState, withChannelLock } from '../../core/library/follow-state.js';

/**
 * Writes `pending` over `processing` for the episode of stalled job `jobId`, unless a worker already runs it again or
 * its source version is no longer the one to process. Under the channel's lock, like every status write: a run that
 * starts meanwhile writes `processing` after this.
 */
export async function markStalledWaiting(
  { libraryDir, ctx }: { libraryDir: string; ctx: IndexContext },
  queue: Pick<Queue<ProcessJob>, 'getJob'>,
  jobId: string,
): Promise<boolean> {
  const job = await queue.getJob(jobId);
  if (!job) return false;
  const { slug, episodeId, digest } = job.data;
  return withChannelLock(libraryDir, slug, async () => {
    if ((await job.getState()) === 'active') return false;
    const source = (await readState(libraryDir, slug))?.items[episodeId];
    if (!source || source.digest !== digest || source.processed?.digest === digest) return false;
    const dir = channelDir(libraryDir, slug);
    const record = await readEpisodeRecord(dir, episodeId);
    if (record?.status !== 'processing') return false;
    await saveEpisode(dir, { ...record, status: 'pending' }, ctx);
    return true;
  });
}
