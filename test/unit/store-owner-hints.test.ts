import { expect } from 'chai';
import { OwnerHints } from '../../src/store/owner-hints.js';

describe('owner hints', function () {
  it('remembers the owner last read for a slug, the newest read winning', function () {
    const hints = new OwnerHints();
    hints.set('alpha', 'u_owner');
    hints.set('alpha', 'u_new_owner');
    expect(hints.get('alpha')).to.equal('u_new_owner');
    expect(hints.get('beta')).to.equal(undefined);
  });

  it('forgets the least recently read slug past its bound', function () {
    const hints = new OwnerHints(2);
    hints.set('alpha', 'u_a');
    hints.set('beta', 'u_b');
    hints.set('alpha', 'u_a');
    hints.set('gamma', 'u_c');
    expect(hints.get('beta')).to.equal(undefined);
    expect(hints.get('alpha')).to.equal('u_a');
    expect(hints.get('gamma')).to.equal('u_c');
  });
});
