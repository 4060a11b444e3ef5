// Commander argument parsers shared by the ops scripts.
import { InvalidArgumentError } from 'commander';

/** Parses a whole number >= 1, or tells commander why not. */
export function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
