import { expect } from 'chai';
import { installNeeds, OPENSEARCH_VERSION } from '../../scripts/ops/provision/opensearch-install.js';

describe('OpenSearch install upgrades', function () {
  const current = { opensearch: OPENSEARCH_VERSION, knn: `${OPENSEARCH_VERSION}.0`, modules: [], builtAt: '' };

  it('adds the neural-search plugin to an install made before it was part of the install', function () {
    expect(installNeeds(current)).to.equal('plugins');
  });

  it('leaves a complete install alone', function () {
    expect(installNeeds({ ...current, neuralSearch: `${OPENSEARCH_VERSION}.0` })).to.equal('nothing');
  });

  it('builds from scratch when there is no install or it is of another version', function () {
    expect(installNeeds(undefined)).to.equal('build');
    expect(installNeeds({ ...current, opensearch: '2.18.0', knn: '2.18.0.0' })).to.equal('build');
  });
});
