import { expect } from 'chai';
import { clusterNodeSettings, clusterNodeSpecs, LOCAL_CLUSTER, settingsYaml, singleNodeSettings, SINGLE_NODE_CLUSTER } from '../../scripts/ops/provision/opensearch-config.js';

describe('OpenSearch node config', function () {
  const specs = clusterNodeSpecs('/run/cluster', [
    { port: 9201, transportPort: 9301 },
    { port: 9202, transportPort: 9302 },
    { port: 9203, transportPort: 9303 },
  ]);

  it('writes the single node as before the cluster existed, with its snapshot folder beside its data (path.repo)', function () {
    const yaml = settingsYaml(singleNodeSettings({ name: 'local-1', port: 9200, transportPort: 9300, dir: '/run/opensearch' }));
    expect(yaml.split('\n').slice(1).join('\n')).to.equal(
      [
        `cluster.name: "${SINGLE_NODE_CLUSTER}"`,
        'node.name: "local-1"',
        'discovery.type: "single-node"',
        'network.host: "127.0.0.1"',
        'http.port: 9200',
        'transport.port: 9300',
        'path.data: "/run/opensearch/data"',
        'path.logs: "/run/opensearch/logs"',
        'cluster.routing.allocation.disk.threshold_enabled: false',
        'path.repo: ["/run/opensearch/snapshots"]',
        '',
      ].join('\n'),
    );
  });

  it('gives each cluster node its own name, ports and folder', function () {
    expect(specs.map((n) => [n.name, n.port, n.transportPort, n.dir])).to.deep.equal([
      ['local-1', 9201, 9301, '/run/cluster/node-1'],
      ['local-2', 9202, 9302, '/run/cluster/node-2'],
      ['local-3', 9203, 9303, '/run/cluster/node-3'],
    ]);
    const second = clusterNodeSettings(specs[1]!, specs, { bootstrap: false });
    expect(second).to.include({ 'node.name': 'local-2', 'http.port': 9202, 'transport.port': 9302, 'path.data': '/run/cluster/node-2/data' });
  });

  it('lets cluster nodes find each other through every transport port, under a name the single node never uses', function () {
    const settings = clusterNodeSettings(specs[0]!, specs, { bootstrap: true });
    expect(settings['cluster.name']).to.equal(LOCAL_CLUSTER).and.not.equal(SINGLE_NODE_CLUSTER);
    expect(settings['discovery.seed_hosts']).to.deep.equal(['127.0.0.1:9301', '127.0.0.1:9302', '127.0.0.1:9303']);
    expect(settings).not.to.have.property('discovery.type');
    expect(settings['node.roles']).to.deep.equal(['cluster_manager', 'data', 'ingest']);
    expect(settingsYaml(settings)).to.include('discovery.seed_hosts: ["127.0.0.1:9301","127.0.0.1:9302","127.0.0.1:9303"]\n');
  });

  it('names the initial cluster-managers only on a node’s first start', function () {
    expect(clusterNodeSettings(specs[2]!, specs, { bootstrap: true })['cluster.initial_cluster_manager_nodes']).to.deep.equal(['local-1', 'local-2', 'local-3']);
    expect(clusterNodeSettings(specs[2]!, specs, { bootstrap: false })).not.to.have.property('cluster.initial_cluster_manager_nodes');
  });
});
