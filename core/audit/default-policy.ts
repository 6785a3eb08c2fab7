// Core: the audit policy in force when AUDIT_POLICY is unset. Modelled on the policy GKE/GCE clusters ship
// (kubernetes cluster/gce/gci/configure-helper.sh create-master-audit-policy): no RequestReceived stage, nothing for
// health probes, event reads and the control loops' heartbeat traffic, Metadata (never a body) for Secrets,
// ConfigMaps and tokens, and Metadata for everything else — so the default log says who did what, to which object,
// and what the authorizer decided, without holding any object's data.

export const DEFAULT_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
  - RequestReceived
rules:
  # Health, readiness and version probes, and metrics scrapes.
  - level: None
    nonResourceURLs:
      - /healthz*
      - /livez*
      - /readyz*
      - /version
      - /version/
      - /metrics
  # Reads of Events (the event recorders' own writes are still recorded).
  - level: None
    verbs: [get, list, watch]
    resources:
      - group: ""
        resources: [events]
      - group: events.k8s.io
        resources: [events]
  # kube-proxy following Services and EndpointSlices.
  - level: None
    users: [system:kube-proxy]
    verbs: [watch]
    resources:
      - group: ""
        resources: [endpoints, services, services/status]
      - group: discovery.k8s.io
        resources: [endpointslices]
  # Heartbeats: node Leases renewed by the kubelets, and the control plane's leader-election Leases.
  - level: None
    userGroups: [system:nodes]
    verbs: [get, update]
    resources:
      - group: coordination.k8s.io
        resources: [leases]
  - level: None
    users: [system:kube-controller-manager, system:kube-scheduler]
    verbs: [get, update]
    namespaces: [kube-system]
    resources:
      - group: coordination.k8s.io
        resources: [leases]
  # Secrets, ConfigMaps and tokens: who and what, never their data.
  - level: Metadata
    resources:
      - group: ""
        resources: [secrets, configmaps, serviceaccounts/token]
      - group: authentication.k8s.io
        resources: [tokenreviews]
  # Everything else.
  - level: Metadata
`;
