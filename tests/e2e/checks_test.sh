#!/usr/bin/env bash
# The checks of every fixture's report, read from the parsed JSON: every id unique within a
# report; a host (cgroup / SIGKILL) OOM gets host-memory checks and no GPU-memory ones; a plain
# PyTorch matmul error gets its shapes and none of Megatron's layout rows; a site's --rules
# directory turns a check off and adds one without a rebuild.
# Usage: checks_test.sh MEGATRIAGE FIXTURES JSON_GET
set -uo pipefail
megatriage=$(realpath "$1") fixtures=$(realpath "$2") json_get=$(realpath "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL checks: $*"; fail=1; }

report() {  # report CASE [ARGS...]: the JSON report of fixtures/CASE into $tmp/CASE.json
  local case=$1
  shift
  (cd "$fixtures/$case" && "$megatriage" --format json "$@" logs/ >"$tmp/$case.json" 2>/dev/null)
  [[ -s $tmp/$case.json ]] || bad "$case: no report"
}
ids() { "$json_get" "$tmp/$1.json" /root_cause/checks/*/id 2>/dev/null; }
has() { ids "$1" | grep -qxF "$2"; }

# --- unique ids, every fixture ------------------------------------------------------------------
cases=0
for dir in "$fixtures"/*/; do
  case=$(basename "$dir")
  [[ -d $dir/logs ]] || continue
  report "$case"
  cases=$((cases + 1))
  repeated=$(ids "$case" | sort | uniq -d)
  [[ -z $repeated ]] || bad "$case: check ids repeat: $(tr '\n' ' ' <<<"$repeated")"
  # Advice is numbered, never the bare id.
  ! ids "$case" | grep -qxF advice || bad "$case: a check has the bare id 'advice'"
done
[[ $cases -gt 50 ]] || bad "only $cases fixtures reported"

# --- host OOM: host memory, not GPU memory ------------------------------------------------------
gpu_ids=(oom_phase_and_sizes oom_allocation_size oom_fragmentation cuda_device_max_connections)
host_ids=(host_memory_request dataloader_workers node_free_memory)
for case in gpu-oom-dataloader-worker-sigkill slurm-b3-cgroup-oom-kill public-oom-nemo10192-slurm-oom-kill-checkpoint; do
  [[ $("$json_get" "$tmp/$case.json" /root_cause/category) == oom ]] || bad "$case: not an OOM any more"
  for id in "${host_ids[@]}"; do has "$case" "$id" || bad "$case: no $id check"; done
  for id in "${gpu_ids[@]}"; do ! has "$case" "$id" || bad "$case: a GPU check ($id) for a host OOM"; done
done
# A SIGKILL alone does not name the OOM killer; slurmstepd's oom_kill line does.
has gpu-oom-dataloader-worker-sigkill oom_killer_confirmed || bad "SIGKILLed worker: no oom_killer_confirmed check"
! has slurm-b3-cgroup-oom-kill oom_killer_confirmed || bad "cgroup oom_kill: asks who sent the kill"
[[ $("$json_get" "$tmp/gpu-oom-dataloader-worker-sigkill.json" '/root_cause/checks/[id=dataloader_workers]/status') == failed ]] ||
  bad "the killed DataLoader worker does not fail the dataloader_workers check"
# A GPU OOM keeps its GPU checks.
has gpu-decoy-watchdog-first oom_fragmentation || bad "GPU OOM: no oom_fragmentation"
[[ $("$json_get" "$tmp/gpu-decoy-watchdog-first.json" '/root_cause/checks/[id=oom_allocation_size]/status') == failed ]] ||
  bad "GPU OOM of 256 GiB on a 140 GiB GPU: oom_allocation_size does not fail"

# --- plain PyTorch shape error: its shapes, no Megatron layout rows -----------------------------
for case in slurm-label-interleaved-shape public-shape-corenet-spawn4-miou-mismatch; do
  [[ $("$json_get" "$tmp/$case.json" '/root_cause/checks/[id=shape_operands]/status') == failed ]] ||
    bad "$case: no failed shape_operands check"
  for id in world_size_product heads_divisible_by_tp batch_divisible cuda_device_max_connections; do
    ! has "$case" "$id" || bad "$case: Megatron's $id for a plain PyTorch shape error"
  done
done
# A Megatron layout error keeps them.
has megatron-shape-tp-heads-pernode heads_divisible_by_tp || bad "Megatron heads error: no heads_divisible_by_tp"

# --- no passing check asks the user to confirm ---------------------------------------------------
for f in "$tmp"/*.json; do
  "$json_get" "$f" '/root_cause/checks/[status=passed]/detail' 2>/dev/null | grep -qi 'confirm' &&
    bad "$(basename "$f" .json): a passing check asks to confirm"
done

# --- a site's rules change the checks without a rebuild ----------------------------------------
mkdir -p "$tmp/site"
cat >"$tmp/site/checks.json" <<'JSON'
{"runbook_checks": [
  {"id": "oom_fragmentation", "text": "off", "evaluate": "oom_fragmentation", "when": []},
  {"id": "site_gpu_health", "text": "The GPU passed the site's health check", "evaluate": "template",
   "when": [{"categories": ["oom"], "tags_none": ["host-oom"]}], "status": "unknown",
   "detail": "run /opt/site/gpu-health on the node"}
]}
JSON
report gpu-decoy-watchdog-first --rules "$tmp/site"
! has gpu-decoy-watchdog-first oom_fragmentation || bad "--rules: a check turned off still shows"
has gpu-decoy-watchdog-first site_gpu_health || bad "--rules: a site's own check does not show"

[[ $fail -eq 0 ]] && echo "checks: ok ($cases reports)"
exit $fail
