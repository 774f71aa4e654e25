#!/usr/bin/env python3
"""The allocator differential: random tensor lifetimes through PyTorch's real caching
allocator, recorded op by op, for gpumem's emulation (src/alloc) to replay and match.

`generate` writes, per allocator configuration, a seeded random sequence of operations
(ops_<config>.json): tensors of mixed sizes allocated and freed in random order, the cache
emptied now and then, and CUDA-graph captures that route allocations to private pools,
share pools between captures and release them. `run` executes one sequence in a fresh
PyTorch process with that configuration's PYTORCH_CUDA_ALLOC_CONF and records, after every
operation, what PyTorch reports: allocated and reserved bytes, segments (the allocator's
counter, and the contiguous ranges torch.cuda.memory_snapshot() lists, which is what a
segment is under expandable segments), device allocations and frees, and the address of
each new tensor (a request that two equal free blocks could serve takes the one at the lower
address, and the driver, not the allocator, chooses segment addresses). The C++ test
tests/alloc/torch_differential_test.cc replays each recorded sequence through the
emulation and compares every number after every operation.

Operations:
  ["alloc", id, size]        torch.empty(size, dtype=uint8) on the current stream
  ["free", id]               the tensor's last reference dropped
  ["empty_cache"]            torch.cuda.empty_cache()
  ["pool_create", p]         torch.cuda.graph_pool_handle()
  ["capture_begin", p]       a CUDAGraph's capture_begin(pool=p) on the side stream
                             (routing to the pool; one _sleep kernel is captured)
  ["capture_end", p]         its capture_end()
  ["pool_release", p]        reset() of the oldest live graph captured into p

`from-ops` turns the allocator operations of an engine's start-up program (a gpumem.ops
trace that `gpumem export-ops` wrote) into such a sequence: its tensors (weights, KV cache,
activations, buffers) in the program's order, its private pools and the captures routed to
them; what does not touch the allocator (kernels, library loads, readings, log lines) is
left out. `--alloc-conf` replays the same operations under another PYTORCH_CUDA_ALLOC_CONF.

Usage:
  alloc_diff.py generate --out DIR
  alloc_diff.py from-ops OPS.rank0.json --out DIR/ops_<name>.json [--alloc-conf CONF]
  alloc_diff.py run DIR/ops_<config>.json --out RESULT.json
"""

import argparse
import json
import os
import random
import sys

# name -> (PYTORCH_CUDA_ALLOC_CONF, seed, lifetimes)
CONFIGS = {
    "default": ("", 1, 1200),
    "max_split_size": ("max_split_size_mb:200", 2, 1200),
    "expandable_segments": ("expandable_segments:True", 3, 1200),
    "expandable_max_split_size": ("expandable_segments:True,max_split_size_mb:200", 4, 1200),
}
MIB = 1 << 20
LIVE_LIMIT = 24 << 30  # stay far below the H200's memory: no operation runs out


def random_size(rng):
    """Small, medium and large requests, with the round sizes programs favour."""
    r = rng.random()
    if r < 0.40:  # small pool: up to 1 MiB
        size = int(2 ** rng.uniform(0, 20))
    elif r < 0.65:  # large pool, served from 20 MiB segments: 1 MiB to 10 MiB
        size = int(2 ** rng.uniform(20, 23.3))
    elif r < 0.93:  # own segments: 10 MiB to 400 MiB
        size = int(2 ** rng.uniform(23.3, 28.6))
    else:  # exact multiples of 2 MiB and of 20 MiB, and the boundaries
        size = rng.choice([MIB, MIB + 1, 2 * MIB, 10 * MIB - 1, 10 * MIB, 20 * MIB,
                           200 * MIB, 200 * MIB + 512, rng.randint(1, 100) * 2 * MIB])
    return max(1, size)


def generate(seed, lifetimes):
    rng = random.Random(seed)
    ops = []
    live = {}  # id -> size
    next_id = 0
    pools = []  # pool ids created
    graphs = {}  # pool -> live graphs
    capturing = None
    allocated = 0
    while next_id < lifetimes or live or capturing is not None:
        done = next_id >= lifetimes
        r = rng.random()
        if capturing is not None:
            if r < 0.10 or done:
                ops.append(["capture_end", capturing])
                graphs[capturing] += 1
                capturing = None
            elif r < 0.55 and not done and allocated < LIVE_LIMIT:
                size = random_size(rng)
                ops.append(["alloc", next_id, size])
                live[next_id] = size
                allocated += size
                next_id += 1
            elif live:
                victim = rng.choice(sorted(live))
                ops.append(["free", victim])
                allocated -= live.pop(victim)
            continue
        if not done and r < 0.04:
            # A pool all of whose graphs were released cannot take another capture.
            shared = [p for p in pools if graphs[p] > 0]
            if not shared or rng.random() < 0.4:
                pool = len(pools) + 1
                pools.append(pool)
                graphs[pool] = 0
                ops.append(["pool_create", pool])
            else:
                pool = rng.choice(shared)
            ops.append(["capture_begin", pool])
            capturing = pool
        elif r < 0.06:
            ops.append(["empty_cache"])
        elif r < 0.075 and any(graphs.values()):
            pool = rng.choice([p for p in pools if graphs[p] > 0])
            ops.append(["pool_release", pool])
            graphs[pool] -= 1
        elif not done and r < 0.57 and allocated < LIVE_LIMIT:
            size = random_size(rng)
            ops.append(["alloc", next_id, size])
            live[next_id] = size
            allocated += size
            next_id += 1
        elif live:
            victim = rng.choice(sorted(live))
            ops.append(["free", victim])
            allocated -= live.pop(victim)
    ops.append(["empty_cache"])
    return ops


