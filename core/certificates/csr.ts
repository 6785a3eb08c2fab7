// Core: PKCS#10 certificate requests (RFC 2986) as Go's x509.ParseCertificateRequest reads them — the subject
// (pkix.Name's fields), the public key, the subjectAltName extension of the extensionRequest attribute, the
// signature and what it covers — and the subject re-encoded as Go's pkix.Name.ToRDNSequence writes it into the
// certificates kube's signer issues (its known attribute types only, in Go's order, one RDN per type).

import { bitStringBytes, children, DerError, latin1, oid, oidText, readAll, readOne, seq, seqOf, setOf, stringValue, TAG, tlv, utf8, type Tlv } from './der';
import { decodePem } from './pem';

/** pkix.Name's fields, as Go fills them from an RDN sequence. */
export interface Name {
  country: string[];
  province: string[];
  locality: string[];
  streetAddress: string[];
  postalCode: string[];
  organization: string[];
  organizationalUnit: string[];
  commonName: string;
  serialNumber: string;
}

export interface CertificateRequest {
  subject: Name;
  publicKeyInfo: Uint8Array; // the SubjectPublicKeyInfo's DER, copied into the certificate
  publicKeyAlgorithm: string; // its algorithm OID
  publicKeyCurve?: string; // id-ecPublicKey's named curve OID
  dnsNames: string[];
  emailAddresses: string[];
  ipAddresses: Uint8Array[]; // 4 or 16 bytes
  uris: string[];
  signedBytes: Uint8Array; // the CertificationRequestInfo's DER
  signatureAlgorithm: string; // OID
  signature: Uint8Array;
}

export const OID = {
  commonName: '2.5.4.3', serialNumber: '2.5.4.5', country: '2.5.4.6', locality: '2.5.4.7', province: '2.5.4.8',
  streetAddress: '2.5.4.9', organization: '2.5.4.10', organizationalUnit: '2.5.4.11', postalCode: '2.5.4.17',
  extensionRequest: '1.2.840.113549.1.9.14', subjectAltName: '2.5.29.17',
  ecPublicKey: '1.2.840.10045.2.1', rsaEncryption: '1.2.840.113549.1.1.1', ed25519: '1.3.101.112',
  p256: '1.2.840.10045.3.1.7', p384: '1.3.132.0.34', p521: '1.3.132.0.35',
} as const;

const NAME_FIELDS: Record<string, keyof Name> = {
  [OID.country]: 'country', [OID.province]: 'province', [OID.locality]: 'locality', [OID.streetAddress]: 'streetAddress',
  [OID.postalCode]: 'postalCode', [OID.organization]: 'organization', [OID.organizationalUnit]: 'organizationalUnit',
};

export const emptyName = (): Name => ({
  country: [], province: [], locality: [], streetAddress: [], postalCode: [], organization: [], organizationalUnit: [], commonName: '', serialNumber: '',
});

/** pkix.Name.FillFromRDNSequence: known types into their fields (the last CN and serialNumber win), others ignored. */
export function parseName(t: Tlv): Name {
  const name = emptyName();
  for (const rdn of children(t, TAG.SEQUENCE, 'name')) {
    for (const atv of children(rdn, TAG.SET, 'relative distinguished name')) {
      const [type, value] = children(atv, TAG.SEQUENCE, 'attribute');
      if (!type || !value) throw new DerError('malformed attribute');
      const id = oidText(type);
      if (id === OID.commonName) name.commonName = stringValue(value);
      else if (id === OID.serialNumber) name.serialNumber = stringValue(value);
      else if (NAME_FIELDS[id]) (name[NAME_FIELDS[id]!] as string[]).push(stringValue(value));
    }
  }
  return name;
}

// Go's asn1 PrintableString alphabet when marshalling (no '*', no '&'): other strings are UTF8String.
const isPrintable = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || ' \'()+,-./:=?'.includes(s[i]!);
    if (!ok) return false;
  }
  return true;
};

const directoryString = (s: string): Uint8Array => tlv(isPrintable(s) ? TAG.PRINTABLE_STRING : TAG.UTF8_STRING, utf8(s));

/** pkix.Name.ToRDNSequence: C, ST, L, STREET, POSTALCODE, O, OU, CN, SERIALNUMBER, each type one RDN. */
export function encodeName(n: Name): Uint8Array {
  const rdns: Uint8Array[] = [];
  const add = (values: readonly string[], type: string) => {
    if (values.length) rdns.push(setOf(values.map((v) => seq(oid(type), directoryString(v)))));
  };
  add(n.country, OID.country);
  add(n.province, OID.province);
  add(n.locality, OID.locality);
  add(n.streetAddress, OID.streetAddress);
  add(n.postalCode, OID.postalCode);
  add(n.organization, OID.organization);
  add(n.organizationalUnit, OID.organizationalUnit);
  if (n.commonName) add([n.commonName], OID.commonName);
  if (n.serialNumber) add([n.serialNumber], OID.serialNumber);
  return seqOf(rdns);
}

