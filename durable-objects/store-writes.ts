// Canonical layer: what a write does in the store: core's executeWrite (core/writes/) inside one commit-path
// transaction, the namespace fence checked on every create, the reply serialized once; and the bootstrap
// objects each store brings up to date at every start, through the same path.

import type { ResourceType } from '../core/registry';
import { StatusError } from '../core/status';
import { executeWrite, type WriteRequest } from '../core/writes';
import { escalationGuard, SYSTEM_GRANT } from '../core/rbac/escalation';
import type { KubeObject } from '../core/object-meta';
import { objectKey, namespacePrefix } from '../core/object-key';
import { formatRevision } from '../core/revision';
import { pickDeletePage } from '../core/list/delete-collection-page';
import { checkJsonSize } from '../core/writes/stored';
import { bootstrapWrites } from '../core/bootstrap';
import { namespaceTerminating } from '../core/namespaces/terminating';
import type { Settings } from '../core/settings';
import type { ServiceAllocations } from '../core/admission/service-ranges';
import type { AdmissionFollowUp } from '../core/admission/attributes';
import type { StoreReply, WriteOptions } from '../contract/rpc';
import type { CommitPath } from './commit-path';
import type { NamespaceFence } from './namespace-fence';
import type { WatchCache } from './watch-cache';

export interface StoreWritesOptions {
  cache: WatchCache;
  commits: CommitPath;
  fence: NamespaceFence;
  settings: Settings;
  serviceAllocations?: ServiceAllocations;
}

export class StoreWrites {
  constructor(private readonly o: StoreWritesOptions) {}

  apply(type: ResourceType, req: WriteRequest, { dryRun = false, fieldValidation, escalation, namespaceRevision, deletePage, admission }: WriteOptions): StoreReply {
    if (req.verb === 'deletecollection' && deletePage) {
      const after = deletePage.after ? deletePage.after + '\u0000' : '';
      const picked = pickDeletePage(this.o.cache.state.range(namespacePrefix(req.namespace), after), req.selectors);
      req = { ...req, page: { ...picked, resourceVersion: formatRevision(this.o.cache.revision) } };
    }
    const warnings: string[] = [];
    const auditAnnotations: Record<string, string> = {};
    const followUp: AdmissionFollowUp = {};
    const now = Date.now();
    const state = this.o.cache.state;
    return this.o.commits.run(now, (tx) => {
      const result = executeWrite({
        get: (key) => {
          const e = state.get(key);
          return e ? (JSON.parse(e.json) as KubeObject) : undefined;
        },
        objects: (namespace) => [...state.range(namespacePrefix(namespace))].map((e) => JSON.parse(e.json) as KubeObject),
        commit: (kind, key, object) => {
          const namespace = object.metadata.namespace ?? '';
          if (kind === 'ADDED' && namespaceRevision !== undefined && namespace && this.o.fence.blocks(namespace, namespaceRevision)) {
            throw new StatusError(namespaceTerminating(type, object.metadata.name ?? '', namespace));
          }
          if (!dryRun) return tx.commit(kind, key, object);
          if (kind !== 'DELETED') checkJsonSize(JSON.stringify(object)); // what tx.commit measures for a real write
          this.o.cache.serve(object, ''); // a dry run answers as a read would (schema defaults applied)
          return object;
        },
        checksSize: true,
        serviceAllocations: this.o.serviceAllocations,
      }, { type, now, newUid: () => crypto.randomUUID(), randomSuffix, fieldValidation, warnings, auditAnnotations, guard: escalationGuard(type, escalation), garbageCollection: this.o.settings.controllers,
        defaultTolerationSeconds: this.o.settings.defaultTolerationSeconds, admission: admission && { inputs: admission, dryRun, followUp } }, req);
      // The answer reuses the JSON the commit stored, unless a view converted it (possibly in place: a CRD
      // version's view rewrites apiVersion on the same object).
      const stored = req.view ? undefined : tx.served(result.body);
      const reply: StoreReply = { code: result.code, body: stored ?? JSON.stringify(result.body), revision: tx.revision };
      if (warnings.length) reply.warnings = warnings;
      if (Object.keys(auditAnnotations).length) reply.auditAnnotations = auditAnnotations;
      if (followUp.podSecurityPods) reply.podSecurityPods = followUp.podSecurityPods;
      if (result.held !== undefined) reply.held = result.held;
      if (req.verb === 'deletecollection' && req.page?.continue) reply.continue = req.page.continue;
      return reply;
    });
  }

  /**
   * The store's bootstrap objects brought to this version's at every start (core/bootstrap.ts): created when missing,
   * reconciled as kube-apiserver's post-start hooks do. They are kube-apiserver's own writes (its managedFields
   * manager); one that fails is logged and skipped, never stopping the store from loading.
   */
  bootstrap(type: ResourceType, groupResource: string): void {
    const read = (namespace: string, name: string) => {
      const e = this.o.cache.state.get(objectKey(namespace, name));
      return e ? JSON.parse(e.json) as unknown : undefined;
    };
    for (const w of bootstrapWrites(groupResource, read)) {
      const req: WriteRequest = w.verb === 'create' ? { ...w, fieldManager: 'kube-apiserver' }
        : w.verb === 'update' ? { ...w, subresource: '', fieldManager: 'kube-apiserver' }
        : { ...w, body: '', query: {} };
      try {
        const reply = this.apply(type, req, { escalation: SYSTEM_GRANT });
        if (reply.code >= 300) console.error(`bootstrap ${w.verb} ${groupResource} ${'name' in w ? w.name : ''}: ${reply.code} ${reply.body.slice(0, 300)}`);
      } catch (e) {
        console.error(`bootstrap ${w.verb} ${groupResource}: ${(e as Error)?.message ?? e}`);
      }
    }
  }
}

// apiserver pkg/storage/names/generate.go: 5 characters from an alphabet without vowels or look-alikes.
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
// Random bytes drawn a thousand suffixes at a time: a getRandomValues call per suffix (each pod create takes two:
// its token volume's name, and generateName's) was ~1% of a create's CPU (bench/profile.ts writes-64).
let pool = new Uint8Array(0);
let drawn = 0;
function randomSuffix(): string {
  if (drawn + 5 > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(5000));
    drawn = 0;
  }
  let out = '';
  for (let i = 0; i < 5; i++) out += SUFFIX_ALPHABET[pool[drawn++] % SUFFIX_ALPHABET.length];
  return out;
}
