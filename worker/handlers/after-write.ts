// Front door: what follows a successful write before it is answered: a CRD's registry sync and cleanup
// (./crd-lifecycle.ts), a terminating CRD's cleanup resumed, and read-your-writes for RBAC (every authorizer shard
// has the change in force before the next request is decided).

import { afterWrite as afterAdmissionRead } from '../admission-cache';
import { groupResource, type ResourceType } from '../../core/registry';
import type { Result } from '../../core/status';
import { CRD_GROUP_RESOURCE } from '../../core/crd/crd-object';
import { RBAC_GROUP } from '../../core/rbac/escalation';
import type { StoreReply } from '../../contract/rpc';
import { allAuthorizers } from '../authz';
import { afterCrdWrite, resumeCrdCleanup } from './crd-lifecycle';
import type { Ctx } from './call';

export async function settle(c: Ctx, type: ResourceType, verb: string, dryRun: boolean, result: Result<StoreReply>): Promise<Result<StoreReply>> {
  // Admission's per-isolate read cache forgets what this write may have changed (worker/admission-cache.ts).
  if (!dryRun) afterAdmissionRead(groupResource(type));
  if (groupResource(type) === CRD_GROUP_RESOURCE && !dryRun) result = await afterCrdWrite(c.env, verb, result);
  if (type.custom?.terminating && result.ok && !dryRun) await resumeCrdCleanup(c.env, type.custom.crdName);
  if (type.group === RBAC_GROUP && result.ok && result.value.revision) {
    const revision = result.value.revision;
    await Promise.all(allAuthorizers(c.env, c.get('settings')).map((a) => a.stub.catchUp(a.name, groupResource(type), revision)));
  }
  return result;
}
