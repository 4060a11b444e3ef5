// The change feed and the keys that seal webhook secrets.
import { custom, integer } from '../values.js';
import { type Schema } from '../tree.js';
import { readSecretsKey } from '../readers.js';

export const CHANGES = {
  changes: {
    retentionDays: integer(
      'CHANGES_RETENTION_DAYS',
      30,
      1,
      3650,
      'how long the change feed keeps a change; a cursor older than that is answered 410 `cursor_expired` (re-list the catalog)',
    ),
  },

  /** The keys that seal webhook signing secrets at rest (AES-256-GCM): the worker and `npm run webhooks` need them, the API does not. */
  secrets: {
    key: custom(
      'SECRETS_KEY',
      { shown: 'unset (the worker refuses to start while webhook endpoints exist)', accepts: '32 bytes: 64 hex digits or base64' },
      'seals webhook signing secrets in the store (AES-256-GCM; its id, the first 8 hex digits of its SHA-256, is stored beside each); the worker and `npm run webhooks` need it, the API does not. Make one with `openssl rand -base64 32`',
      readSecretsKey,
    ),
    previousKey: custom(
      'SECRETS_KEY_PREVIOUS',
      { shown: 'unset', accepts: '32 bytes: 64 hex digits or base64' },
      'the key before `SECRETS_KEY`, during a rotation: secrets sealed under it still open, and `npm run webhooks -- rotate-key` re-seals them under `SECRETS_KEY`',
      readSecretsKey,
    ),
  },
} satisfies Schema;
