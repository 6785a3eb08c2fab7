// Core: X.509 certificates (RFC 5280) as kube's CSR signer issues them through Go's x509.CreateCertificate
// (kubernetes pkg/controller/certificates/authority, 1.32): version 3, a random 128-bit serial, the CA's raw
// subject as issuer, the request's subject (re-encoded as Go writes a pkix.Name) and public key, and Go's
// extensions in Go's order — keyUsage (critical), extKeyUsage, basicConstraints CA:FALSE (critical),
// authorityKeyIdentifier from the CA's subjectKeyIdentifier, subjectAltName (critical when the subject is
// empty). Also the few fields of the CA's own certificate the signer needs.

import { bitString, bool, children, concat, DerError, explicit, latin1, nul, octets, oid, oidText, readOne, seq, seqOf, tlv, TAG, unsignedInteger, type Tlv } from './der';
import { encodeName, isEmptyName, OID, type CertificateRequest } from './csr';

export interface CaCertificate {
  rawSubject: Uint8Array;
  subjectKeyId?: Uint8Array;
  notBefore: number; // ms since the epoch
  notAfter: number;
  publicKeyInfo: Uint8Array;
  publicKeyAlgorithm: string;
  publicKeyCurve?: string;
}

function parseTime(t: Tlv): number {
  const s = latin1(t.content);
  let m: RegExpExecArray | null;
  if (t.tag === TAG.UTC_TIME && (m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/.exec(s))) {
    const yy = Number(m[1]);
    return Date.UTC(yy < 50 ? 2000 + yy : 1900 + yy, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  if (t.tag === TAG.GENERALIZED_TIME && (m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/.exec(s))) {
    return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  throw new DerError('malformed time');
}

/** The CA certificate's issuer-side fields (x509.ParseCertificate, the parts the signer reads). */
export function parseCaCertificate(der: Uint8Array): CaCertificate {
  const [tbs] = children(readOne(der), TAG.SEQUENCE, 'certificate');
  let fields = children(tbs!, TAG.SEQUENCE, 'tbsCertificate');
  if (fields[0]?.tag === 0xa0) fields = fields.slice(1);
  const [, , , validity, subject, spki, ...rest] = fields;
  if (!validity || !subject || !spki) throw new DerError('malformed tbsCertificate');
  const [notBefore, notAfter] = children(validity, TAG.SEQUENCE, 'validity');
  const [keyAlg] = children(spki, TAG.SEQUENCE, 'subject public key info');
  const [keyAlgId, keyParams] = children(keyAlg!, TAG.SEQUENCE, 'public key algorithm');
  const ca: CaCertificate = {
    rawSubject: subject.bytes, notBefore: parseTime(notBefore!), notAfter: parseTime(notAfter!), publicKeyInfo: spki.bytes,
    publicKeyAlgorithm: oidText(keyAlgId!), publicKeyCurve: keyParams?.tag === TAG.OID ? oidText(keyParams) : undefined,
  };
  const extensions = rest.find((t) => t.tag === 0xa3);
  if (extensions) {
    for (const ext of children(readOne(extensions.content), TAG.SEQUENCE, 'extensions')) {
      const parts = children(ext, TAG.SEQUENCE, 'extension');
      if (oidText(parts[0]!) === '2.5.29.14') ca.subjectKeyId = readOne(parts[parts.length - 1]!.content).content.slice();
    }
  }
  return ca;
}

// x509.KeyUsage bits and ExtKeyUsage values (Go's enum order, which sorts them) for kube's usage names
// (pkg/controller/certificates/authority/policies.go keyUsageDict, extKeyUsageDict).
const KEY_USAGE: Record<string, number> = {
  'signing': 0, 'digital signature': 0, 'content commitment': 1, 'key encipherment': 2, 'key agreement': 4,
  'data encipherment': 3, 'cert sign': 5, 'crl sign': 6, 'encipher only': 7, 'decipher only': 8,
};
const EXT_KEY_USAGE: Record<string, [number, string]> = {
  'any': [0, '2.5.29.37.0'], 'server auth': [1, '1.3.6.1.5.5.7.3.1'], 'client auth': [2, '1.3.6.1.5.5.7.3.2'],
  'code signing': [3, '1.3.6.1.5.5.7.3.3'], 'email protection': [4, '1.3.6.1.5.5.7.3.4'], 's/mime': [4, '1.3.6.1.5.5.7.3.4'],
  'ipsec end system': [5, '1.3.6.1.5.5.7.3.5'], 'ipsec tunnel': [6, '1.3.6.1.5.5.7.3.6'], 'ipsec user': [7, '1.3.6.1.5.5.7.3.7'],
  'timestamping': [8, '1.3.6.1.5.5.7.3.8'], 'ocsp signing': [9, '1.3.6.1.5.5.7.3.9'],
  'microsoft sgc': [10, '1.3.6.1.4.1.311.10.3.3'], 'netscape sgc': [11, '2.16.840.1.113730.4.1'],
};

export interface Usages {
  keyUsage: number; // x509.KeyUsage bits
  extKeyUsages: string[]; // OIDs, in Go's order
}

/** keyUsagesFromStrings: the bits and extended usages, or kube's error for names it does not know. */
export function usagesFromStrings(usages: readonly string[]): Usages {
  let keyUsage = 0;
  const ext = new Map<number, string>();
  const unknown: string[] = [];
  for (const u of usages) {
    if (u in KEY_USAGE) keyUsage |= 1 << KEY_USAGE[u]!;
    else if (u in EXT_KEY_USAGE) ext.set(EXT_KEY_USAGE[u]![0], EXT_KEY_USAGE[u]![1]);
    else unknown.push(u);
  }
  if (unknown.length) throw new Error(`unrecognized usage values: [${unknown.map((u) => JSON.stringify(u)).join(' ')}]`);
  return { keyUsage, extKeyUsages: [...ext.entries()].sort((a, b) => a[0] - b[0]).map(([, o]) => o) };
}

// asn1 encodes a KeyUsage as a BIT STRING whose trailing zero bits are left out (x509 marshalKeyUsage).
function keyUsageBits(ku: number): Uint8Array {
  const rev = (b: number) => {
    let r = 0;
    for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 1 << (7 - i);
    return r;
  };
  const bytes = (ku >> 8) & 0xff ? Uint8Array.of(rev(ku & 0xff), rev((ku >> 8) & 0xff)) : Uint8Array.of(rev(ku & 0xff));
  let bits = bytes.length * 8;
  outer: for (let i = bytes.length - 1; i >= 0; i--) {
    for (let j = 0; j < 8; j++) {
      if ((bytes[i]! >> j) & 1) break outer;
      bits--;
    }
  }
  return bitString(bytes, bits);
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5, as Go writes them). */
function time(ms: number): Uint8Array {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  const y = d.getUTCFullYear();
  if (y >= 1950 && y < 2050) return tlv(TAG.UTC_TIME, new TextEncoder().encode(`${p(y % 100)}${rest}`));
  return tlv(TAG.GENERALIZED_TIME, new TextEncoder().encode(`${p(y, 4)}${rest}`));
}

const extension = (id: string, critical: boolean, value: Uint8Array): Uint8Array =>
  critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));

function subjectAltName(req: CertificateRequest): Uint8Array | undefined {
  const names: Uint8Array[] = [];
  const ia5 = (tag: number, s: string) => tlv(tag, Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff));
  for (const d of req.dnsNames) names.push(ia5(0x82, d));
  for (const e of req.emailAddresses) names.push(ia5(0x81, e));
  for (const ip of req.ipAddresses) {
    const mapped = ip.length === 16 && ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
    names.push(tlv(0x87, mapped ? ip.subarray(12) : ip));
  }
  for (const u of req.uris) names.push(ia5(0x86, u));
  return names.length ? seqOf(names) : undefined;
}

