"""Acceptance run of the official Kubernetes Python client (typed CoreV1Api/AppsV1Api) against the
gateway. Usage: typed_client.py KUBECONFIG NAMESPACE. Prints one JSON document with what it saw;
the TypeScript test asserts on it. Every call and watch is bounded; any failure exits non-zero
with a message on stderr."""

import json
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

REQUEST_TIMEOUT = 15  # seconds, per call
WATCH_SECONDS = 5  # server-side timeoutSeconds of each watch


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def collect(w, stream, wanted, deadline_seconds):
    """Events of interest until `wanted` arrived, the stream ends, or the deadline passes."""
    deadline = time.monotonic() + deadline_seconds
    seen = []
    for event in stream:
        if event["type"] in ("ADDED", "MODIFIED", "DELETED"):
            obj = event["object"]
            seen.append({
                "type": event["type"],
                "name": obj.metadata.name,
                "resourceVersion": obj.metadata.resource_version,
                "data": obj.data,
            })
        else:
            seen.append({"type": event["type"]})
        if len([e for e in seen if e["type"] != "BOOKMARK"]) >= wanted or time.monotonic() > deadline:
            w.stop()
            break
    return seen


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    # The kubeconfig's certificate-authority-data is the gateway's self-signed CA: verification stays on.
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    apps = client.AppsV1Api()
    out = {}

    created_ns = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)), _request_timeout=REQUEST_TIMEOUT)
    out["namespace"] = {"labels": created_ns.metadata.labels, "finalizers": created_ns.spec.finalizers, "phase": created_ns.status.phase}

    def cm(name, data):
        return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"app": "py"}), data=data)

    core.create_namespaced_config_map(ns, cm("alpha", {"x": "1"}), _request_timeout=REQUEST_TIMEOUT)
    core.create_namespaced_config_map(ns, cm("beta", {"x": "1"}), _request_timeout=REQUEST_TIMEOUT)
    listed = core.list_namespaced_config_map(ns, label_selector="app=py", _request_timeout=REQUEST_TIMEOUT)
    out["listed"] = sorted(i.metadata.name for i in listed.items)
    list_rv = listed.metadata.resource_version

    # Three changes after the list; a watch resumed from the list's resourceVersion must get exactly these.
    patched = core.patch_namespaced_config_map("alpha", ns, {"data": {"x": "2"}}, _request_timeout=REQUEST_TIMEOUT)
    out["patched"] = patched.data
    core.delete_namespaced_config_map("beta", ns, _request_timeout=REQUEST_TIMEOUT)
    core.create_namespaced_config_map(ns, cm("gamma", {"y": "3"}), _request_timeout=REQUEST_TIMEOUT)

    w = watch.Watch()
    resumed = w.stream(core.list_namespaced_config_map, ns, label_selector="app=py", resource_version=list_rv,
                       timeout_seconds=WATCH_SECONDS, _request_timeout=REQUEST_TIMEOUT)
    out["resumed"] = collect(w, resumed, 3, WATCH_SECONDS + 5)

    # A watch without a resourceVersion starts with the current state (watch=True, allowWatchBookmarks=True).
    w = watch.Watch()
    initial = w.stream(core.list_namespaced_config_map, ns, label_selector="app=py", allow_watch_bookmarks=True,
                       timeout_seconds=WATCH_SECONDS, _request_timeout=REQUEST_TIMEOUT)
    out["initial"] = collect(w, initial, 2, WATCH_SECONDS + 5)

    # A watch that ends by its own timeoutSeconds: the generator finishes by itself.
    w = watch.Watch()
    started = time.monotonic()
    quiet = list(w.stream(core.list_namespaced_config_map, ns, label_selector="app=none", timeout_seconds=1,
                          _request_timeout=REQUEST_TIMEOUT))
    out["quietWatch"] = {"events": len(quiet), "ended": True, "seconds": round(time.monotonic() - started, 1)}

    secret = core.create_namespaced_secret(ns, client.V1Secret(metadata=client.V1ObjectMeta(name="creds"),
                                                               string_data={"password": "s3cr3t"}),
                                           _request_timeout=REQUEST_TIMEOUT)
    out["secret"] = {"type": secret.type, "data": secret.data, "stringData": secret.string_data}

    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web", labels={"app": "web"}),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="nginx", image="nginx:1.27")]))))
    d = apps.create_namespaced_deployment(ns, deployment, _request_timeout=REQUEST_TIMEOUT)
    c = d.spec.template.spec.containers[0]
    out["deployment"] = {
        "replicas": d.spec.replicas,
        "strategy": d.spec.strategy.type,
        "maxSurge": d.spec.strategy.rolling_update.max_surge,
        "maxUnavailable": d.spec.strategy.rolling_update.max_unavailable,
        "revisionHistoryLimit": d.spec.revision_history_limit,
        "progressDeadlineSeconds": d.spec.progress_deadline_seconds,
        "imagePullPolicy": c.image_pull_policy,
        "restartPolicy": d.spec.template.spec.restart_policy,
        "generation": d.metadata.generation,
    }
    scaled = apps.patch_namespaced_deployment("web", ns, {"spec": {"replicas": 3}}, _request_timeout=REQUEST_TIMEOUT)
    out["scaled"] = {"replicas": scaled.spec.replicas, "generation": scaled.metadata.generation}
    apps.delete_namespaced_deployment("web", ns, _request_timeout=REQUEST_TIMEOUT)
    try:
        apps.read_namespaced_deployment("web", ns, _request_timeout=REQUEST_TIMEOUT)
        fail("deployment web still readable after delete")
    except ApiException as e:
        out["afterDelete"] = {"status": e.status, "reason": json.loads(e.body)["reason"]}

    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except ApiException as e:
        fail(f"API error {e.status}: {e.body}")
