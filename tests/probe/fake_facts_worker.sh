#!/bin/sh
# Stands in for `gpumem-probe worker` in facts_runner_test.cc: answers the runner's command
# line the way a worker does (a JSON result file, an NCCL debug log when asked for one)
# without a GPU. FAKE_GPUS sets the GPU count; FAKE_FAIL_KIND makes one kind fail.
kind="" index="" result=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kind) kind=$2; shift 2 ;;
    --index) index=$2; shift 2 ;;
    --result) result=$2; shift 2 ;;
    *) shift ;;
  esac
done
if [ "$kind" = count_gpus ]; then
  printf '{"ok":true,"error":null,"data":{"count":%s}}' "${FAKE_GPUS:-2}" >"$result"
  exit 0
fi
if [ "$kind" = "$FAKE_FAIL_KIND" ]; then
  printf '{"ok":false,"error":"fake failure of %s"}' "$kind" >"$result"
  exit 3
fi
if [ -n "$NCCL_DEBUG_FILE" ]; then
  echo "h:1:1 [$LOCAL_RANK] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer" >"$NCCL_DEBUG_FILE"
fi
printf '{"ok":true,"error":null,"rank":%s,"data":{"kind":"%s","index":%s,"local_rank":%s,"cumem":"%s","loading":"%s"}}' \
  "$RANK" "$kind" "$index" "$LOCAL_RANK" "${NCCL_CUMEM_ENABLE:-unset}" "${CUDA_MODULE_LOADING:-unset}" >"$result"
