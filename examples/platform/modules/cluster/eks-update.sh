# Called by modules/cluster (terraform_data.endpoint_update) as `sh eks-update.sh <cluster name>` when an apply turns
# the endpoint's public access off. It fails the first BUSY_UPDATES times, counted in the file BUSY_COUNTER, with
# the errors EKS gives while another update of the cluster is still running; after that it succeeds.
set -eu
cluster=$1
busy=${BUSY_UPDATES:-0}
failed=0
if [ -n "${BUSY_COUNTER:-}" ] && [ -f "$BUSY_COUNTER" ]; then
  failed=$(cat "$BUSY_COUNTER")
fi
if [ "$failed" -ge "$busy" ]; then
  echo "updated the endpoint access of EKS cluster $cluster"
  exit 0
fi
failed=$((failed + 1))
echo "$failed" >"$BUSY_COUNTER"
if [ $((failed % 2)) -eq 1 ]; then
  echo "Error: updating EKS Cluster ($cluster) endpoint access: ResourceInUseException: Cluster is currently being updated" >&2
else
  echo "Error: updating EKS Cluster ($cluster) endpoint access: an update (EndpointAccessUpdate) of the cluster is in progress" >&2
fi
exit 1
