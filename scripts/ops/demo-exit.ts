// What `npm run demo` does with OpenSearch and Redis when it ends (Ctrl-C): stop what it started, say so for the rest.
import type { ServicesStatus } from './provision/services.js';

export interface DemoExitPlan {
  /** Run `servicesDown` (it stops only the local services `up` started, never an external one). */
  stop: boolean;
  /** One line per service, printed as the demo ends. */
  lines: string[];
}

const NAMES = { opensearch: ['OpenSearch', 'OPENSEARCH_URL'], redis: ['Redis', 'REDIS_URL'] } as const;
const DOWN = '`npm run services -- down` stops it';

/**
 * Decides from the services' status taken *before* the demo provisioned them. The demo
 * stops the local services when it started them, unless `keep`. One that was already
 * running (an earlier `npm run services -- up`) belongs to whoever started it, and
 * `servicesDown` would stop both local services at once: then nothing is stopped.
 */
export function planDemoExit(before: ServicesStatus, { keep = false }: { keep?: boolean } = {}): DemoExitPlan {
  const kinds = ['opensearch', 'redis'] as const;
  const local = kinds.filter((k) => before[k].source === 'local');
  const startedHere = local.filter((k) => !before[k].running);
  const stop = !keep && startedHere.length > 0 && startedHere.length === local.length;
  const lines = kinds.map((k) => {
    const [name, variable] = NAMES[k];
    if (before[k].source === 'external') return `${name} comes from ${variable}: not the demo's to stop.`;
    if (before[k].running) return `${name} was running before the demo and keeps running; ${DOWN}.`;
    if (stop) return `${name} was started by the demo: stopping it.`;
    if (keep) return `${name} was started by the demo and keeps running (--keep); ${DOWN}.`;
    return `${name} was started by the demo and keeps running with the other service, which was already running; ${DOWN}.`;
  });
  return { stop, lines };
}
