// Core: the WebCrypto side of kube's CSR signer, with the SubtleCrypto passed in: the CA's private key imported
// from PEM (PKCS#8, or SEC1 "EC PRIVATE KEY" / PKCS#1 "RSA PRIVATE KEY" wrapped into PKCS#8) for the algorithm of
// the CA certificate's key, checked against that certificate (tls.X509KeyPair's "private key does not match
// public key"); a TBSCertificate signed as Go signs it (ECDSA signatures DER-encoded); and a request's own
// signature checked as x509.CertificateRequest.CheckSignature does (SHA-1 refused as insecure).

import { children, DerError, oid, readOne, seq, smallInteger, TAG, octets } from './der';
import { OID, type CertificateRequest } from './csr';
import { decodePem } from './pem';
import { derToP1363, p1363ToDer, signatureAlgorithmFor, type CaCertificate } from './x509';

type Algorithm = RsaHashedImportParams | EcKeyImportParams | { name: 'Ed25519' };

const CURVES: Record<string, [string, number]> = { [OID.p256]: ['P-256', 32], [OID.p384]: ['P-384', 48], [OID.p521]: ['P-521', 66] };

function importParams(keyAlgorithm: string, curve: string | undefined, hash: string): Algorithm {
  if (keyAlgorithm === OID.ecPublicKey) {
    const c = curve && CURVES[curve];
    if (!c) throw new Error(`x509: unsupported elliptic curve ${curve ?? ''}`);
    return { name: 'ECDSA', namedCurve: c[0] };
  }
  if (keyAlgorithm === OID.rsaEncryption) return { name: 'RSASSA-PKCS1-v1_5', hash };
  if (keyAlgorithm === OID.ed25519) return { name: 'Ed25519' };
  throw new Error(`x509: unsupported public key algorithm ${keyAlgorithm}`);
}

const buf = (b: Uint8Array): ArrayBuffer => b.slice().buffer as ArrayBuffer;

export interface CaKey {
  ca: CaCertificate;
  key: CryptoKey;
}

/** The CA's private key from PEM, for its certificate's key algorithm; refused when it is not that certificate's key. */
export async function importCaKey(subtle: SubtleCrypto, pemKey: string, ca: CaCertificate): Promise<CaKey> {
  const block = decodePem(pemKey);
  if (!block) throw new Error('failed to find any PEM data in key input');
  const { hash } = signatureAlgorithmFor(ca);
  const params = importParams(ca.publicKeyAlgorithm, ca.publicKeyCurve, hash);
  let pkcs8: Uint8Array;
  if (block.type === 'PRIVATE KEY') pkcs8 = block.der;
  else if (block.type === 'EC PRIVATE KEY') {
    // SEC1 inside PKCS#8; WebCrypto wants the curve in the AlgorithmIdentifier and none in the inner key.
    const [version, priv, ...rest] = children(readOne(block.der), TAG.SEQUENCE, 'EC private key');
    const pub = rest.find((t) => t.tag === 0xa1);
    const inner = seq(...[version!.bytes, priv!.bytes, ...(pub ? [pub.bytes] : [])]);
    pkcs8 = seq(smallInteger(0), seq(oid(OID.ecPublicKey), oid(ca.publicKeyCurve ?? OID.p256)), octets(inner));
  } else if (block.type === 'RSA PRIVATE KEY') {
    pkcs8 = seq(smallInteger(0), seq(oid(OID.rsaEncryption), Uint8Array.of(TAG.NULL, 0)), octets(block.der));
  } else throw new Error(`unsupported private key type ${JSON.stringify(block.type)}`);
  let key: CryptoKey;
  try {
    key = await subtle.importKey('pkcs8', buf(pkcs8), params, false, ['sign']);
  } catch (e) {
    throw new Error(`tls: failed to parse private key: ${(e as Error).message}`);
  }
  const caKey = { ca, key };
  // tls.X509KeyPair: the key must be the certificate's.
  const probe = new TextEncoder().encode('edgeplane CA key check');
  const signature = await signData(subtle, caKey, probe);
  if (!(await verifyData(subtle, ca.publicKeyInfo, ca.publicKeyAlgorithm, ca.publicKeyCurve, hash, probe, signature))) {
    throw new Error('tls: private key does not match public key');
  }
  return caKey;
}

