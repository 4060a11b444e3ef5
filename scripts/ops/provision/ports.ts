// Loopback ports for the local services: a pinned one checked, otherwise a free one picked.
import net from 'node:net';
import type { Env } from './commands.js';
import { createProvisionError } from './errors.js';

export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Fails when `envName` pins a port other than the one the running service already uses. */
export function checkPinnedPort(env: Env, envName: string, service: string, runningPort: number): void {
  const wanted = env[envName]?.trim();
  if (wanted && !/^\d+$/.test(wanted)) throw createProvisionError('bad_port', envName, wanted);
  if (wanted && Number(wanted) !== runningPort) throw createProvisionError('port_mismatch', service, runningPort, envName, wanted);
}

/**
 * Picks a loopback port. When `envName` is set in `env`, that port or a clear error; otherwise
 * `preferred` if free, then the next few above it, then whatever the OS hands out.
 */
export async function choosePort({
  env,
  envName,
  preferred,
  avoid = [],
  what,
}: {
  env: Env;
  envName?: string;
  preferred: number;
  avoid?: number[];
  what: string;
}): Promise<number> {
  const raw = envName ? env[envName]?.trim() : undefined;
  if (envName && raw) {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw createProvisionError('bad_port', envName, raw);
    if (!(await isPortFree(port))) throw createProvisionError('port_in_use', envName, port);
    return port;
  }
  for (let port = preferred; port < preferred + 20; port++) {
    if (!avoid.includes(port) && (await isPortFree(port))) return port;
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await osFreePort();
    if (port > 0 && !avoid.includes(port)) return port;
  }
  throw createProvisionError('no_free_port', what);
}
