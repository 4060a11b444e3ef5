// The provisioners' error catalogue: every expected failure of `services`, keyed by a stable code, with the message that says what to do.
/** Expected failures, keyed by stable codes. Each message says what is wrong and what to do. */
const ERRORS = {
  BAD_PORT: (name: string, value: string) => `${name}=${value} is not a port number: set it to 1-65535 or unset it`,
  PORT_IN_USE: (name: string, port: number) =>
    `${name}=${port} is already in use on 127.0.0.1: stop what listens there or unset ${name} to let up pick a free port`,
  PORT_MISMATCH: (service: string, running: number, name: string, wanted: string) =>
    `${service} from an earlier up runs on port ${running}, not ${name}=${wanted}: run down first, or unset ${name}`,
  NO_FREE_PORT: (what: string) => `no free loopback port for ${what}: free some ports and run up again`,
  TOOL_MISSING: (tool: string, fix: string) => `${tool} is not installed: ${fix}`,
  JAVA_NOT_FOUND: (seen: string) =>
    `no Java 17-23 found${seen}: install one (e.g. apt-get install openjdk-17-jdk-headless) or set OPENSEARCH_JAVA_HOME to a JDK 17 or 21`,
  DOWNLOAD_FAILED: (artifact: string, detail: string) =>
    `mvn could not fetch ${artifact} (${detail}): check that mvn reaches Maven Central, then run up again`,
  INSTALL_FAILED: (what: string, detail: string) => `${what} failed (${detail}): fix that, then run up again`,
  NOT_READABLE: (user: string, dir: string) =>
    `user ${user} cannot reach ${dir}: make every parent folder traversable (chmod o+x) or move the project, then run up again`,
  OPENSEARCH_EXITED: (log: string) => `OpenSearch exited while starting (log above, full log in ${log}): fix the cause and run up again`,
  OPENSEARCH_UNHEALTHY: (seconds: number, log: string) =>
    `OpenSearch did not turn yellow within ${seconds}s (log above, full log in ${log}): run down, then up again`,
  TOPOLOGY_MISMATCH: (running: string, wanted: string) =>
    `OpenSearch from an earlier up runs as ${running}, not ${wanted}: run down first, or ask for the same number of nodes`,
  PLUGINS_MISSING: (missing: string) =>
    `OpenSearch started without ${missing}: delete .cache/opensearch-* so up rebuilds the install`,
  REDIS_MISSING: () => 'redis-server is not installed: install redis-server (e.g. apt-get install redis-server) or set REDIS_URL',
  REDIS_UNHEALTHY: (log: string) => `redis-server did not answer PING (see ${log}): fix the cause and run up again`,
  BUSY: (lockDir: string) => `another services command is still running (it holds ${lockDir}): wait for it or end it, then retry`,
} as const;

export type ProvisionErrorCode = keyof typeof ERRORS;

/** An expected failure: the CLI prints `details` (log tail) and then the one-line message, no stack. */
export class ProvisionError extends Error {
  constructor(
    readonly code: ProvisionErrorCode,
    message: string,
    readonly details?: string,
  ) {
    super(message);
    this.name = 'ProvisionError';
  }
}

export function provisionError<C extends ProvisionErrorCode>(
  code: C,
  ...args: Parameters<(typeof ERRORS)[C]>
): ProvisionError {
  const message = (ERRORS[code] as (...a: unknown[]) => string)(...args);
  return new ProvisionError(code, message);
}