function signParams(alg: Algorithm, hash: string): AlgorithmIdentifier | EcdsaParams {
  return alg.name === 'ECDSA' ? { name: 'ECDSA', hash } : { name: alg.name };
}

/** The CA's signature over `data`, as X.509 carries it. */
export async function signData(subtle: SubtleCrypto, { ca, key }: CaKey, data: Uint8Array): Promise<Uint8Array> {
  const { hash } = signatureAlgorithmFor(ca);
  const alg = importParams(ca.publicKeyAlgorithm, ca.publicKeyCurve, hash);
  const sig = new Uint8Array(await subtle.sign(signParams(alg, hash), key, buf(data)));
  return alg.name === 'ECDSA' ? p1363ToDer(sig) : sig;
}

async function verifyData(subtle: SubtleCrypto, spki: Uint8Array, keyAlgorithm: string, curve: string | undefined, hash: string, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  const alg = importParams(keyAlgorithm, curve, hash);
  const key = await subtle.importKey('spki', buf(spki), alg, false, ['verify']);
  let sig = signature;
  if (alg.name === 'ECDSA') sig = derToP1363(signature, CURVES[curve!]![1]);
  return subtle.verify(signParams(alg, hash), key, buf(sig), buf(data));
}

// x509's signature algorithms a request may use: OID → [hash, key algorithm, Go's name].
const SIGNATURE_ALGORITHMS: Record<string, [string, string, string]> = {
  '1.2.840.10045.4.3.2': ['SHA-256', OID.ecPublicKey, 'ECDSA-SHA256'],
  '1.2.840.10045.4.3.3': ['SHA-384', OID.ecPublicKey, 'ECDSA-SHA384'],
  '1.2.840.10045.4.3.4': ['SHA-512', OID.ecPublicKey, 'ECDSA-SHA512'],
  '1.2.840.113549.1.1.11': ['SHA-256', OID.rsaEncryption, 'SHA256-RSA'],
  '1.2.840.113549.1.1.12': ['SHA-384', OID.rsaEncryption, 'SHA384-RSA'],
  '1.2.840.113549.1.1.13': ['SHA-512', OID.rsaEncryption, 'SHA512-RSA'],
  [OID.ed25519]: ['', OID.ed25519, 'Ed25519'],
};
const INSECURE: Record<string, string> = { '1.2.840.113549.1.1.5': 'SHA1-RSA', '1.2.840.10045.4.1': 'ECDSA-SHA1', '1.2.840.113549.1.1.4': 'MD5-RSA' };

/** CertificateRequest.CheckSignature: throws Go's error when the request is not signed by its own key. */
export async function checkRequestSignature(subtle: SubtleCrypto, req: CertificateRequest): Promise<void> {
  if (INSECURE[req.signatureAlgorithm]) throw new Error(`x509: cannot verify signature: insecure algorithm ${INSECURE[req.signatureAlgorithm]}`);
  const alg = SIGNATURE_ALGORITHMS[req.signatureAlgorithm];
  if (!alg) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  if (alg[1] !== req.publicKeyAlgorithm) throw new Error(`x509: signature algorithm specifies an ${alg[1] === OID.rsaEncryption ? 'RSA' : alg[1] === OID.ecPublicKey ? 'ECDSA' : 'Ed25519'} public key, but have public key of type ${req.publicKeyAlgorithm === OID.rsaEncryption ? '*rsa.PublicKey' : req.publicKeyAlgorithm === OID.ecPublicKey ? '*ecdsa.PublicKey' : 'ed25519.PublicKey'}`);
  let ok = false;
  try {
    ok = await verifyData(subtle, req.publicKeyInfo, req.publicKeyAlgorithm, req.publicKeyCurve, alg[0], req.signedBytes, req.signature);
  } catch (e) {
    if (!(e instanceof DerError)) throw new Error(`x509: ${(e as Error).message}`);
  }
  if (!ok) throw new Error(alg[1] === OID.rsaEncryption ? 'crypto/rsa: verification error' : alg[1] === OID.ecPublicKey ? 'x509: ECDSA verification failure' : 'x509: Ed25519 verification failure');
}


