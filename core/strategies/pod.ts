// Core: the Pod strategy (pkg/registry/core/pod/strategy.go, storage/storage.go, and the DefaultTolerationSeconds
// admission plugin): a new pod gets the not-ready/unreachable tolerations (core/pods/default-tolerations.ts), a
// DELETE of a pod bound to a node is graceful (core/pods/graceful-delete.ts), and pods/binding assigns the pod to a
// node in one update (core/pods/binding.ts).

import { addDefaultTolerations } from '../pods/default-tolerations';
import { gracefulPodDelete } from '../pods/graceful-delete';
import { bindPod } from '../pods/binding';
import { DEFAULT_STRATEGY } from './default';
import type { SubresourceWrite, WriteStrategy } from './strategy';
import { withSubresourceUpdates } from './subresource-updates';

// pods/ephemeralcontainers replaces only the ephemeral containers (./subresource-updates.ts).
export const POD_STRATEGY: WriteStrategy = withSubresourceUpdates({
  ...DEFAULT_STRATEGY,
  prepareForCreate: (obj, env) => addDefaultTolerations(obj, env.defaultTolerationSeconds),
  checkGracefulDelete: (obj, requested, env) => gracefulPodDelete(obj, requested, env.now),
  // The front door hands POST pods/<name>/binding over as an update of the pod's "binding" subresource.
  subresources: new Map<string, SubresourceWrite>([['binding', (current, name, body, env) => bindPod(current, name, body, env.now)]]),
});
