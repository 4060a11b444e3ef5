// How one environment variable's text becomes a value: the kinds the schema declares, each with the error that names the variable.
import { isIP } from 'node:net';

/** A bad environment variable: the message names it and says what it should be. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/**
 * One environment variable as the schema declares it: its name, what it sets, its default and
 * accepted values as the documentation shows them, and how its text is read (blank counts as unset).
 */
export interface Setting<T> {
  name: string;
  description: string;
  /** The default as documented: a value in backticks, or a phrase ("unset"). */
  shown: string;
  /** The accepted values as documented. */
  accepts: string;
  /** Former names, read when `name` is unset, until they are removed. */
  aliases?: readonly string[];
  /** `raw` is the variable's text, or undefined when unset; `name` is the variable it came from, for errors. */
  read(raw: string | undefined, name: string): T;
}

const present = (raw: string | undefined): string | undefined => (raw === undefined || raw.trim() === '' ? undefined : raw.trim());
const code = (value: unknown) => `\`${String(value)}\``;

function parseInt10(raw: string, name: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `expected ${min}..${max}, got ${n}`);
  return n;
}

/** An integer in `min..max`. */
export function integer(name: string, fallback: number, min: number, max: number, description: string): Setting<number> {
  return {
    name,
    description,
    shown: code(fallback),
    accepts: `integer ${min}–${max}`,
    read: (raw, as) => (present(raw) === undefined ? fallback : parseInt10(present(raw)!, as, min, max)),
  };
}

/** An integer in `min..max`, or unset. */
export function optionalInteger(name: string, min: number, max: number, description: string, shown = 'unset'): Setting<number | undefined> {
  return {
    name,
    description,
    shown,
    accepts: `integer ${min}–${max}`,
    read: (raw, as) => (present(raw) === undefined ? undefined : parseInt10(present(raw)!, as, min, max)),
  };
}

/** A finite number ≥ `min`. */
export function decimal(name: string, fallback: number, min: number, description: string): Setting<number> {
  return {
    name,
    description,
    shown: code(fallback),
    accepts: `number ≥ ${min}`,
    read(raw, as) {
      const v = present(raw);
      if (v === undefined) return fallback;
      const n = Number(v);
      if (!Number.isFinite(n) || n < min) throw new ConfigError(as, `expected a number >= ${min}, got "${v}"`);
      return n;
    },
  };
}

/** Free text, trimmed. */
export function text(name: string, fallback: string, description: string, { accepts = 'text' }: { accepts?: string } = {}): Setting<string> {
  return { name, description, shown: code(fallback), accepts, read: (raw) => present(raw) ?? fallback };
}

/** Free text, or unset; `shown` documents a default computed from other settings. */
export function optionalText(name: string, description: string, { shown = 'unset', accepts = 'text' }: { shown?: string; accepts?: string } = {}): Setting<string | undefined> {
  return { name, description, shown, accepts, read: (raw) => present(raw) };
}

/** One of `values`. */
export function choice<const T extends string>(name: string, fallback: T, values: readonly T[], description: string): Setting<T> {
  return {
    name,
    description,
    shown: code(fallback),
    accepts: values.map(code).join(', '),
    read(raw, as) {
      const v = present(raw) ?? fallback;
      if (!(values as readonly string[]).includes(v)) throw new ConfigError(as, `expected one of ${values.join(', ')}, got "${v}"`);
      return v as T;
    },
  };
}

/** A switch written as one of two words (`on`/`off` unless given): true for the first. */
export function toggle(name: string, fallback: boolean, description: string, [yes, no]: readonly [string, string] = ['on', 'off']): Setting<boolean> {
  const words = choice(name, fallback ? yes : no, [yes, no], description);
  return { ...words, read: (raw, as) => words.read(raw, as) === yes };
}

