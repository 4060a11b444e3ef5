import { UnrecoverableError } from 'bullmq';
import { expect } from 'chai';
import { defineErrors } from '../../core/ground/define-errors.js';

const CATALOGUE = {
  unreachable: { transient: true, message: 'the service could not be reached' },
  refused: { status: 403, message: 'the service refused' },
  port_in_use: { message: (port: number) => `port ${port} is in use` },
} as const;

describe('defineErrors', function () {
  const { Error: SampleError, describe: describeSample } = defineErrors('SampleError', CATALOGUE, {
    words: ({ code, status }) => (code === 'refused' && status === 401 ? 'the service refused our credentials' : undefined),
  });

  it('makes errors of the named class that carry their code, with the catalogue message unless one is given', function () {
    const plain = new SampleError('unreachable');
    expect(plain).to.be.instanceOf(SampleError).and.instanceOf(Error);
    expect(plain).to.include({ name: 'SampleError', code: 'unreachable', message: 'the service could not be reached' });
    expect(new SampleError('unreachable', 'connect ECONNREFUSED 127.0.0.1:1').message).to.equal('connect ECONNREFUSED 127.0.0.1:1');
    expect(new SampleError('unreachable', undefined, { detail: 'after 3 tries' }).message).to.equal('the service could not be reached: after 3 tries');
    expect(new SampleError('port_in_use', 'port 80 is in use').message).to.equal('port 80 is in use');
  });

  it('takes transient and status from the entry, lets one error say otherwise, and leaves out a status nobody gave', function () {
    expect(new SampleError('unreachable').transient).to.equal(true);
    expect(new SampleError('refused').transient).to.equal(false);
    expect(new SampleError('unreachable', undefined, { transient: false }).transient).to.equal(false);
    expect(new SampleError('refused').status).to.equal(403);
    expect(new SampleError('refused', undefined, { status: 401 }).status).to.equal(401);
    const unanswered = new SampleError('unreachable');
    expect(unanswered).not.to.have.property('status');
    expect(unanswered).not.to.have.property('retryAfterMs');
    expect(new SampleError('unreachable', undefined, { retryAfterMs: 2000 }).retryAfterMs).to.equal(2000);
  });

  it('keeps the cause, as Error does, also over a base that takes no options', function () {
    const cause = new Error('socket hang up');
    expect(new SampleError('unreachable', undefined, { cause }).cause).to.equal(cause);
    const { Error: FinalError } = defineErrors('FinalError', CATALOGUE, { Base: UnrecoverableError });
    const final = new FinalError('refused', 'no', { cause });
    expect(final).to.be.instanceOf(UnrecoverableError);
    expect(final).to.include({ name: 'FinalError', code: 'refused', message: 'no' });
    expect(final.cause).to.equal(cause);
    expect(Object.keys(final)).not.to.include('cause');
    expect(new SampleError('unreachable')).not.to.have.property('cause');
  });

  it('describes an error by its catalogue sentence, whatever its message, unless the catalogue words it otherwise', function () {
    expect(describeSample(new SampleError('unreachable', 'connect ECONNREFUSED 127.0.0.1:1'))).to.equal('the service could not be reached');
    expect(describeSample(new SampleError('refused', 'HTTP 401 from https://x.test', { status: 401 }))).to.equal('the service refused our credentials');
    expect(describeSample(new SampleError('refused', 'HTTP 403'))).to.equal('the service refused');
    expect(describeSample(new SampleError('port_in_use', 'port 80 is in use'))).to.equal('port 80 is in use');
  });

  it('lets a catalogue class extend it with its own fields and constructor', function () {
    class LocatedError extends defineErrors('LocatedError', CATALOGUE).Error {
      constructor(
        code: 'unreachable' | 'refused',
        readonly url: string,
      ) {
        super(code, `${url}: ${CATALOGUE[code].message}`);
      }
    }
    const err = new LocatedError('refused', 'https://x.test');
    expect(err).to.include({ name: 'LocatedError', code: 'refused', url: 'https://x.test', status: 403, message: 'https://x.test: the service refused' });
  });
});
