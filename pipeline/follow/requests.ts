// A follow asked for in the console: the API process holds no library folder, so it queues the request and the worker
// (which holds FOLLOW_LIBRARY_DIR) runs it (run-request.ts) with the same followSource as `npm run follow`, once the
// feed proves the claim (ownership.ts). The console reads the request's state and outcome from the queue: this module
// is all the API imports of it.
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** A follow the console asked for: the claim (user and feed) it must prove. */
export interface FollowRequestJob {
  userId: string;
  feedUrl: string;
}

/** What a follow request ended with, as the console shows it. */
export interface FollowRequestResult {
  slug: string;
  items: number;
  added: number;
  enqueued: number;
}

export const followRequestQueueName = (indexPrefix: string): string => `${indexPrefix}follow-requests`;

/** Requests are kept a day once done, for the console to show their outcome; none is retried (the creator asks again). */
export function createFollowRequestQueue(connection: Redis, indexPrefix: string): Queue<FollowRequestJob, FollowRequestResult> {
  return new Queue<FollowRequestJob, FollowRequestResult>(followRequestQueueName(indexPrefix), {
    connection,
    defaultJobOptions: { attempts: 1, removeOnComplete: { age: 86_400 }, removeOnFail: { age: 86_400 } },
  });
}

/** One job id per user and feed: asking twice while the first runs queues nothing more. */
export const followRequestId = ({ userId, feedUrl }: FollowRequestJob): string => `follow-${createHash('sha256').update(`${userId}\n${feedUrl}`).digest('hex').slice(0, 32)}`;

/** Queues the follow of `feedUrl` for `userId` (whose claim holds the slug and token); returns the request's id. */
export async function requestFollow(queue: Queue<FollowRequestJob, FollowRequestResult>, request: FollowRequestJob): Promise<string> {
  const jobId = followRequestId(request);
  const previous = await queue.getJob(jobId);
  // A finished request of the same feed makes room for a new try (the creator fixed the feed and asks again).
  if (previous && ((await previous.isCompleted()) || (await previous.isFailed()))) await previous.remove();
  await queue.add('follow', request, { jobId });
  return jobId;
}

/** A request as the console shows it. */
export type FollowRequestState = { state: 'waiting' | 'running' } | { state: 'done'; result: FollowRequestResult } | { state: 'refused'; reason: string } | { state: 'unknown' };

export async function followRequestState(queue: Queue<FollowRequestJob, FollowRequestResult>, request: FollowRequestJob): Promise<FollowRequestState> {
  const id = followRequestId(request);
  const job = await queue.getJob(id);
  if (!job) return { state: 'unknown' };
  const state = await job.getState();
  if (state !== 'completed' && state !== 'failed') return { state: state === 'active' ? 'running' : 'waiting' };
  // The job read above may predate its end (read while it ran, its outcome not in it yet): read the finished job again.
  const finished = (await queue.getJob(id)) ?? job;
  if (state === 'completed') return { state: 'done', result: finished.returnvalue };
  return { state: 'refused', reason: finished.failedReason || 'the follow failed' };
}