export const isEmptyName = (n: Name): boolean => encodeName(n).length === 2;

/** The GeneralNames of a subjectAltName extension value. */
function parseSans(value: Uint8Array, into: CertificateRequest): void {
  for (const gn of children(readOne(value), TAG.SEQUENCE, 'subjectAltName')) {
    const text = () => latin1(gn.content);
    switch (gn.tag) {
      case 0x81: into.emailAddresses.push(text()); break;
      case 0x82: into.dnsNames.push(text()); break;
      case 0x86: into.uris.push(text()); break;
      case 0x87:
        if (gn.content.length !== 4 && gn.content.length !== 16) throw new DerError(`invalid IP length ${gn.content.length}`);
        into.ipAddresses.push(gn.content.slice());
        break;
      default: // other names are kept out of the certificate, as Go's parser drops them
    }
  }
}

/** x509.ParseCertificateRequest over DER. */
export function parseCertificateRequestDer(der: Uint8Array): CertificateRequest {
  const [info, sigAlg, sig] = children(readOne(der), TAG.SEQUENCE, 'certificate request');
  if (!info || !sigAlg || !sig) throw new DerError('malformed certificate request');
  const [version, subject, spki, attrs] = children(info, TAG.SEQUENCE, 'certification request info');
  if (!version || !subject || !spki) throw new DerError('malformed certification request info');
  if (version.tag !== TAG.INTEGER || version.content.length !== 1 || version.content[0] !== 0) throw new DerError('unsupported certificate request version');
  const [keyAlg] = children(spki, TAG.SEQUENCE, 'subject public key info');
  const [keyAlgId, keyParams] = children(keyAlg!, TAG.SEQUENCE, 'public key algorithm');
  const [sigAlgId] = children(sigAlg, TAG.SEQUENCE, 'signature algorithm');
  const req: CertificateRequest = {
    subject: parseName(subject),
    publicKeyInfo: spki.bytes,
    publicKeyAlgorithm: oidText(keyAlgId!),
    publicKeyCurve: keyParams?.tag === TAG.OID ? oidText(keyParams) : undefined,
    dnsNames: [], emailAddresses: [], ipAddresses: [], uris: [],
    signedBytes: info.bytes,
    signatureAlgorithm: oidText(sigAlgId!),
    signature: bitStringBytes(sig),
  };
  // attributes [0] IMPLICIT SET OF Attribute: the extensionRequest's subjectAltName.
  if (attrs && attrs.tag === 0xa0) {
    for (const attr of readAll(attrs.content)) {
      const [type, values] = children(attr, TAG.SEQUENCE, 'attribute');
      if (!type || !values || oidText(type) !== OID.extensionRequest) continue;
      for (const exts of children(values, TAG.SET, 'attribute values')) {
        for (const ext of children(exts, TAG.SEQUENCE, 'extensions')) {
          const parts = children(ext, TAG.SEQUENCE, 'extension');
          const value = parts[parts.length - 1];
          if (!parts[0] || !value || value.tag !== TAG.OCTET_STRING) throw new DerError('malformed extension');
          if (oidText(parts[0]) === OID.subjectAltName) parseSans(value.content, req);
        }
      }
    }
  }
  return req;
}

/** certificates.ParseCSR: the first PEM block must be a CERTIFICATE REQUEST. Throws with Go's message. */
export function parseCsrPem(pem: Uint8Array): CertificateRequest {
  const block = decodePem(new TextDecoder().decode(pem));
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  try {
    return parseCertificateRequestDer(block.der);
  } catch (e) {
    if (e instanceof DerError || e instanceof TypeError) throw new Error(`x509: malformed certificate request: ${e.message}`);
    throw e;
  }
}

/** Go's net.IP.String for 4- and 16-byte addresses (IPv4-mapped IPv6 printed as IPv4). */
export function ipText(ip: Uint8Array): string {
  if (ip.length === 4) return Array.from(ip).join('.');
  if (ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff) return Array.from(ip.subarray(12)).join('.');
  const words = Array.from({ length: 8 }, (_, i) => (ip[2 * i]! << 8) | ip[2 * i + 1]!);
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  return best < 0 ? hex(words) : `${hex(words.slice(0, best))}::${hex(words.slice(best + bestLen))}`;
}
