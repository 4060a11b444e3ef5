// The pure rules of backups: which snapshots retention deletes, how a restore renames indices, when it refuses a
// snapshot, how the manifest fits OpenSearch's metadata limit, and how BACKUP_EVERY reads.
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { legacySignature } from '../../core/embedding/signature.js';
import { fitManifest, retired, type BackupInfo, type BackupManifest } from '../../core/store/snapshots.js';
import { parseIndexName, renameRule, restoreRefusal } from '../../core/store/snapshot-restore.js';

const backup = (name: string, startedAt: string, state = 'SUCCESS'): BackupInfo => ({ name, state, startedAt, durationMs: 1000, indices: [], manifest: undefined });

const manifest = (over: Partial<BackupManifest> = {}): BackupManifest => ({
  format: 1,
  prefix: 'cca-',
  mappings: { channels: 1, passages: 2 },
  embedder: legacySignature('Xenova/bge-small-en-v1.5', 384),
  documents: { channels: 2, passages: 78 },
  libraries: ['/srv/follow'],
  createdAt: '2026-11-27T10:00:00.000Z',
  ...over,
});

describe('backup rules', function () {
  it('retention keeps the newest good backups and deletes every older one, failed ones included', function () {
    const all = [
      backup('a', '2026-11-20T00:00:00Z'),
      backup('b', '2026-11-21T00:00:00Z', 'FAILED'),
      backup('c', '2026-11-22T00:00:00Z'),
      backup('d', '2026-11-23T00:00:00Z', 'PARTIAL'),
      backup('e', '2026-11-24T00:00:00Z'),
    ];
    expect(retired(all, 2).map((b) => b.name)).to.deep.equal(['a', 'b']);
    expect(retired(all, 3)).to.deep.equal([]);
    expect(retired(all, 1).map((b) => b.name)).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('renames a snapshot index to the target prefix with a fresh stamp, and only indices of the prefix', function () {
    const rule = renameRule('cca.x-', 'cca-restored-', 42);
    const rename = (index: string) => index.replace(new RegExp(rule.rename_pattern), rule.rename_replacement);
    expect(rename('cca.x-passages-v2-1795793916261')).to.equal('cca-restored-passages-v2-42');
    expect(rename('ccaxx-passages-v2-1795793916261'), 'the dot is literal').to.equal('ccaxx-passages-v2-1795793916261');
    expect(parseIndexName('cca-', 'cca-api-keys-v1-17')).to.deep.equal({ name: 'api-keys', version: 1 });
    expect(parseIndexName('cca-', 'cca-speech-channels-v1-17'), 'another prefix that starts the same').to.equal(undefined);
  });

  it('refuses a snapshot of another embedder, naming the snapshot model and the library folders to rebuild from', function () {
    const expected = { embedder: legacySignature('Xenova/all-MiniLM-L6-v2', 384), mappings: { channels: 1, passages: 2 } };
    const refusal = restoreRefusal('cca-backup-1', manifest(), expected);
    expect(refusal?.code).to.equal('embedder_mismatch');
    expect(refusal?.message).to.include('Xenova/bge-small-en-v1.5').and.to.include('restore with the matching model').and.to.include('npm run ingest -- <folder>` for /srv/follow');
    const { dimension: _dimension, ...withoutDimension } = legacySignature('Xenova/bge-small-en-v1.5', 384);
    expect(restoreRefusal('cca-backup-1', manifest(), { ...expected, embedder: withoutDimension }), 'an embedder not loaded yet: its dimension is not compared').to.equal(
      undefined,
    );
  });

  it('refuses a snapshot of other mapping versions, naming them', function () {
    const expected = { embedder: legacySignature('Xenova/bge-small-en-v1.5', 384), mappings: { channels: 1, passages: 3 } };
    const refusal = restoreRefusal('cca-backup-1', manifest(), expected);
    expect(refusal?.code).to.equal('mapping_mismatch');
    expect(refusal?.message).to.include('passages v2 (this release: v3)');
  });

  it('trims the manifest to the 1024 bytes OpenSearch allows, library folders first', function () {
    const long = manifest({ libraries: Array.from({ length: 20 }, (_, i) => `/srv/libraries/a-rather-long-channel-folder-name-${i}`) });
    const fitted = fitManifest(long);
    expect(Buffer.byteLength(JSON.stringify(fitted))).to.be.at.most(1024);
    expect(fitted.libraries.length).to.be.within(1, 19);
    expect(fitted.embedder).to.deep.equal(long.embedder);
    expect(fitManifest(manifest())).to.deep.equal(manifest());
  });

  it('reads BACKUP_EVERY as an interval or a cron pattern, and refuses anything else', function () {
    expect(loadConfig({}).backup.every).to.equal(undefined);
    expect(loadConfig({ BACKUP_EVERY: '6h' }).backup.every).to.deep.equal({ every: 6 * 3_600_000 });
    expect(loadConfig({ BACKUP_EVERY: '0 3 * * *' }).backup.every).to.deep.equal({ pattern: '0 3 * * *' });
    expect(() => loadConfig({ BACKUP_EVERY: 'daily' })).to.throw(/BACKUP_EVERY/);
    expect(() => loadConfig({ BACKUP_EVERY: '0m' })).to.throw(/at least 1m/);
  });
});
