// The follower's error catalogue: what `npm run follow` refuses, keyed by stable codes, each a one-line message.
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../../core/ground/define-errors.js';

/** Every refusal of the follow commands; codes never change meaning. */
export const FOLLOW_ERRORS = {
  bad_source: { message: 'not an http(s) feed URL or a yt-dlp download folder' },
  bad_slug: { message: 'a channel slug is lowercase letters, digits and dashes, at most 63 characters' },
  unknown_owner: { message: 'no such user in the store' },
  not_paid: { message: 'following a feed needs an owner on the paid plan' },
  not_followed: { message: 'no followed source for this channel' },
  owner_mismatch: { message: 'the channel is already followed for another owner' },
  channel_taken: { message: 'the channel already exists with another owner' },
  first_poll_failed: { message: 'the source could not be read' },
  not_proven: { message: 'the feed does not prove that its owner asked for this follow' },
  feed_taken: { message: 'the feed is already followed by another owner' },
} as const satisfies ErrorCatalogue;

export type FollowErrorCode = ErrorCode<typeof FOLLOW_ERRORS>;

/** A refusal of a follow command: `message` is the one line the CLI prints, the code's, then `: <detail>`. */
export class FollowError extends defineErrors('FollowError', FOLLOW_ERRORS).Error {
  constructor(code: FollowErrorCode, detail?: string) {
    super(code, undefined, { detail });
  }
}