def cmd_generate(out):
    os.makedirs(out, exist_ok=True)
    for name, (conf, seed, lifetimes) in CONFIGS.items():
        ops = generate(seed, lifetimes)
        with open(os.path.join(out, "ops_%s.json" % name), "w") as f:
            json.dump({"config": name, "pytorch_cuda_alloc_conf": conf, "seed": seed,
                       "lifetimes": lifetimes, "ops": ops}, f)
            f.write("\n")
        print("alloc_diff: %s: %d operations" % (name, len(ops)))
    return 0


def from_ops(trace):
    """The allocator operations of a gpumem.ops trace, in alloc_diff's vocabulary."""
    ops = []
    program = trace["ops"]
    for i, op in enumerate(program):
        code = op[0]
        if code == "alloc":
            ops.append(["alloc", op[1], op[2]])
        elif code == "free":
            ops.append(["free", op[1]])
        elif code in ("empty_cache",):
            ops.append([code])
        elif code in ("pool_create", "pool_release"):
            ops.append([code, op[1]])
        elif code == "pool_begin":
            # Device::begin_graph_capture follows the routing (opstrace README): one capture.
            if i + 1 >= len(program) or program[i + 1][0] != "capture_begin":
                raise SystemExit("alloc_diff: pool_begin at operation %d starts no capture" % i)
            ops.append(["capture_begin", op[1]])
        elif code == "pool_end":
            ops.append(["capture_end", op[1]])
    return ops


def cmd_from_ops(path, out, alloc_conf):
    with open(path) as f:
        trace = json.load(f)
    ops = from_ops(trace)
    conf = trace["pytorch_cuda_alloc_conf"] if alloc_conf is None else alloc_conf
    name = os.path.basename(out)[len("ops_"):-len(".json")]
    with open(out, "w") as f:
        json.dump({"config": name, "pytorch_cuda_alloc_conf": conf, "seed": None,
                   "lifetimes": sum(1 for op in ops if op[0] == "alloc"),
                   "program": {"scenario": trace["scenario"], "engine": trace["engine"],
                               "format": trace["format"], "calibration": trace["calibration"],
                               "rank": trace["rank"]},
                   "ops": ops}, f)
        f.write("\n")
    print("alloc_diff: %s: %d allocator operations of %d" % (name, len(ops), len(trace["ops"])))
    return 0


def cmd_run(path, out):
    with open(path) as f:
        spec = json.load(f)
    if spec["pytorch_cuda_alloc_conf"]:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = spec["pytorch_cuda_alloc_conf"]
    else:
        os.environ.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    import torch
    torch.cuda.set_device(0)
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    tensors, pools, graphs = {}, {}, {}
    capture = None
    observed = []
    error = None

    def observe(ptr):
        st = torch.cuda.memory_stats(0)
        snap = torch.cuda.memory_snapshot()
        observed.append([st.get("allocated_bytes.all.current", 0),
                         st.get("reserved_bytes.all.current", 0),
                         st.get("segment.all.current", 0),
                         len(snap),
                         st.get("num_device_alloc", 0),
                         st.get("num_device_free", 0),
                         ptr])

    for op in spec["ops"]:
        code = op[0]
        ptr = 0
        try:
            if code == "alloc":
                tensors[op[1]] = torch.empty(op[2], dtype=torch.uint8, device="cuda")
                ptr = tensors[op[1]].data_ptr()
            elif code == "free":
                del tensors[op[1]]
            elif code == "empty_cache":
                torch.cuda.empty_cache()
            elif code == "pool_create":
                pools[op[1]] = torch.cuda.graph_pool_handle()
                graphs[op[1]] = []
            elif code == "capture_begin":
                torch.cuda.synchronize()
                ctx = torch.cuda.stream(side)
                ctx.__enter__()
                g = torch.cuda.CUDAGraph()
                g.capture_begin(pool=pools[op[1]], capture_error_mode="relaxed")
                torch.cuda._sleep(0)
                capture = (g, ctx)
            elif code == "capture_end":
                g, ctx = capture
                g.capture_end()
                ctx.__exit__(None, None, None)
                graphs[op[1]].append(g)
                capture = None
            elif code == "pool_release":
                graphs[op[1]].pop(0).reset()
            else:
                raise SystemExit("unknown operation " + code)
        except RuntimeError as e:
            error = {"op": len(observed), "code": code, "message": str(e).split("\n")[0]}
            break
        observe(ptr)
    result = {"config": spec["config"], "pytorch_cuda_alloc_conf": spec["pytorch_cuda_alloc_conf"],
              "seed": spec["seed"], "lifetimes": spec["lifetimes"],
              "program": spec.get("program"), "torch": torch.__version__,
              "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
              "columns": ["allocated", "reserved", "segments", "snapshot_segments",
                          "device_mallocs", "device_frees", "address"],
              "error": error, "ops": spec["ops"], "observed": observed}
    with open(out, "w") as f:
        json.dump(result, f)
        f.write("\n")
    print("alloc_diff: %s: %d of %d operations%s" % (spec["config"], len(observed),
                                                   len(spec["ops"]),
                                                   "" if error is None else ", " + str(error)))
    return 0 if error is None else 3


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    o = sub.add_parser("from-ops")
    o.add_argument("trace")
    o.add_argument("--out", required=True)
    o.add_argument("--alloc-conf")
    r = sub.add_parser("run")
    r.add_argument("ops")
    r.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "generate":
        return cmd_generate(a.out)
    if a.cmd == "from-ops":
        return cmd_from_ops(a.trace, a.out, a.alloc_conf)
    return cmd_run(a.ops, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
