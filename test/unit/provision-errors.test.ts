import { expect } from 'chai';
import { PROVISION_ERRORS, ProvisionError, createProvisionError, type ProvisionErrorCode } from '../../scripts/ops/provision/errors.js';

describe('provisioning error catalogue', function () {
  it('builds every code into a ProvisionError with a one-line message from its arguments', function () {
    for (const code of Object.keys(PROVISION_ERRORS) as ProvisionErrorCode[]) {
      const build = createProvisionError as (code: ProvisionErrorCode, ...args: unknown[]) => ProvisionError;
      const err = build(code, 'A', 'B', 'C', 'D');
      expect(err, code).to.be.instanceOf(ProvisionError);
      expect(err.code).to.equal(code);
      expect(code).to.match(/^[a-z][a-z0-9_]*$/);
      expect(err.message, code).to.match(/^[^\n]+: [^\n]+$/);
    }
    expect(createProvisionError('port_in_use', 'REDIS_PORT', 6379).message).to.equal(
      'REDIS_PORT=6379 is already in use on 127.0.0.1: stop what listens there or unset REDIS_PORT to let up pick a free port',
    );
  });
});
