import { expect } from 'chai';
import type { ChannelDoc } from '../../core/store/documents.js';
import { SearchGrants } from '../../src/store/search-grants.js';

const channel = (slug: string, title = slug): ChannelDoc => ({
  id: `ch_${slug}`,
  slug,
  title,
  providerType: 'rss',
  ownerId: 'u_owner',
  memberIds: ['u_member'],
  customDomain: null,
});

describe('search grants', function () {
  it("keeps each slug's channel as last read, for the credentials let into it", function () {
    const grants = new SearchGrants();
    grants.grant('key:a', 'alpha', channel('alpha'));
    grants.grant('key:a', 'alpha', channel('alpha', 'Renamed'));
    expect(grants.get('key:a', 'alpha')?.title).to.equal('Renamed');
    expect(grants.get('key:b', 'alpha')).to.equal(undefined);
    expect(grants.get('key:a', 'beta')).to.equal(undefined);
  });

  it('takes back one slug, or every slug of a credential', function () {
    const grants = new SearchGrants();
    grants.grant('key:a', 'alpha', channel('alpha'));
    grants.grant('key:a', 'beta', channel('beta'));
    grants.grant('key:b', 'alpha', channel('alpha'));
    grants.revoke('key:a', 'alpha');
    expect(grants.get('key:a', 'alpha')).to.equal(undefined);
    expect(grants.get('key:a', 'beta')?.slug).to.equal('beta');
    grants.revoke('key:a');
    expect(grants.get('key:a', 'beta')).to.equal(undefined);
    expect(grants.get('key:b', 'alpha')?.slug).to.equal('alpha');
  });

  it('forgets the least recently granted credential and slug past its bounds', function () {
    const grants = new SearchGrants(2, 2);
    grants.grant('key:a', 'alpha', channel('alpha'));
    grants.grant('key:b', 'alpha', channel('alpha'));
    grants.grant('key:a', 'beta', channel('beta'));
    grants.grant('key:c', 'alpha', channel('alpha'));
    expect(grants.get('key:b', 'alpha')).to.equal(undefined);
    expect(grants.get('key:a', 'alpha')?.slug).to.equal('alpha');
    grants.grant('key:a', 'gamma', channel('gamma'));
    expect(grants.get('key:a', 'alpha')).to.equal(undefined);
    expect(grants.get('key:a', 'beta')?.slug).to.equal('beta');
    expect(grants.get('key:a', 'gamma')?.slug).to.equal('gamma');
  });

  it('keeps one copy of a channel for every credential, and a bounded number of channels', function () {
    const grants = new SearchGrants(10, 10, 1);
    grants.grant('key:a', 'alpha', channel('alpha'));
    grants.grant('key:b', 'alpha', channel('alpha', 'Read by b'));
    expect(grants.get('key:a', 'alpha')?.title).to.equal('Read by b');
    grants.grant('key:a', 'beta', channel('beta'));
    expect(grants.get('key:a', 'alpha')).to.equal(undefined);
    expect(grants.get('key:b', 'alpha')).to.equal(undefined);
    expect(grants.get('key:a', 'beta')?.slug).to.equal('beta');
  });
});
