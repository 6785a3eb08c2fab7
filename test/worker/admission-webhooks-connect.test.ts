// worker/admission-webhooks-connect.ts: the options object a CONNECT request is admitted with, as kube's query
// decoding makes PodExecOptions, PodAttachOptions, PodPortForwardOptions and the proxy options.
import { describe, expect, it } from 'vitest';
import { connectOptions } from '../../worker/admission-webhooks-connect';
import { lookupGroupResource } from '../../core/registry';
import { kindOf } from '../../core/admission/match';

const pods = lookupGroupResource('core/pods')!;
const services = lookupGroupResource('core/services')!;
const q = (s: string) => new URLSearchParams(s);

describe('connectOptions', () => {
  it('exec: booleans as Go converts them, the container, every command part', () => {
    expect(connectOptions(pods, 'exec', q('stdin=true&stdout=1&stderr=false&tty=f&container=c&command=sh&command=-c&command=id'), undefined)).toEqual({
      kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, stdout: true, container: 'c', command: ['sh', '-c', 'id'],
    });
    expect(connectOptions(pods, 'exec', q(''), undefined)).toEqual({ kind: 'PodExecOptions', apiVersion: 'v1', command: [] });
  });
  it('attach, portforward and proxy', () => {
    expect(connectOptions(pods, 'attach', q('stdin=true&container=c'), undefined)).toEqual({ kind: 'PodAttachOptions', apiVersion: 'v1', stdin: true, container: 'c' });
    expect(connectOptions(pods, 'portforward', q('ports=8080,9090&ports=x&ports=70000'), undefined)).toEqual({ kind: 'PodPortForwardOptions', apiVersion: 'v1', ports: [8080, 9090, 70000] });
    expect(connectOptions(pods, 'proxy', q(''), 'metrics/x')).toEqual({ kind: 'PodProxyOptions', apiVersion: 'v1', path: 'metrics/x' });
    expect(connectOptions(services, 'proxy', q('path=/a'), undefined)).toEqual({ kind: 'ServiceProxyOptions', apiVersion: 'v1', path: '/a' });
  });
  it('the AdmissionReview kind of a connect subresource is its options kind', () => {
    expect(kindOf(pods, 'exec')).toEqual({ group: '', version: 'v1', kind: 'PodExecOptions' });
    expect(kindOf(services, 'proxy')).toEqual({ group: '', version: 'v1', kind: 'ServiceProxyOptions' });
  });
});
