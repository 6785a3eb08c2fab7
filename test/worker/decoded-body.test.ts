// A write's decoded body is parsed once per request (worker/audit.ts decodedBodyObject): admission's ServiceAccount
// lookup and the audit filter share the parse of the text the handler recorded; any other text is parsed on its own.
import { describe, expect, it } from 'vitest';
import { decodedBodyObject, rememberDecodedBody } from '../../worker/audit';
import { serviceAccountNameIn } from '../../worker/admission-inputs';

const pod = (account?: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { serviceAccountName: account, containers: [] } });

describe('decodedBodyObject', () => {
  it('parses the recorded body once and shares it', () => {
    const req = new Request('http://x/api/v1/namespaces/a/pods', { method: 'POST' });
    const text = pod('builder');
    rememberDecodedBody(req, text);
    const first = decodedBodyObject(req, text);
    expect(first).toEqual(JSON.parse(text));
    expect(decodedBodyObject(req, `${text}`)).toBe(first); // an equal string is the same body
  });

  it('parses another text (a webhook-patched body) on its own, and a request with none recorded', () => {
    const req = new Request('http://x/', { method: 'POST' });
    rememberDecodedBody(req, pod('one'));
    expect(decodedBodyObject(req, pod('two'))).toEqual(JSON.parse(pod('two')));
    expect(decodedBodyObject(req, pod('one'))).toEqual(JSON.parse(pod('one')));
    expect(decodedBodyObject(new Request('http://x/'), pod('three'))).toEqual(JSON.parse(pod('three')));
    expect(decodedBodyObject(new Request('http://x/'), '{not json')).toBeUndefined();
  });

  it('gives admission the same account name as reading the body itself', () => {
    for (const [body, want] of [[pod('builder'), 'builder'], [pod(), ''], ['{"spec":{"serviceAccount":"old"}}', 'old'], ['{"spec":{"serviceAccountName":7}}', ''], ['[1]', ''], ['null', '']] as const) {
      const req = new Request('http://x/', { method: 'POST' });
      rememberDecodedBody(req, body);
      expect([body, serviceAccountNameIn(body, () => decodedBodyObject(req, body))]).toEqual([body, want]);
      expect([body, serviceAccountNameIn(body)]).toEqual([body, want]);
    }
  });
});
