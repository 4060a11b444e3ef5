// The demo's SECRETS_KEY: 32 random bytes made once into `.cache/secrets-key` (mode 0600) and reused by every demo run,
// so webhook secrets sealed during one run still open in the next. Lose the file and those secrets are lost with it.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../core/config/load.js';

/** Where the demo keeps its key. */
export const demoSecretsKeyFile = (cacheDir: string): string => path.join(cacheDir, 'secrets-key');

/**
 * The demo's key (base64) and whether it was made now: read from `.cache/secrets-key`, or made there with mode 0600
 * (`wx`: two demos starting at once cannot each write their own). A file readable by others is narrowed to 0600; one
 * that does not hold a key is refused (SECRETS_KEY's own message), never overwritten: secrets may be sealed under it.
 */
export async function ensureDemoSecretsKey(cacheDir: string): Promise<{ key: string; file: string; made: boolean }> {
  const file = demoSecretsKeyFile(cacheDir);
  await mkdir(cacheDir, { recursive: true });
  let made = false;
  try {
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    made = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  }
  const key = (await readFile(file, 'utf8')).trim();
  loadConfig({ SECRETS_KEY: key }); // throws a ConfigError naming SECRETS_KEY when the file holds no key
  return { key, file, made };
}