/** The signature AlgorithmIdentifier Go picks for a CA key: ECDSA by curve with its hash, RSA with SHA-256, Ed25519. */
export function signatureAlgorithmFor(ca: Pick<CaCertificate, 'publicKeyAlgorithm' | 'publicKeyCurve'>): { der: Uint8Array; hash: string } {
  if (ca.publicKeyAlgorithm === OID.ecPublicKey) {
    if (ca.publicKeyCurve === OID.p384) return { der: seq(oid('1.2.840.10045.4.3.3')), hash: 'SHA-384' };
    if (ca.publicKeyCurve === OID.p521) return { der: seq(oid('1.2.840.10045.4.3.4')), hash: 'SHA-512' };
    return { der: seq(oid('1.2.840.10045.4.3.2')), hash: 'SHA-256' };
  }
  if (ca.publicKeyAlgorithm === OID.rsaEncryption) return { der: seq(oid('1.2.840.113549.1.1.11'), nul()), hash: 'SHA-256' };
  if (ca.publicKeyAlgorithm === OID.ed25519) return { der: seq(oid(OID.ed25519)), hash: '' };
  throw new Error(`x509: unsupported CA key algorithm ${ca.publicKeyAlgorithm}`);
}

export interface IssueInput {
  ca: CaCertificate;
  req: CertificateRequest;
  serial: Uint8Array; // 16 random bytes (authority.go: a random serial below 2^128)
  notBefore: number;
  notAfter: number;
  usages: Usages;
}

