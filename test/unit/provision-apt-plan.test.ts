// A fresh machine gets Java and Maven the way it gets Redis and Chromium: Debian's packages when root on Debian or
// Ubuntu, otherwise a message that names the missing tool and the package to install.
import { expect } from 'chai';
import { hasCandidate, isDebianLike, planAptInstall } from '../../scripts/ops/provision/apt.js';
import { createProvisionError } from '../../scripts/ops/provision/errors.js';
import { MAVEN_PACKAGE } from '../../scripts/ops/provision/maven.js';
import { JDK_PACKAGE } from '../../scripts/ops/provision/opensearch-install.js';

const DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';
const UBUNTU = 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\n';
const MINT = 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\n';
const FEDORA = 'NAME="Fedora Linux"\nID=fedora\nVERSION_ID=41\n';

describe('provisioning a missing tool from Debian packages', function () {
  it('recognises Debian, Ubuntu and their derivatives from os-release, and nothing else', function () {
    expect([DEBIAN, UBUNTU, MINT].map(isDebianLike)).to.deep.equal([true, true, true]);
    expect([FEDORA, 'ID=arch\n', ''].map(isDebianLike)).to.deep.equal([false, false, false]);
  });

  it('installs the JDK with apt-get when root on Debian or Ubuntu', function () {
    for (const osRelease of [DEBIAN, UBUNTU]) {
      expect(planAptInstall([JDK_PACKAGE], { root: true, osRelease })).to.deep.equal({ action: 'install', packages: [JDK_PACKAGE] });
    }
    expect(planAptInstall([MAVEN_PACKAGE], { root: true, osRelease: DEBIAN })).to.deep.equal({ action: 'install', packages: ['maven'] });
  });

  it('refuses when not root, with a message naming the missing tool and the package to install', function () {
    const java = planAptInstall([JDK_PACKAGE], { root: false, osRelease: DEBIAN });
    expect(java.action).to.equal('refuse');
    const javaMessage = createProvisionError('java_not_found', '', java.action === 'refuse' ? java.fix : '').message;
    expect(javaMessage).to.match(/^no Java 17-23 found: /);
    expect(javaMessage).to.include('apt-get install openjdk-17-jdk-headless');
    expect(javaMessage).to.include('OPENSEARCH_JAVA_HOME');

    const maven = planAptInstall([MAVEN_PACKAGE], { root: false, osRelease: UBUNTU });
    expect(maven.action).to.equal('refuse');
    const mavenMessage = createProvisionError('maven_missing', maven.action === 'refuse' ? maven.fix : '').message;
    expect(mavenMessage).to.match(/^mvn \(Maven\) is not installed/);
    expect(mavenMessage).to.include('apt-get install maven');
  });

  it('refuses off Debian and Ubuntu even as root, naming the package without an apt-get command', function () {
    const plan = planAptInstall([JDK_PACKAGE], { root: true, osRelease: FEDORA });
    expect(plan.action).to.equal('refuse');
    const fix = plan.action === 'refuse' ? plan.fix : '';
    expect(fix).to.include('openjdk-17-jdk-headless').and.not.include('apt-get');
  });

  it('takes a package the archive lists without a candidate version as unavailable', function () {
    expect(hasCandidate('openjdk-17-jdk-headless:\n  Installed: (none)\n  Candidate: 17.0.21.1+2-1~deb12u1\n')).to.equal(true);
    expect(hasCandidate('openjdk-17-jdk-headless:\n  Installed: (none)\n  Candidate: (none)\n')).to.equal(false);
    expect(hasCandidate('')).to.equal(false);
  });
});
