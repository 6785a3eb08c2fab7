// Tooling: `npm test`'s pretest step. The end-to-end and browser tests drive programs from outside npm:
// kubectl v1.32 at /usr/bin/kubectl, the official Python client (Debian's python3-kubernetes, run by
// /usr/bin/python3) and Debian's Chromium at /usr/bin/chromium (never a downloaded browser). Missing Debian
// packages are installed when this runs as root with apt-get; otherwise it stops at once with the one command
// to run, instead of the suite failing deep inside.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

interface Prerequisite {
  what: string;
  present: () => boolean;
  debianPackage?: string; // installable with apt-get
  otherwise?: string; // how to get it when no Debian package fits
}

const ok = (file: string, args: string[]) => spawnSync(file, args, { stdio: 'ignore' }).status === 0;

const PREREQUISITES: Prerequisite[] = [
  { what: 'openssl (the local TLS certificate)', present: () => ok('openssl', ['version']), debianPackage: 'openssl' },
  { what: '/usr/bin/python3 with the kubernetes module', present: () => ok('/usr/bin/python3', ['-c', 'import kubernetes']), debianPackage: 'python3-kubernetes' },
  { what: '/usr/bin/chromium', present: () => existsSync('/usr/bin/chromium'), debianPackage: 'chromium' },
  {
    what: 'kubectl v1.32 at /usr/bin/kubectl', present: () => existsSync('/usr/bin/kubectl'),
    otherwise: 'install kubectl v1.32 at /usr/bin/kubectl (https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/)',
  },
];

const missing = PREREQUISITES.filter((p) => !p.present());
const packages = missing.flatMap((p) => (p.debianPackage ? [p.debianPackage] : []));
const canInstall = process.getuid?.() === 0 && ok('apt-get', ['--version']);

if (packages.length > 0 && canInstall) {
  console.log(`npm test: installing Debian packages ${packages.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
}

const still = PREREQUISITES.filter((p) => !p.present());
if (still.length > 0) {
  console.error('npm test needs programs that are not installed:');
  for (const p of still) console.error(`  - ${p.what}`);
  const apt = still.flatMap((p) => (p.debianPackage ? [p.debianPackage] : []));
  if (apt.length > 0) console.error(`Run:  sudo apt-get install -y ${apt.join(' ')}`);
  for (const p of still) if (p.otherwise) console.error(`And:  ${p.otherwise}`);
  process.exit(1);
}