/** The TBSCertificate's DER for x509.CreateCertificate with the template PermissiveSigningPolicy makes. */
export function tbsCertificate(i: IssueInput): Uint8Array {
  const exts: Uint8Array[] = [];
  if (i.usages.keyUsage) exts.push(extension('2.5.29.15', true, keyUsageBits(i.usages.keyUsage)));
  if (i.usages.extKeyUsages.length) exts.push(extension('2.5.29.37', false, seq(...i.usages.extKeyUsages.map(oid))));
  exts.push(extension('2.5.29.19', true, seq()));
  if (i.ca.subjectKeyId?.length) exts.push(extension('2.5.29.35', false, seq(tlv(0x80, i.ca.subjectKeyId))));
  const san = subjectAltName(i.req);
  const subject = encodeName(i.req.subject);
  if (san) exts.push(extension(OID.subjectAltName, isEmptyName(i.req.subject), san));
  return seq(
    explicit(0, unsignedInteger(Uint8Array.of(2))),
    unsignedInteger(i.serial),
    signatureAlgorithmFor(i.ca).der,
    i.ca.rawSubject,
    seq(time(i.notBefore), time(i.notAfter)),
    subject,
    i.req.publicKeyInfo,
    explicit(3, seq(...exts)),
  );
}

/** The certificate: TBS, algorithm, signature (a BIT STRING). */
export function assembleCertificate(tbs: Uint8Array, ca: CaCertificate, signature: Uint8Array): Uint8Array {
  return seq(tbs, signatureAlgorithmFor(ca).der, bitString(signature));
}

/** ECDSA signatures: WebCrypto's r‖s (IEEE P1363) to X.509's SEQUENCE { r INTEGER, s INTEGER }, and back. */
export function p1363ToDer(sig: Uint8Array): Uint8Array {
  const half = sig.length / 2;
  return seq(unsignedInteger(sig.subarray(0, half)), unsignedInteger(sig.subarray(half)));
}

export function derToP1363(der: Uint8Array, size: number): Uint8Array {
  const [r, s] = children(readOne(der), TAG.SEQUENCE, 'ECDSA signature');
  if (!r || !s || r.tag !== TAG.INTEGER || s.tag !== TAG.INTEGER) throw new DerError('malformed ECDSA signature');
  const fit = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const m = b.subarray(i);
    if (m.length > size) throw new DerError('malformed ECDSA signature');
    const out = new Uint8Array(size);
    out.set(m, size - m.length);
    return out;
  };
  return concat([fit(r.content), fit(s.content)]);
}
