// Core: the workload tables (printDeployment, printReplicaSet, printStatefulSet, printDaemonSet, printJob), with
// the Containers/Images/Selector columns they share.

import { formatLabelSelector } from '../selectors/label-selector';
import { AGE, col, formatLabels, humanDuration, NAME, num, parseTime, wide, type TableSpec, type View } from './columns';

/**
 * printDeployment prints LabelSelectorAsSelector(ls).String() itself rather than FormatLabelSelector:
 * "" instead of "<none>", "<invalid>" instead of "<error>".
 */
function deploymentSelector(ls: View): string {
  const s = formatLabelSelector(ls);
  return s === '<none>' ? '' : s === '<error>' ? '<invalid>' : s;
}

/** printers.go layoutContainerCells: names and images, comma-joined. */
function containerCells(podSpec: View): { names: string; images: string } {
  const cs: View[] = podSpec?.containers ?? [];
  return { names: cs.map((c) => c.name ?? '').join(','), images: cs.map((c) => c.image ?? '').join(',') };
}

const CONTAINERS_DOC = 'Names of each container in the template.';
const IMAGES_DOC = 'Images referenced by each container in the template.';
const CONTAINERS = wide('Containers', 'string', CONTAINERS_DOC, (o) => containerCells(o.spec?.template?.spec).names);
const IMAGES = wide('Images', 'string', IMAGES_DOC, (o) => containerCells(o.spec?.template?.spec).images);

// apps/v1 defaults spec.replicas to 1; an object stored without defaulting reads the same.
const desired = (o: View): number => o.spec?.replicas ?? 1;
const SELECTOR = wide('Selector', 'string', 'Label query over pods that should match the replica count.',
  (o) => formatLabelSelector(o.spec?.selector));

export const DEPLOYMENT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Ready', 'string', 'Number of the pod with ready state', (o) => `${num(o.status?.readyReplicas)}/${desired(o)}`),
    col('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      (o) => num(o.status?.updatedReplicas)),
    col('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      (o) => num(o.status?.availableReplicas)),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'Label selector for pods.', (o) => deploymentSelector(o.spec?.selector)),
  ],
};

export const REPLICASET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Desired', 'integer', 'Replicas is the number of desired replicas.', desired),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.', (o) => num(o.status?.replicas)),
    col('Ready', 'integer', 'The number of ready replicas for this replica set.', (o) => num(o.status?.readyReplicas)),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
};

export const STATEFULSET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Ready', 'string', 'Number of the pod with ready state', (o) => `${num(o.status?.readyReplicas)}/${desired(o)}`),
    AGE,
    CONTAINERS,
    IMAGES,
  ],
};

export const DAEMONSET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.',
      (o) => num(o.status?.desiredNumberScheduled)),
    col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      (o) => num(o.status?.currentNumberScheduled)),
    col('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
      (o) => num(o.status?.numberReady)),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod',
      (o) => num(o.status?.updatedNumberScheduled)),
    col('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      (o) => num(o.status?.numberAvailable)),
    col('Node Selector', 'string', "NodeSelector is a selector which must be true for the pod to fit on a node.",
      (o) => formatLabels(o.spec?.template?.spec?.nodeSelector)),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
};

function jobStatus(o: View): string {
  const conds: View[] = o.status?.conditions ?? [];
  // hasJobCondition: the FIRST condition of the type decides.
  const has = (type: string) => conds.find((c) => c.type === type)?.status === 'True';
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(o: View): string {
  const succeeded = num(o.status?.succeeded);
  if (o.spec?.completions != null) return `${succeeded}/${o.spec.completions}`;
  const parallelism = num(o.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: View, now: number): string {
  const start = parseTime(o.status?.startTime);
  if (start === undefined) return '';
  return humanDuration((parseTime(o.status?.completionTime) ?? now) - start);
}

export const JOB_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Status', 'string', 'Status of the job.', jobStatus),
    col('Completions', 'string', 'The number of pods which reached phase Succeeded.', jobCompletions),
    col('Duration', 'string', 'Time required to complete the job.', jobDuration),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
};

/** printReplicationController: the ReplicaSet columns; the selector is a plain label map (labels.FormatLabels). */
export const REPLICATIONCONTROLLER_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Desired', 'integer', 'Replicas is the number of desired replicas.', (o) => o.spec?.replicas ?? 1),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.', (o) => num(o.status?.replicas)),
    col('Ready', 'integer', 'The number of ready replicas for this replication controller.', (o) => num(o.status?.readyReplicas)),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'Selector is a label query over pods that should match the Replicas count.', (o) => formatLabels(o.spec?.selector)),
  ],
};