/** A URL of one of `protocols`, without trailing slashes. */
export function checkedUrl(raw: string, name: string, protocols: readonly string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

const protocolNames = (protocols: readonly string[]) => protocols.map((p) => p.replace(':', '')).join(' or ');

/** A URL of one of `protocols`; unset: `fallback` (undefined: the caller derives it). */
export function address<F extends string | undefined>(
  name: string,
  fallback: F,
  protocols: readonly string[],
  description: string,
  shown?: string,
): Setting<F extends string ? string : string | undefined> {
  return {
    name,
    description,
    shown: shown ?? (fallback === undefined ? 'unset' : code(fallback)),
    accepts: `${protocolNames(protocols)} URL`,
    read: (raw, as) => {
      const v = present(raw) ?? fallback;
      return (v === undefined ? undefined : checkedUrl(v, as, protocols)) as F extends string ? string : string | undefined;
    },
  };
}

/** One or more URLs, comma-separated, none repeated. */
export function addressList(name: string, fallback: string, protocols: readonly string[], description: string): Setting<readonly string[]> {
  return {
    name,
    description,
    shown: code(fallback),
    accepts: `comma-separated ${protocolNames(protocols)} URLs`,
    read(raw, as) {
      const all = present(raw) ?? fallback;
      const entries = all.split(',').map((s) => s.trim());
      if (entries.some((e) => e === '')) throw new ConfigError(as, `expected comma-separated URLs without empty entries, got "${all}"`);
      const urls = entries.map((entry) => checkedUrl(entry, as, protocols));
      const repeated = urls.find((u, i) => urls.indexOf(u) !== i);
      if (repeated) throw new ConfigError(as, `lists ${repeated} twice`);
      return urls;
    },
  };
}

/**
 * Anything else: its own reader, which gets the variable's trimmed text, else `fallback` (the
 * default, written once, as text), else undefined; `shown` documents a default that is not text.
 */
export function custom<T>(name: string, doc: { fallback: string; shown?: string; accepts: string }, description: string, read: (raw: string, name: string) => T): Setting<T>;
export function custom<T>(name: string, doc: { shown: string; accepts: string }, description: string, read: (raw: string | undefined, name: string) => T): Setting<T>;
export function custom<T>(
  name: string,
  { fallback, shown = fallback === undefined ? 'unset' : code(fallback), accepts }: { fallback?: string; shown?: string; accepts: string },
  description: string,
  read: (raw: string, name: string) => T,
): Setting<T> {
  // Undefined reaches only the readers declared without a fallback, whose signature takes it.
  return { name, description, shown, accepts, read: (raw, as) => read((present(raw) ?? fallback) as string, as) };
}

/** An ISO 8601 date, or undefined. */
export function readDate(raw: string | undefined, name: string): Date | undefined {
  if (raw === undefined) return undefined;
  const d = new Date(raw);
  if (Number.isNaN(d.getTime())) throw new ConfigError(name, `expected an ISO 8601 date, got "${raw}"`);
  return d;
}

/** An IP address, or a CIDR range with a prefix length of 1 or more (`/0` would trust everyone). */
export function isAddressOrRange(entry: string): boolean {
  const [ip = '', length, ...rest] = entry.split('/');
  const family = isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  if (length === undefined) return true;
  return /^\d+$/.test(length) && Number(length) >= 1 && Number(length) <= (family === 4 ? 32 : 128);
}

/** Comma-separated origins (`scheme://host[:port]`), each normalised by URL. */
export function readOrigins(raw: string | undefined, name: string): string[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let parsed: URL;
      try {
        parsed = new URL(entry);
      } catch {
        throw new ConfigError(name, `expected origins like https://app.example.com, got "${entry}"`);
      }
      if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.origin !== entry.replace(/\/$/, '')) {
        throw new ConfigError(name, `expected an origin (scheme://host[:port], no path), got "${entry}"`);
      }
      return parsed.origin;
    });
}

/** Hosts a plain-http URL may name: a JWKS fetched over http from elsewhere could be swapped on the way. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL's `hostname` is this machine (`localhost`, `127.0.0.0/8`, `[::1]`). */
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname) || hostname.startsWith('127.');

/** A JWKS file path, an https URL, or an http URL on loopback only. */
export function readJwksSource(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return raw;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a file path or an https URL, got "${raw}"`);
  }
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname))) return raw;
  throw new ConfigError(name, `expected an https URL (http only on loopback), got "${raw}"`);
}
