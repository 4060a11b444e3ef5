// How the settings with a shape of their own are read: trust proxy, replicas, secrets, service URLs, schedules.
import { createHash } from 'node:crypto';
import { ConfigError, checkedUrl, isAddressOrRange, isLoopbackHost } from './values.js';

/** The `trust proxy` values we accept; never `true`, which lets any client pick its own IP. */
export type TrustProxy = false | number | readonly string[];

export const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
export const MAX_PROXY_HOPS = 32;
export const MAX_REPLICAS = 32;

/**
 * Shortest `JWT_HS_SECRET`: HS256 is as strong as its key, and a short one falls to an
 * offline guess from any one token (RFC 7518 §3.2 asks for at least 256 bits).
 */
export const MIN_HS_SECRET_BYTES = 32;

/** Default size of the hydration cache: a library of the qmsum evaluation's size is served from memory once searched (sizes in the variable's description). */
export const DEFAULT_HYDRATION_CACHE_MB = 64;

export function readTrustProxy(raw: string, name: string): TrustProxy {
  if (raw === 'false') return false;
  if (raw === 'true') {
    throw new ConfigError(name, `"true" trusts any X-Forwarded-For, which every client can forge; give the number of proxies in front of the API (e.g. 1) or their addresses`);
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > MAX_PROXY_HOPS) throw new ConfigError(name, `expected a hop count 0..${MAX_PROXY_HOPS}, got ${hops}`);
    return hops === 0 ? false : hops;
  }
  const entries = raw.split(',').map((s) => s.trim());
  const bad = entries.find((e) => !TRUST_PROXY_NAMES.includes(e) && !isAddressOrRange(e));
  if (bad !== undefined) {
    throw new ConfigError(name, `expected false, a hop count, or a comma-separated list of IP addresses, CIDR ranges, ${TRUST_PROXY_NAMES.join(', ')}; "${bad}" is none of these`);
  }
  return entries;
}

/** A replica count (`1`), or an auto-expand range (`0-1`, `1-all`) that OpenSearch keeps in step with the node count. */
export function readReplicas(raw: string, name: string): number | string {
  if (/^\d+$/.test(raw) && Number(raw) <= MAX_REPLICAS) return Number(raw);
  const range = /^(\d+)-(\d+|all)$/.exec(raw);
  if (range && Number(range[1]) <= MAX_REPLICAS && (range[2] === 'all' || Number(range[1]) <= Number(range[2]))) return raw;
  throw new ConfigError(name, `expected a replica count 0..${MAX_REPLICAS} or an auto-expand range like 0-1 or 1-all, got "${raw}"`);
}

export function readHsSecret(raw: string | undefined, name: string): string | undefined {
  if (raw !== undefined && Buffer.byteLength(raw, 'utf8') < MIN_HS_SECRET_BYTES) {
    throw new ConfigError(name, `expected at least ${MIN_HS_SECRET_BYTES} bytes (a random 256-bit secret), got ${Buffer.byteLength(raw, 'utf8')}`);
  }
  return raw;
}

/** `BACKUP_EVERY`: an interval in ms (`every`) or a cron pattern, as a BullMQ Job Scheduler takes them. */
export function readBackupEvery(raw: string | undefined, name: string): { every: number } | { pattern: string } | undefined {
  if (raw === undefined || raw === 'off') return undefined;
  const interval = /^(\d+)(m|h|d)$/.exec(raw);
  if (interval) {
    const ms = Number(interval[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[interval[2] as 'm' | 'h' | 'd'];
    if (ms < 60_000) throw new ConfigError(name, `expected at least 1m, got "${raw}"`);
    return { every: ms };
  }
  if (/^[\d*,/-]+( [\d*,/-]+){4,5}$/.test(raw)) return { pattern: raw };
  throw new ConfigError(name, `expected an interval like 30m, 6h or 1d, a cron pattern like "0 3 * * *", or off; got "${raw}"`);
}

/** A key that seals webhook secrets at rest: its bytes in base64, and its id, stored beside every secret it seals. */
export interface SecretsKey {
  /** The first 8 hex digits of the key's SHA-256: names the key without revealing it. */
  id: string;
  base64: string;
}

/** `SECRETS_KEY` and `SECRETS_KEY_PREVIOUS`: 32 bytes, as 64 hex digits or base64 (the value itself never appears in a message). */
export function readSecretsKey(raw: string | undefined, name: string): SecretsKey | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (bytes?.length !== 32) {
    throw new ConfigError(name, `expected 32 random bytes as 64 hex digits or base64 (\`openssl rand -base64 32\`), got ${value.length} characters that are neither`);
  }
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), base64: bytes.toString('base64') };
}

export function readIndexPrefix(raw: string, name: string): string {
  if (!/^[a-z0-9][a-z0-9_.-]*$/.test(raw)) throw new ConfigError(name, `expected lowercase letters, digits, "-", "_" or ".", got "${raw}"`);
  return raw;
}

/** An http(s) service URL without credentials, query or fragment (a key goes in its own variable, never in a URL that logs print). */
export function readServiceUrl(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  const url = checkedUrl(raw, name, HTTP);
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw new ConfigError(name, `carries credentials; give the URL without them (a key has its own variable)`);
  if (parsed.search || parsed.hash) throw new ConfigError(name, `expected a base URL without query or fragment, got "${raw}"`);
  return url;
}

/** One service URL, or several comma-separated (each read as {@link readServiceUrl}, none twice). */
export function readServiceUrls(raw: string | undefined, name: string): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const urls = raw.split(',').map((entry) => {
    if (!entry.trim()) throw new ConfigError(name, `expected comma-separated URLs without empty entries, got "${raw}"`);
    return readServiceUrl(entry.trim(), name)!;
  });
  const repeated = urls.find((u, i) => urls.indexOf(u) !== i);
  if (repeated) throw new ConfigError(name, `lists ${repeated} twice`);
  return urls;
}

/** A Bearer key is sent over https, or plain http to this machine only: anywhere else it would cross the network in the clear. */
export function checkKeyTransport(key: string | undefined, url: string | undefined, name: string): string | undefined {
  if (key !== undefined && url !== undefined && new URL(url).protocol === 'http:' && !isLoopbackHost(new URL(url).hostname)) {
    throw new ConfigError(name, `would be sent in the clear to ${new URL(url).origin}; use an https URL (plain http only on loopback)`);
  }
  return key;
}

export const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export const HTTP = ['http:', 'https:'] as const;
