// Core: port numbers and IANA service names (apimachinery util/validation IsValidPortNum, IsValidPortName).
import { invalidValue, type FieldCause } from './names';

export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const; // sets.List order

export function portNumMessages(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

export function portNameMessages(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName: an int must be a port number, a string an IANA service name. */
export function portNumOrName(port: number | string, path: string): FieldCause[] {
  const msgs = typeof port === 'number' ? portNumMessages(port) : portNameMessages(port);
  return msgs.map((m) => invalidValue(path, port, m));
}
