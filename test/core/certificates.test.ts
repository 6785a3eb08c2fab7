// core/certificates on hostile input: truncated and over-long DER lengths, high-tag forms and trailing bytes are
// refused with a DerError (never read past the input), and a request with 200,000 subjectAltNames is read and made
// into a TBSCertificate in one linear pass (no argument spreads that would throw past the engine's limit).
import { describe, expect, it } from 'vitest';
import { DerError, readAll, readOne, seq, seqOf, tlv, TAG, utf8 } from '../../core/certificates/der';
import { emptyName, parseCertificateRequestDer, type CertificateRequest } from '../../core/certificates/csr';
import { tbsCertificate, usagesFromStrings, type CaCertificate } from '../../core/certificates/x509';

describe('DER on hostile input', () => {
  it('refuses lengths past the input, non-minimal or huge lengths, high tags and trailing bytes', () => {
    expect(() => readOne(Uint8Array.of(0x30, 0x05, 0x01))).toThrow(DerError);
    expect(() => readOne(Uint8Array.of(0x30, 0x84, 0xff, 0xff, 0xff, 0xff))).toThrow(DerError);
    expect(() => readOne(Uint8Array.of(0x30, 0x85, 1, 0, 0, 0, 0))).toThrow('unsupported length');
    expect(() => readOne(Uint8Array.of(0x30, 0x81, 0x05, 0, 0, 0, 0, 0))).toThrow('non-minimal length');
    expect(() => readOne(Uint8Array.of(0x1f, 0x01, 0x00))).toThrow('high-tag-number');
    expect(() => readOne(Uint8Array.of(0x05, 0x00, 0x00))).toThrow('trailing data');
    expect(() => parseCertificateRequestDer(seq(seq(), seq()))).toThrow(DerError);
    expect(readAll(Uint8Array.of(0x05, 0x00, 0x05, 0x00))).toHaveLength(2);
    // Lengths past 127 bytes round-trip.
    const big = tlv(TAG.OCTET_STRING, new Uint8Array(70_000));
    expect(readOne(big).content.length).toBe(70_000);
  });

  it('makes a certificate for 200,000 subjectAltNames in one pass', () => {
    const n = 200_000;
    const req: CertificateRequest = {
      subject: { ...emptyName(), commonName: 'many' }, publicKeyInfo: seq(), publicKeyAlgorithm: '1.2.840.10045.2.1',
      dnsNames: Array.from({ length: n }, (_, i) => `h${i}.example`), emailAddresses: [], ipAddresses: [], uris: [],
      signedBytes: new Uint8Array(), signatureAlgorithm: '', signature: new Uint8Array(),
    };
    const ca: CaCertificate = { rawSubject: seq(), notBefore: 0, notAfter: Date.UTC(2030, 0, 1), publicKeyInfo: seq(), publicKeyAlgorithm: '1.2.840.10045.2.1', publicKeyCurve: '1.2.840.10045.3.1.7' };
    const tbs = tbsCertificate({ ca, req, serial: new Uint8Array(16).fill(0xab), notBefore: Date.UTC(2026, 0, 1), notAfter: Date.UTC(2027, 0, 1), usages: usagesFromStrings(['client auth']) });
    expect(tbs.length).toBeGreaterThan(n * 12);
    expect(readOne(tbs).tag).toBe(TAG.SEQUENCE);
    expect(seqOf(Array.from({ length: n }, () => utf8('x'))).length).toBeGreaterThan(n);
  });

  it('names usages kube does not know as kube does', () => {
    expect(() => usagesFromStrings(['client auth', 'bogus', 'other'])).toThrow('unrecognized usage values: ["bogus" "other"]');
  });
});
