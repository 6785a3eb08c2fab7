// Audit events: kube's field order and omissions, MicroTime stamps, source addresses, the user-agent cap,
// the response status, and the truncation that bounds one event; the buffer that bounds them all.
import { describe, expect, it } from 'vitest';
import { atStage, microTime, responseStatus, serializeEvent, sourceIPs, truncateUserAgent, type AuditEvent } from '../../../core/audit/event';
import { AuditBuffer } from '../../../core/audit/buffer';
import { forbidden } from '../../../core/status';

const T0 = Date.parse('2026-05-01T10:00:00.123Z');
const event = (o: Partial<AuditEvent> = {}): AuditEvent => ({
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'id-1', stage: 'RequestReceived', requestURI: '/api/v1/namespaces/ns/pods/p',
  verb: 'delete', user: { username: 'alice', groups: ['system:authenticated'] }, requestReceivedTimestamp: microTime(T0), stageTimestamp: '', ...o,
});

describe('audit events', () => {
  it('stamps MicroTime with six digits', () => {
    expect(microTime(T0)).toBe('2026-05-01T10:00:00.123000Z');
  });

  it('writes fields in the Go struct\'s order whatever order they were filled in', () => {
    const ev = event({ annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' } });
    ev.objectRef = { subresource: '', name: 'p', namespace: 'ns', resource: 'pods', apiVersion: 'v1', apiGroup: '' };
    ev.responseStatus = responseStatus(200);
    ev.impersonatedUser = { username: 'jane', groups: ['system:authenticated'] };
    ev.userAgent = 'kubectl/v1.32.0';
    ev.sourceIPs = ['127.0.0.1'];
    const out = atStage(ev, 'ResponseComplete', T0 + 5);
    expect(Object.keys(out)).toEqual(['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'sourceIPs',
      'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    expect(out.objectRef).toEqual({ resource: 'pods', namespace: 'ns', name: 'p', apiVersion: 'v1' });
    expect(JSON.stringify(out.objectRef)).toBe('{"resource":"pods","namespace":"ns","name":"p","apiVersion":"v1"}');
    expect(out.stageTimestamp).toBe('2026-05-01T10:00:00.128000Z');
    expect(atStage(ev, 'RequestReceived', T0 + 5).stageTimestamp).toBe(ev.requestReceivedTimestamp);
    // Later changes to the request's event do not reach an event already emitted.
    ev.annotations!.extra = 'x';
    expect(out.annotations).toEqual({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
  });

  it('copies an error Status\'s fields into responseStatus, and only the code of anything else', () => {
    expect(JSON.stringify(responseStatus(200))).toBe('{"metadata":{},"code":200}');
    const s = forbidden({ group: '', resource: 'pods' }, 'p', 'User "bob" cannot delete resource "pods"');
    expect(responseStatus(403, s)).toEqual({ metadata: {}, status: 'Failure', message: s.message, reason: 'Forbidden', details: { name: 'p', kind: 'pods' }, code: 403 });
    expect(responseStatus(200, { metadata: {} } as never)).toEqual({ metadata: {}, code: 200 });
  });

  it('records forwarded, real and connecting addresses as utilnet.SourceIPs does, ignoring garbage', () => {
    expect(sourceIPs('10.0.0.1, bogus, 2001:DB8::1', null, '127.0.0.1')).toEqual(['10.0.0.1', '2001:db8::1', '127.0.0.1']);
    expect(sourceIPs(null, '192.168.1.1', '192.168.1.1')).toEqual(['192.168.1.1']);
    expect(sourceIPs('1.2.3.4', '1.2.3.4', null)).toEqual(['1.2.3.4']);
    expect(sourceIPs('300.1.1.1', null, null)).toEqual([]);
    expect(sourceIPs(Array.from({ length: 10_000 }, () => '1.1.1.1').join(','), null, null)).toHaveLength(16);
  });

  it('truncates a user agent past 1024 characters as kube does', () => {
    expect(truncateUserAgent('a'.repeat(1024))).toBe('a'.repeat(1024));
    expect(truncateUserAgent('a'.repeat(2000))).toBe(`${'a'.repeat(1024)}...TRUNCATED`);
  });

  it('drops request and response objects from an event too large, and the event when that is not enough', () => {
    const big = event({ requestObject: { data: 'x'.repeat(5000) } });
    const out = serializeEvent(big, 2000)!;
    expect(out.truncated).toBe(true);
    expect(JSON.parse(out.line).requestObject).toBeUndefined();
    expect(JSON.parse(out.line).annotations).toEqual({ 'audit.k8s.io/truncated': 'true' });
    expect(serializeEvent(event({ requestURI: `/${'p'.repeat(5000)}` }), 2000)).toBeUndefined();
    expect(serializeEvent(event(), 2000)!.truncated).toBe(false);
  });
});

describe('audit buffer', () => {
  const limits = { queueBytes: 10_000, ringBytes: 20_000, maxEventBytes: 4096 };
  it('drops and counts events once the queue is full, without blocking', () => {
    const b = new AuditBuffer();
    let accepted = 0;
    for (let i = 0; i < 100; i++) if (b.enqueue(event({ auditID: `a${i}` }), 1000, limits)) accepted++;
    expect(accepted).toBe(10);
    expect(b.counters.dropped).toBe(90);
    b.flush(limits, undefined);
    expect(b.counters.events).toBe(10);
    expect(b.enqueue(event(), 1000, limits)).toBe(true); // room again after a flush
  });

  it('keeps the newest serialized events within its byte budget and pages them by number or time', () => {
    const b = new AuditBuffer();
    const written: string[] = [];
    for (let i = 0; i < 200; i++) {
      b.enqueue(atStage(event({ auditID: `a${i}` }), 'ResponseComplete', T0 + i * 1000), 100, limits);
      if (i % 10 === 9) b.flush(limits, (l) => written.push(l));
    }
    expect(written).toHaveLength(200);
    expect(b.keptBytes).toBeLessThanOrEqual(limits.ringBytes);
    expect(b.counters.evicted).toBeGreaterThan(0);
    const all = b.read({}, 1000);
    expect(all.lines.length).toBe(200 - b.counters.evicted);
    expect(JSON.parse(all.lines.at(-1)!).auditID).toBe('a199');
    const after = b.read({ seq: 195 }, 1000);
    expect(after.lines.map((l) => JSON.parse(l).auditID)).toEqual(['a195', 'a196', 'a197', 'a198', 'a199']);
    expect(after.last).toBe(200);
    expect(b.read({ seq: 195 }, 2).lines).toHaveLength(2);
    expect(b.read({ seq: 200 }, 10)).toEqual({ lines: [], last: 200, oldest: all.oldest });
    const since = b.read({ time: microTime(T0 + 198_000) }, 10);
    expect(since.lines.map((l) => JSON.parse(l).auditID)).toEqual(['a198', 'a199']);
  });
});
