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
 * One variable as the schema declares it: what it sets, its default and accepted values as the
 * documentation shows them, and how its text is read (blank counts as unset).
 */
export interface VarSpec<T> {
  description: string;
  /** The default as documented: a value in backticks, or a phrase ("unset"). */
  shown: string;
  /** The accepted values as documented. */
  accepts: string;
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
export function integer(fallback: number, min: number, max: number, description: string): VarSpec<number> {
  return {
    description,
    shown: code(fallback),
    accepts: `integer ${min}–${max}`,
    read: (raw, name) => (present(raw) === undefined ? fallback : parseInt10(present(raw)!, name, min, max)),
  };
}

/** An integer in `min..max`, or unset. */
export function optionalInteger(min: number, max: number, description: string, shown = 'unset'): VarSpec<number | undefined> {
  return { description, shown, accepts: `integer ${min}–${max}`, read: (raw, name) => (present(raw) === undefined ? undefined : parseInt10(present(raw)!, name, min, max)) };
}

/** A finite number ≥ `min`. */
export function decimal(fallback: number, min: number, description: string): VarSpec<number> {
  return {
    description,
    shown: code(fallback),
    accepts: `number ≥ ${min}`,
    read(raw, name) {
      const v = present(raw);
      if (v === undefined) return fallback;
      const n = Number(v);
      if (!Number.isFinite(n) || n < min) throw new ConfigError(name, `expected a number >= ${min}, got "${v}"`);
      return n;
    },
  };
}

/** Free text, trimmed. */
export function text(fallback: string, description: string): VarSpec<string> {
  return { description, shown: code(fallback), accepts: 'text', read: (raw) => present(raw) ?? fallback };
}

/** Free text, or unset; `shown` documents a default computed elsewhere. */
export function optionalText(description: string, { shown = 'unset', accepts = 'text' }: { shown?: string; accepts?: string } = {}): VarSpec<string | undefined> {
  return { description, shown, accepts, read: (raw) => present(raw) };
}

/** One of `values`. */
export function choice<const T extends string>(fallback: T, values: readonly T[], description: string): VarSpec<T> {
  return {
    description,
    shown: code(fallback),
    accepts: values.map(code).join(', '),
    read(raw, name) {
      const v = present(raw) ?? fallback;
      if (!(values as readonly string[]).includes(v)) throw new ConfigError(name, `expected one of ${values.join(', ')}, got "${v}"`);
      return v as T;
    },
  };
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
  fallback: F,
  protocols: readonly string[],
  description: string,
  shown?: string,
): VarSpec<F extends string ? string : string | undefined> {
  return {
    description,
    shown: shown ?? (fallback === undefined ? 'unset' : code(fallback)),
    accepts: `${protocolNames(protocols)} URL`,
    read: (raw, name) => {
      const v = present(raw) ?? fallback;
      return (v === undefined ? undefined : checkedUrl(v, name, protocols)) as F extends string ? string : string | undefined;
    },
  };
}

/** One or more URLs, comma-separated, none repeated. */
export function addressList(fallback: string, protocols: readonly string[], description: string): VarSpec<string[]> {
  return {
    description,
    shown: code(fallback),
    accepts: `comma-separated ${protocolNames(protocols)} URLs`,
    read(raw, name) {
      const all = present(raw) ?? fallback;
      const entries = all.split(',').map((s) => s.trim());
      if (entries.some((e) => e === '')) throw new ConfigError(name, `expected comma-separated URLs without empty entries, got "${all}"`);
      const urls = entries.map((entry) => checkedUrl(entry, name, protocols));
      const repeated = urls.find((u, i) => urls.indexOf(u) !== i);
      if (repeated) throw new ConfigError(name, `lists ${repeated} twice`);
      return urls;
    },
  };
}

/** Anything else: its own reader, and how the documentation shows it. */
export function custom<T>(shown: string, accepts: string, description: string, read: (raw: string | undefined, name: string) => T): VarSpec<T> {
  return { description, shown, accepts, read: (raw, name) => read(present(raw), name) };
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

/** A JWKS file path, an https URL, or an http URL on loopback only. */
export function readJwksSource(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return raw;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a file path or an https URL, got "${raw}"`);
  }
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && (LOOPBACK_HOSTS.has(parsed.hostname) || parsed.hostname.startsWith('127.')))) return raw;
  throw new ConfigError(name, `expected an https URL (http only on loopback), got "${raw}"`);
}
