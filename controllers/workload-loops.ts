// Controllers: the workload loops beyond Deployment/ReplicaSet — CronJob, Job, TTL-after-finished, StatefulSet, DaemonSet and the
// ReplicationController (the ReplicaSet controller run for kind ReplicationController) — built from the
// manager's shared informers, each writing with its own ServiceAccount identity.

import type { ControllerAccount } from '../core/auth/internal-identity';
import { RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { ApiEventRecorder } from './events';
import type { InformerFactory, SharedInformer } from './informers';
import { JobController, COMPONENT as JOB_COMPONENT } from './job';
import { REPLICATION_CONTROLLER_KIND, ReplicaSetController } from './replicaset';
import { TtlAfterFinishedController } from './ttl-after-finished';
import { StatefulSetController, COMPONENT as STS_COMPONENT } from './statefulset';
import { DaemonSetController, COMPONENT as DS_COMPONENT } from './daemonset';
import { CronJobController, COMPONENT as CRONJOB_COMPONENT } from './cronjob';
import type { WorkQueue } from './workqueue';

export interface WorkloadLoopDeps {
  informers: InformerFactory;
  pods: SharedInformer;
  clock: Clock;
  apiFor: (account: ControllerAccount) => Promise<Api>;
}

export interface WorkloadLoops {
  queues: Record<string, WorkQueue>; // by kube's workqueue name
  run(): Promise<void>[];
}

export async function workloadLoops(d: WorkloadLoopDeps): Promise<WorkloadLoops> {
  const { informers, pods, clock } = d;
  const jobs = informers.for(RESOURCES.jobs);
  const jobApi = await d.apiFor('job-controller');
  const job = new JobController({ api: jobApi, jobs, pods, clock, recorder: new ApiEventRecorder(jobApi, JOB_COMPONENT, clock) });
  const ttl = new TtlAfterFinishedController(await d.apiFor('ttl-after-finished-controller'), jobs, clock);
  const rcApi = await d.apiFor('replication-controller');
  const rc = new ReplicaSetController({
    api: rcApi, replicaSets: informers.for(RESOURCES.replicationcontrollers), pods, clock, kind: REPLICATION_CONTROLLER_KIND,
    recorder: new ApiEventRecorder(rcApi, REPLICATION_CONTROLLER_KIND.component, clock),
  });
  const revisions = informers.for(RESOURCES.controllerrevisions);
  const stsApi = await d.apiFor('statefulset-controller');
  const sts = new StatefulSetController({
    api: stsApi, sets: informers.for(RESOURCES.statefulsets), pods, revisions, claims: informers.for(RESOURCES.persistentvolumeclaims), clock, recorder: new ApiEventRecorder(stsApi, STS_COMPONENT, clock),
  });
  const dsApi = await d.apiFor('daemon-set-controller');
  const ds = new DaemonSetController({
    api: dsApi, daemonSets: informers.for(RESOURCES.daemonsets), pods, nodes: informers.for(RESOURCES.nodes), revisions, clock,
    recorder: new ApiEventRecorder(dsApi, DS_COMPONENT, clock),
  });
  const cronApi = await d.apiFor('cronjob-controller');
  const cron = new CronJobController({
    api: cronApi, cronJobs: informers.for(RESOURCES.cronjobs), jobs, clock, recorder: new ApiEventRecorder(cronApi, CRONJOB_COMPONENT, clock),
  });
  return {
    queues: { cronjob: cron.queue, job: job.queue, ttl_jobs_to_delete: ttl.queue, replicationmanager: rc.queue, statefulset: sts.queue, daemonset: ds.queue },
    run: () => [...cron.run(5), ...job.run(5), ...ttl.run(1), ...rc.run(5), ...sts.run(5), ...ds.run(2)],
  };
}
