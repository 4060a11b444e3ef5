// Console passwords: argon2id with OWASP's parameters, and the few rules a new password must meet.
import { argon2id, hash, verify } from 'argon2';

/** OWASP Password Storage Cheat Sheet: argon2id, m = 19 MiB, t = 2, p = 1. */
export const PASSWORD_HASHING = { type: argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

/** Bounds of a new password: long enough to resist guessing, short enough that hashing it costs no more than usual. */
export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_CHARS = 256;

/** The argon2id hash (PHC string) of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASHING);
}

/** A hash of nothing anyone knows: verified against when an account has no password, so that both cost the same time. */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; a missing or malformed hash never matches, after the same work as a real one. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, confirmation: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_CHARS) return `Choose a password of at least ${PASSWORD_MIN_CHARS} characters.`;
  if ([...password].length > PASSWORD_MAX_CHARS) return `Choose a password of at most ${PASSWORD_MAX_CHARS} characters.`;
  if (password !== confirmation) return 'The two passwords differ; type the same one twice.';
  return undefined;
}
