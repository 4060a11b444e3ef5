// What `npm run restore` tells the operator after a restore, on stderr: whose snapshot it was, what the ledger applied
// again, what came back active, and the ingest commands to run. Everything read from the snapshot is printed escaped.
import { printable, shellWord } from '../../core/ground/shell-words.js';
import type { RestoreResult } from '../../core/store/snapshot-restore.js';

/** `npm run ingest -- <dir>`, the folder one shell word (a leading `-` made `./-`, so it is never read as an option). */
export function ingestCommand(dir: string): string {
  return `npm run ingest -- ${shellWord(dir.startsWith('-') ? `./${dir}` : dir)}`;
}

/** The lines of the restore's report (without the JSON result, which goes to stdout). */
export function restoreReport(result: RestoreResult): string[] {
  const { deployment, reapplied, cameBack } = result;
  const lines = [`restored ${printable(result.snapshot)} into ${shellWord(result.prefix)}`];
  if (deployment.foreign) {
    const theirs = deployment.snapshot ? deployment.snapshot.id : 'a deployment with no id';
    lines.push(`  the snapshot is of another deployment (${theirs}; this one: ${deployment.self?.id ?? 'no identity yet'}), restored as named by --foreign`);
  }
  lines.push(
    `  re-applied from the ledger: ${reapplied.keysRevoked.length} key revocations${reapplied.keysRevoked.length ? ` (${reapplied.keysRevoked.map(printable).join(', ')})` : ''}, ` +
      `${reapplied.endpointsRemoved.length} endpoint removals${reapplied.endpointsRemoved.length ? ` (${reapplied.endpointsRemoved.map(printable).join(', ')})` : ''}`,
  );
  const listed = cameBack.keys.length < cameBack.activeKeys ? ` (the first ${cameBack.keys.length} listed)` : '';
  lines.push(`  active keys that came back: ${cameBack.activeKeys}${listed}; revoke any that should not work: npm run keys -- revoke <keyId>`);
  for (const k of cameBack.keys) lines.push(`    ${[k.keyId, k.userId, k.name ?? '-', `…${k.last4}`].map(printable).join('\t')}`);
  lines.push(`  webhook endpoints that came back: ${cameBack.endpoints.length}; remove any that should not receive: npm run webhooks -- remove <id>`);
  for (const e of cameBack.endpoints) lines.push(`    ${[e.id, e.channelSlug, e.origin].map(printable).join('\t')}`);
  if (result.libraries.length > 0) {
    lines.push('  to index what the library folders gained since the backup:');
    for (const dir of result.libraries) lines.push(`    ${ingestCommand(dir)}`);
  }
  return lines;
}

/** JSON with the C1 controls and direction overrides that `JSON.stringify` leaves raw escaped as `\uXXXX` (same data). */
export function escapedJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
