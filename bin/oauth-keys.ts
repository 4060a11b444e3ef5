// `npm run oauth-keys -- rotate <file> [--rsa] [--drop-old]`: the authorization server's signing keys file (OAUTH_SIGNING_KEYS_FILE).
import { Command } from 'commander';
import { rotateKeysFile } from '../src/oauth/rotate-keys.js';
import { SigningKeysError } from '../src/oauth/signing-keys.js';

const program = new Command()
  .name('oauth-keys')
  .description("Manage the authorization server's signing keys: a JWKS file of private keys, the first signs, every one verifies.")
  .showHelpAfterError();

program
  .command('rotate')
  .description('create the file with a new key, or put a new key first and keep the old ones for verification; restart the API processes (all of them, same file) to sign with it')
  .argument('<file>', 'the keys file (OAUTH_SIGNING_KEYS_FILE)')
  .option('--rsa', 'an RS256 (RSA 2048) key instead of ES256 (P-256)')
  .option('--drop-old', 'keep only the new key and the one it replaces; older keys stop verifying (do it an access-token lifetime after the previous rotation)')
  .action((file: string, { rsa, dropOld }: { rsa?: boolean; dropOld?: boolean }) => {
    const result = rotateKeysFile(file, { alg: rsa ? 'RS256' : 'ES256', dropOld: dropOld === true });
    const kept = result.kept.length ? `; still verifying: ${result.kept.join(', ')}` : '';
    const dropped = result.dropped.length ? `; dropped: ${result.dropped.join(', ')}` : '';
    process.stdout.write(`${result.created ? 'created' : 'rotated'} ${file}: ${result.kid} signs${kept}${dropped}\n`);
  });

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`oauth-keys: ${error instanceof SigningKeysError || error instanceof SyntaxError ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
