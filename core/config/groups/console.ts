// The creator console: one-time links, sessions and the sign-in throttle.
import { integer } from '../values.js';
import { type Schema } from '../tree.js';

export const CONSOLE = {
  console: {
    linkTtlHours: integer('CONSOLE_LINK_TTL_HOURS', 24, 1, 720, 'how long a one-time console link (an invite or a password reset) stays usable'),
    sessionIdleHours: integer('CONSOLE_SESSION_IDLE_HOURS', 12, 1, 720, 'a console session unused this long is signed out (each request renews it)'),
    sessionMaxDays: integer('CONSOLE_SESSION_MAX_DAYS', 7, 1, 365, 'a console session ends this long after sign-in, however active'),
    signIn: {
      freeFailures: integer(
        'CONSOLE_SIGNIN_FREE_FAILURES',
        3,
        0,
        100,
        'failed console sign-ins of one account before each further attempt waits longer (from one address: half of CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS)',
      ),
      maxFailures: integer('CONSOLE_SIGNIN_MAX_FAILURES', 10, 1, 1000, 'failed console sign-ins of one account in the window before attempts are refused (429)'),
      maxFailuresPerAddress: integer(
        'CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS',
        50,
        1,
        100_000,
        'failed console sign-ins from one client address in the window before its attempts are refused (429)',
      ),
      windowSeconds: integer('CONSOLE_SIGNIN_WINDOW_SECONDS', 900, 10, 86_400, 'how long failed console sign-ins are counted'),
    },
  },
} satisfies Schema;
