// The follower's error catalogue: what `npm run follow` refuses, keyed by stable codes, each a one-line message.

/** Every refusal of the follow commands; codes never change meaning. */
export const FOLLOW_ERRORS = {
  bad_source: 'not an http(s) feed URL or a yt-dlp download folder',
  bad_slug: 'a channel slug is lowercase letters, digits and dashes, at most 63 characters',
  unknown_owner: 'no such user in the store',
  not_paid: 'following a feed needs an owner on the paid plan',
  not_followed: 'no followed source for this channel',
  owner_mismatch: 'the channel is already followed for another owner',
  channel_taken: 'the channel already exists with another owner',
  first_poll_failed: 'the source could not be read',
} as const;

export type FollowErrorCode = keyof typeof FOLLOW_ERRORS;

/** A refusal of a follow command: `message` is the one line the CLI prints. */
export class FollowError extends Error {
  readonly code: FollowErrorCode;
  constructor(code: FollowErrorCode, detail?: string) {
    super(detail ? `${FOLLOW_ERRORS[code]}: ${detail}` : FOLLOW_ERRORS[code]);
    this.name = 'FollowError';
    this.code = code;
  }
}
