// The pure rules of decision 34's restore: which snapshot is another deployment's and what the refusal shows, how a
// manifest's identity reads, a newer manifest format refused, and every line the restore prints from a snapshot escaped.
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { printable, shellWord } from '../../core/ground/shell-words.js';
import { legacySignature } from '../../core/embedding/signature.js';
import { MANIFEST_FORMAT, readManifest, type BackupManifest } from '../../core/store/snapshots.js';
import { foreignName, foreignRefusal, restoreRefusal, type RestoreResult } from '../../core/store/snapshot-restore.js';
import { escapedJson, ingestCommand, restoreReport } from '../../bin/lib/restore-report.js';

const OURS = { id: 'dep_0123456789abcdef', prefix: 'cca-' };
const THEIRS = { id: 'dep_fedcba9876543210', prefix: 'cca-' };

const manifest = (over: Partial<BackupManifest> = {}): BackupManifest => ({
  format: MANIFEST_FORMAT,
  prefix: 'cca-',
  deployment: OURS,
  mappings: { channels: 1 },
  embedder: legacySignature('Xenova/bge-small-en-v1.5', 384),
  documents: {},
  libraries: ['/srv/follow'],
  createdAt: '2026-12-01T10:00:00.000Z',
  ...over,
});

/** Controls, DEL and direction overrides, save the newline and the tab that separate lines and columns. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** What `sh` reads `word` back as. */
const shellReads = (word: string): string => execFileSync('sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' });

describe('restore: another deployment, and what is printed', function () {
  it("accepts this deployment's own snapshot and refuses another's, showing both identities and the flag that accepts it", function () {
    expect(foreignRefusal('s1', manifest(), OURS, { from: 'cca-' })).to.equal(undefined);
    const refusal = foreignRefusal('s1', manifest({ deployment: THEIRS }), OURS, { from: 'cca-' })!;
    expect(refusal.code).to.equal('foreign_snapshot');
    expect(refusal.message).to.include(THEIRS.id).and.to.include(OURS.id).and.to.include(`--foreign ${THEIRS.id}`);
    expect(foreignRefusal('s1', manifest({ deployment: THEIRS }), OURS, { from: 'cca-', foreign: THEIRS.id })).to.equal(undefined);
    expect(foreignRefusal('s1', manifest({ deployment: THEIRS }), OURS, { from: 'cca-', foreign: OURS.id })!.message).to.include(`--foreign ${OURS.id} names another`);
  });

  it('refuses a snapshot without a deployment id, and any snapshot while this deployment has no identity, unless named', function () {
    const legacy = manifest({ deployment: undefined });
    expect(foreignName(legacy)).to.equal('unknown');
    expect(foreignRefusal('old', legacy, OURS, { from: 'cca-' })!.message).to.match(/no id .*--foreign unknown$/);
    expect(foreignRefusal('old', legacy, OURS, { from: 'cca-', foreign: 'unknown' })).to.equal(undefined);
    const lost = foreignRefusal('s1', manifest(), undefined, { from: 'cca-' })!;
    expect(lost.message).to.include('has no identity').and.to.include(`--foreign ${OURS.id}`);
  });

  it('reads a well-formed deployment from the manifest, and anything else as none', function () {
    const stored = { format: 2, prefix: 'cca-', mappings: {}, deployment: OURS };
    expect(readManifest(stored)!.deployment).to.deep.equal(OURS);
    expect(readManifest({ ...stored, deployment: { id: 'dep_x; rm', prefix: 'cca-' } })!.deployment).to.equal(undefined);
    expect(readManifest({ ...stored, deployment: 'dep_0123456789abcdef' })!.deployment).to.equal(undefined);
  });

  it('refuses a manifest format newer than this release reads', function () {
    const expected = { embedder: legacySignature('Xenova/bge-small-en-v1.5', 384), mappings: { channels: 1 } };
    expect(restoreRefusal('s', manifest(), expected)).to.equal(undefined);
    expect(restoreRefusal('s', manifest({ format: MANIFEST_FORMAT + 1 }), expected)).to.have.property('code', 'not_a_backup');
  });

  it('quotes a word for the shell only when it needs it, and the shell reads it back with its controls replaced', function () {
    expect(shellWord('/srv/follow-1/lib.v2')).to.equal('/srv/follow-1/lib.v2');
    for (const text of ['/srv/a b', '/srv/x; rm -rf ~', "/srv/it's", '$(id)`id`', '', '/srv/\u001b[2J\u009b31m\u202eevil\nnext']) {
      const word = shellWord(text);
      expect(word, text).to.not.match(UNSAFE);
      expect(shellReads(word), text).to.equal(printable(text));
    }
  });

  it('prints the ingest commands and every name of a foreign snapshot escaped, a leading dash never read as an option', function () {
    expect(ingestCommand('-rf')).to.equal('npm run ingest -- ./-rf');
    const result: RestoreResult = {
      snapshot: 'cca-backup-1\u001b]0;x\u0007',
      prefix: 'cca-',
      indices: {},
      documents: {},
      replaced: [],
      libraries: ['/srv/a; reboot', '/srv/\u001b[31mred'],
      deployment: { self: OURS, snapshot: THEIRS, foreign: true },
      reapplied: { keysRevoked: ['key_1'], endpointsRemoved: [] },
      cameBack: {
        activeKeys: 2,
        keys: [{ keyId: 'key_2', userId: 'u_\u009b1m', name: null, last4: 'abcd' }],
        endpoints: [{ id: 'wh_1', channelSlug: 'alpha', origin: 'https://hooks.example' }],
      },
      seconds: 1,
    };
    const lines = restoreReport(result);
    expect(lines.join('\n')).to.not.match(UNSAFE);
    expect(lines).to.include("    npm run ingest -- '/srv/a; reboot'");
    expect(lines).to.include("    npm run ingest -- '/srv/\uFFFD[31mred'");
    expect(lines.find((l) => l.includes('another deployment')))
      .to.include(THEIRS.id)
      .and.to.include(OURS.id);
    expect(lines).to.include('  re-applied from the ledger: 1 key revocations (key_1), 0 endpoint removals');
    expect(lines.find((l) => l.startsWith('  active keys'))).to.include('2 (the first 1 listed)');
    expect(lines).to.include('    wh_1\talpha\thttps://hooks.example');
    const json = escapedJson(result);
    expect(json).to.not.match(UNSAFE);
    expect(JSON.parse(json)).to.deep.equal(result);
  });
});
