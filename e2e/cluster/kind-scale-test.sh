#!/usr/bin/env bash
# Cluster test of the operator on kind: build the images (Jib, no Docker daemon needed for the
# tarballs), load them into a kind cluster, install the chart, run a single-node Kafka in the
# cluster, apply a CdcSink, and check that lag scales the workers up and idleness back to zero.
# Skips (exit 0) where kind, kubectl or helm is missing or no cluster can be created.
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in kind kubectl helm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed; the cluster test needs kind, kubectl and helm"
    exit 0
  fi
done

CLUSTER=${FLOE_KIND_CLUSTER:-floe-e2e}
NS=floe-e2e
if ! kind get clusters | grep -qx "$CLUSTER"; then
  kind create cluster --name "$CLUSTER" --wait 120s || { echo "SKIP: kind could not create a cluster here"; exit 0; }
fi
trap '[ -n "${KEEP_CLUSTER:-}" ] || kind delete cluster --name "$CLUSTER"' EXIT
kubectl config use-context "kind-$CLUSTER"

echo "== images"
mvn -B -ntp -q -Pimage -DskipTests -Dimage.registry=floe.local package -pl worker,operator -am
kind load image-archive worker/target/jib-image.tar --name "$CLUSTER"
kind load image-archive operator/target/jib-image.tar --name "$CLUSTER"

echo "== kafka"
kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f -
kubectl -n "$NS" apply -f e2e/cluster/kafka.yaml
kubectl -n "$NS" rollout status deploy/kafka --timeout=180s

echo "== operator"
helm upgrade --install floe deploy/helm/floe-operator -n "$NS" \
  --set image.repository=floe.local/floe-operator --set image.tag=0.1.0-SNAPSHOT \
  --set workerImage.repository=floe.local/floe-worker --set workerImage.tag=0.1.0-SNAPSHOT \
  --set "watchNamespaces[0]=$NS" --wait --timeout 180s

echo "== sink"
kubectl -n "$NS" exec deploy/kafka -- /opt/kafka/bin/kafka-topics.sh --bootstrap-server localhost:9092 \
  --create --if-not-exists --topic pg.public.orders --partitions 4
kubectl -n "$NS" apply -f e2e/cluster/orders-sink.yaml

echo "== lag up: the workers scale up"
kubectl -n "$NS" exec deploy/kafka -- bash -c \
  'for i in $(seq 1 500); do echo "{\"id\":$i}|{\"op\":\"c\",\"after\":{\"id\":$i,\"qty\":1}}"; done |
   /opt/kafka/bin/kafka-console-producer.sh --bootstrap-server localhost:9092 --topic pg.public.orders \
     --property parse.key=true --property key.separator="|"'
for _ in $(seq 1 60); do
  r=$(kubectl -n "$NS" get deploy orders-worker -o jsonpath='{.spec.replicas}' 2>/dev/null || echo 0)
  [ "${r:-0}" -gt 0 ] && break
  sleep 2
done
[ "${r:-0}" -gt 0 ] || { echo "FAIL: workers did not scale up"; kubectl -n "$NS" get cdcs orders -o yaml; exit 1; }
echo "scaled up to $r"

echo "== idle: back to zero"
for _ in $(seq 1 120); do
  r=$(kubectl -n "$NS" get deploy orders-worker -o jsonpath='{.spec.replicas}')
  [ "$r" = 0 ] && break
  sleep 2
done
[ "$r" = 0 ] || { echo "FAIL: workers did not scale to zero"; kubectl -n "$NS" get cdcs orders -o yaml; exit 1; }
kubectl -n "$NS" get cdcs orders
echo "PASS"
