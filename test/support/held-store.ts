// A store relay that holds back the requests matching a pattern, once told to, until released: a search keeps its
// place in the gate, for certain, until the test lets it go. Tests wait on the relay's `held` and the gate's counts,
// never on time (reliability-fair-shares, reliability-member-admission).
import type { ApiHarness } from './api-harness.js';
import { admissionCounts, inspectingRelay } from './api-net.js';
import { createApiMetrics, type ApiMetrics } from '../../src/metrics/api-metrics.js';

export type HeldStore = Awaited<ReturnType<typeof inspectingRelay>> & {
  /** From now on, hold back the store requests matching `held` until `release()`. */
  hold(): void;
  /** The search gate's running and waiting searches (both shares), as /metrics reports them. */
  gate(): Promise<{ running: number; waiting: number }>;
};

/**
 * Runs `body` against the API `start` makes over a relay to `store` (its URL and the metrics the API must report to),
 * holding the store requests matching `held` once `store.hold()` is called; the relay is closed afterwards.
 */
export async function withHeldStore(
  store: URL,
  held: RegExp,
  start: (relayUrl: string, metrics: ApiMetrics) => Promise<ApiHarness>,
  body: (api: ApiHarness, store: HeldStore) => Promise<void>,
): Promise<void> {
  let holding = false;
  const relay = await inspectingRelay(store, { hold: (chunk) => holding && held.test(chunk) });
  const metrics = createApiMetrics();
  const heldStore = Object.assign(relay, { hold: () => void (holding = true), gate: () => admissionCounts(metrics) });
  try {
    await body(await start(relay.url, metrics), heldStore);
  } finally {
    await relay.close();
  }
}
