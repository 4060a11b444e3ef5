// What `npm run enrich` prints when a run ends: the counts, then each refusal and failure on its own line.
import type { EnrichSummary } from '../../pipeline/enrich/library.js';

/** The summary a person reads: counts, then each refusal and failure on its own line. */
export function formatEnrichSummary(s: EnrichSummary, { dryRun = false } = {}): string {
  const verb = dryRun ? 'would enrich' : 'enriched';
  const facets = Object.entries(s.facets)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const lines = [
    `${verb} ${s.enriched.length} of ${s.episodes} episodes; ${s.unchanged} already complete; ${s.refused.length} not enrichable; ${s.failed.length} failed` +
      (facets ? `; new names: ${facets}` : '') +
      (dryRun ? '' : `; ${s.written.length} files written`),
    ...s.refused.map((r) => `  ${r.id}: not enriched: ${r.reason}`),
    ...s.notes.map((n) => `  ${n.id}: ${n.note}`),
    ...s.failed.map((f) => `  ${f.id}: failed: ${f.reason}`),
  ];
  return lines.join('\n');
}
