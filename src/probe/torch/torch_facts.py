#!/usr/bin/env python3
"""Measures what a PyTorch process adds to a raw CUDA one, each fact in a fresh process.

A serving engine is a PyTorch process. Its context is the raw one, but PyTorch adds: a pool
of streams at the first side stream, kernel modules loaded outside the allocator at the
first use of each kernel family (lazy loading), cuBLAS handles and workspaces at the first
GEMM, two generator tensors at the first graph capture, NCCL communicators of its own
process groups. Each measurement below runs in a new process (CUDA and NCCL state would
leak from one to the next), one after the other on GPU 0 (cudaMemGetInfo is device-wide),
and reads, around the one thing it measures:

  free    cudaMemGetInfo's free memory (torch.cuda.mem_get_info)
  alloc   torch.cuda.memory_allocated, reserved: torch.cuda.memory_reserved
  nvml    NVML's used memory (the only reading before the context exists)

"outside" = the drop of free memory minus the growth of reserved memory: what the driver,
the libraries or NCCL took outside PyTorch's allocator.

Usage: torch_facts.py --out DIR   (writes DIR/torch_facts.json; progress on stderr)
       torch_facts.py --one NAME  (one measurement, its JSON on stdout)
"""

import argparse
import inspect
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def nvml_used():
    try:
        import pynvml
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        return pynvml.nvmlDeviceGetMemoryInfo(h).used
    except Exception:
        return None


class Reader:
    """Named readings and the differences between consecutive ones."""

    def __init__(self, torch):
        self.torch = torch
        self.samples = []

    def read(self, at):
        t = self.torch
        free, total = t.cuda.mem_get_info(0)
        st = t.cuda.memory_stats(0)
        self.samples.append({"at": at, "free": free, "total": total,
                             "alloc": t.cuda.memory_allocated(0),
                             "reserved": t.cuda.memory_reserved(0),
                             "segments": st.get("segment.all.current", 0),
                             "nvml_used": nvml_used()})

    def deltas(self):
        out = []
        for a, b in zip(self.samples, self.samples[1:]):
            taken = a["free"] - b["free"]
            grown = b["reserved"] - a["reserved"]
            out.append({"step": b["at"], "taken": taken, "reserved_grown": grown,
                        "allocated_grown": b["alloc"] - a["alloc"],
                        "segments_grown": b["segments"] - a["segments"],
                        "outside": taken - grown})
        return out

    def result(self, **extra):
        r = {"samples": self.samples, "deltas": self.deltas()}
        r.update(extra)
        return r


def start(torch):
    torch.cuda.set_device(0)
    torch.cuda.synchronize()
    r = Reader(torch)
    r.read("context")
    return r


# ---- measurements ---------------------------------------------------------------------------

def m_context():
    before = nvml_used()
    import torch
    torch.cuda.set_device(0)
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info(0)
    after = nvml_used()
    return {"CUDA_MODULE_LOADING": os.environ.get("CUDA_MODULE_LOADING"),
            "nvml_used_before": before, "nvml_used_after": after,
            "taken_nvml": None if before is None or after is None else after - before,
            "cuda_free": free, "cuda_total": total, "total_minus_free": total - free}


def m_side_stream():
    import torch
    r = start(torch)
    s1 = torch.cuda.Stream()
    r.read("first side stream")
    s2 = torch.cuda.Stream()
    r.read("second side stream")
    s3 = torch.cuda.Stream(priority=-1)
    r.read("first high-priority stream")
    del s1, s2, s3
    return r.result()


def kernel_family(name):
    """The inputs (allocated before the first reading, with torch.empty: no kernel, so no
    module is loaded before the family's own) and the operation of one family."""
    import torch
    f = torch.nn.functional
    dev = "cuda"

    def e(*shape, dtype=torch.bfloat16):
        return torch.empty(*shape, dtype=dtype, device=dev)
    ops = {
        "sleep": ({}, lambda x: torch.cuda._sleep(0)),
        "fill": ({"t": e(1 << 20)}, lambda x: x["t"].fill_(1.0)),
        "zero": ({"t": e(1 << 20)}, lambda x: x["t"].zero_()),
        "add": ({"a": e(1 << 20), "b": e(1 << 20)}, lambda x: x["a"].add_(x["b"])),
        "copy": ({"a": e(1 << 20), "b": e(1 << 20)}, lambda x: x["a"].copy_(x["b"])),
        "cast": ({"a": e(1 << 20, dtype=torch.float32), "b": e(1 << 20)},
                 lambda x: x["a"].copy_(x["b"])),
        "embedding": ({"w": e(4096, 256), "i": e(64, dtype=torch.int64)},
                      lambda x: f.embedding(x["i"].clamp_(0, 0), x["w"])),
        "index_copy": ({"kv": e(4096, 256), "i": e(64, dtype=torch.int64), "v": e(64, 256)},
                       lambda x: x["kv"].index_copy_(0, x["i"].clamp_(0, 0), x["v"])),
        "softmax": ({"a": e(64, 4096, dtype=torch.float32)}, lambda x: torch.softmax(x["a"], -1)),
        "layer_norm": ({"a": e(64, 4096), "w": e(4096)},
                       lambda x: f.layer_norm(x["a"], (4096,), x["w"])),
        "rms_norm": ({"a": e(64, 4096), "w": e(4096)},
                     lambda x: f.rms_norm(x["a"], (4096,), x["w"])),
        "silu": ({"a": e(64, 4096)}, lambda x: f.silu(x["a"])),
        "gemm_bf16": ({"a": e(256, 256), "b": e(256, 256), "o": e(256, 256)},
                      lambda x: torch.matmul(x["a"], x["b"], out=x["o"])),
        "gemm_fp16": ({"a": e(256, 256, dtype=torch.float16), "b": e(256, 256, dtype=torch.float16),
                       "o": e(256, 256, dtype=torch.float16)},
                      lambda x: torch.matmul(x["a"], x["b"], out=x["o"])),
        "gemm_fp32": ({"a": e(256, 256, dtype=torch.float32), "b": e(256, 256, dtype=torch.float32),
                       "o": e(256, 256, dtype=torch.float32)},
                      lambda x: torch.matmul(x["a"], x["b"], out=x["o"])),
        "topk": ({"a": e(64, 32000, dtype=torch.float32)}, lambda x: torch.topk(x["a"], 8, dim=-1)),
        "argmax": ({"a": e(64, 32000, dtype=torch.float32)}, lambda x: torch.argmax(x["a"], dim=-1)),
        "sort": ({"a": e(64, 32000, dtype=torch.float32)}, lambda x: torch.sort(x["a"], dim=-1)),
        "cumsum": ({"a": e(64, 32000, dtype=torch.float32)}, lambda x: torch.cumsum(x["a"], -1)),
        "randn": ({"a": e(1 << 20, dtype=torch.float32)}, lambda x: x["a"].normal_()),
    }
    if name in ("sdpa_flash", "sdpa_efficient"):
        backend = {"sdpa_flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION,
                   "sdpa_efficient": torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION}[name]

        def run(x):
            with torch.nn.attention.sdpa_kernel(backend):
                return f.scaled_dot_product_attention(x["q"], x["q"], x["q"], is_causal=True)
        return {"q": e(1, 8, 128, 128)}, run
    if name not in ops:
        raise SystemExit("unknown kernel family " + name)
    return ops[name]


FAMILIES = ("sleep", "fill", "zero", "add", "copy", "cast", "embedding", "index_copy",
            "softmax", "layer_norm", "rms_norm", "silu", "gemm_bf16", "gemm_fp16", "gemm_fp32",
            "sdpa_flash", "sdpa_efficient", "topk", "argmax", "sort", "cumsum", "randn")


def m_kernel(name):
    import torch
    torch.cuda.set_device(0)
    torch.cuda.synchronize()
    inputs, op = kernel_family(name)
    torch.cuda.synchronize()
    r = Reader(torch)
    r.read("inputs allocated")
    out1 = op(inputs)
    torch.cuda.synchronize()
    r.read("first " + name)
    out2 = op(inputs)
    torch.cuda.synchronize()
    r.read("second " + name)
    del out1, out2
    return r.result(family=name)


def m_kernel_after_fill(name):
    """A family's first use once a fill kernel ran: what it loads beyond the common module."""
    import torch
    torch.cuda.set_device(0)
    inputs, op = kernel_family(name)
    warm = torch.empty(1 << 20, dtype=torch.bfloat16, device="cuda")
    warm.fill_(0)
    torch.cuda.synchronize()
    r = Reader(torch)
    r.read("inputs allocated, fill kernel ran")
    out = op(inputs)
    torch.cuda.synchronize()
    r.read("first " + name)
    del out
    return r.result(family=name)


def m_cublas_init():
    """SGLang's init_cublas: one fp16 16x16 matmul (model_runner.py)."""
    import torch
    r = start(torch)
    a = torch.zeros(16, 16, dtype=torch.float16, device="cuda")
    b = torch.zeros(16, 16, dtype=torch.float16, device="cuda")
    torch.cuda.synchronize()
    r.read("inputs")
    c = a @ b
    torch.cuda.synchronize()
    r.read("first fp16 matmul")
    s = torch.cuda.Stream()
    r.read("side stream")
    with torch.cuda.stream(s):
        d = a @ b
    torch.cuda.synchronize()
    r.read("first matmul on a side stream")
    del c, d
    return r.result(CUBLAS_WORKSPACE_CONFIG=os.environ.get("CUBLAS_WORKSPACE_CONFIG"))


def m_cublas_raw():
    """The runner's load_library("cublas"): a raw handle and one SGEMM (run_ops.py)."""
    import torch
    sys.path.insert(0, HERE)
    import run_ops
    r = start(torch)
    handle = run_ops.load_cublas(torch, 0, run_ops.Driver())
    r.read("raw cuBLAS handle and first SGEMM")
    del handle
    return r.result()


def m_first_capture():
    import torch
    r = start(torch)
    s = torch.cuda.Stream()
    r.read("side stream")
    pool = torch.cuda.graph_pool_handle()
    graphs = []
    for i in range(3):
        g = torch.cuda.CUDAGraph()
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            g.capture_begin(pool=pool, capture_error_mode="relaxed")
            torch.cuda._sleep(0)
            g.capture_end()
        torch.cuda.synchronize()
        graphs.append(g)
        r.read("capture %d (one kernel)" % (i + 1))
    segments = [{"stream": x["stream"], "total_size": x["total_size"],
                 "allocated_size": x["allocated_size"], "segment_type": x["segment_type"],
                 "segment_pool_id": list(x.get("segment_pool_id", ())),
                 "blocks": [(b["size"], b["state"]) for b in x["blocks"]]}
                for x in torch.cuda.memory_snapshot()]
    torch.cuda.empty_cache()
    r.read("empty_cache with the graphs alive")
    for g in graphs:
        g.reset()
    torch.cuda.empty_cache()
    r.read("graphs reset, empty_cache")
    return r.result(segments_after_captures=segments)


def m_graph_nodes():
    import torch
    r = start(torch)
    s = torch.cuda.Stream()
    a = torch.zeros(1024, device="cuda")
    pool = torch.cuda.graph_pool_handle()
    g0 = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s):  # the first capture's own costs, out of the way
        g0.capture_begin(pool=pool, capture_error_mode="relaxed")
        torch.cuda._sleep(0)
        g0.capture_end()
    torch.cuda.synchronize()
    a.add_(1)
    torch.cuda.synchronize()
    r.read("first capture done, add kernel loaded")
    graphs = [g0]
    for kernel, nodes in (("sleep", 1000), ("sleep", 10000), ("add", 1000), ("add", 10000)):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.stream(s):
            g.capture_begin(pool=pool, capture_error_mode="relaxed")
            for _ in range(nodes):
                if kernel == "sleep":
                    torch.cuda._sleep(0)
                else:
                    a.add_(1)
            g.capture_end()
        torch.cuda.synchronize()
        graphs.append(g)
        r.read("%d %s nodes" % (nodes, kernel))
    return r.result()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def m_process_group(eager):
    import torch
    import torch.distributed as dist
    r = start(torch)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    kw = {"device_id": torch.device("cuda", 0)} if eager else {}
    x = torch.empty(1, device="cuda")
    y = torch.empty(64 << 20 >> 2, device="cuda")
    torch.cuda.synchronize()
    r.read("buffers")
    dist.init_process_group(backend="nccl", rank=0, world_size=1, **kw)
    torch.cuda.synchronize()
    r.read("init_process_group (%s)" % ("eager, device_id" if eager else "lazy"))
    dist.all_reduce(x)
    torch.cuda.synchronize()
    r.read("first all_reduce, 4 B")
    dist.all_reduce(y)
    torch.cuda.synchronize()
    r.read("first all_reduce, 64 MiB")
    s = torch.cuda.Stream()
    r.read("first side stream after NCCL")
    y.fill_(0)
    torch.cuda.synchronize()
    r.read("first fill after NCCL")
    del s
    dist.destroy_process_group()
    return r.result(NCCL_CUMEM_ENABLE=os.environ.get("NCCL_CUMEM_ENABLE"),
                    nccl=".".join(map(str, torch.cuda.nccl.version())))


def m_environment():
    import torch
    torch.cuda.set_device(0)
    p = torch.cuda.get_device_properties(0)
    graph_enter = inspect.getsource(torch.cuda.graph.__enter__)
    return {"torch": torch.__version__, "cuda": torch.version.cuda,
            "nccl": ".".join(map(str, torch.cuda.nccl.version())),
            "device": p.name, "total_memory": p.total_memory,
            "sm_count": p.multi_processor_count,
            "allocator_backend": torch.cuda.get_allocator_backend(),
            "torch.cuda.graph.__enter__": graph_enter,
            "graph_enter_empties_cache": "empty_cache()" in graph_enter}


# name -> (function, environment for the child)
MEASUREMENTS = {
    "environment": (m_environment, {}),
    "context_lazy": (m_context, {"CUDA_MODULE_LOADING": "LAZY"}),
    "context_eager": (m_context, {"CUDA_MODULE_LOADING": "EAGER"}),
    "side_stream": (m_side_stream, {}),
    "cublas_init": (m_cublas_init, {}),
    "cublas_init_no_workspace": (m_cublas_init, {"CUBLAS_WORKSPACE_CONFIG": ":0:0"}),
    "cublas_raw": (m_cublas_raw, {}),
    "first_capture": (m_first_capture, {}),
    "graph_nodes": (m_graph_nodes, {}),
    "process_group_eager_cumem0": (lambda: m_process_group(True), {"NCCL_CUMEM_ENABLE": "0"}),
    "process_group_eager_cumem1": (lambda: m_process_group(True), {"NCCL_CUMEM_ENABLE": "1"}),
    "process_group_lazy_cumem0": (lambda: m_process_group(False), {"NCCL_CUMEM_ENABLE": "0"}),
    "process_group_lazy_cumem1": (lambda: m_process_group(False), {"NCCL_CUMEM_ENABLE": "1"}),
}
for _family in FAMILIES:
    MEASUREMENTS["kernel_" + _family] = ((lambda f=_family: m_kernel(f)), {})
    MEASUREMENTS["kernel_after_fill_" + _family] = ((lambda f=_family: m_kernel_after_fill(f)), {})
# The same facts in a process that loads every module at context creation: what of them
# CUDA_MODULE_LOADING=EAGER moves into the context.
_EAGER = {"CUDA_MODULE_LOADING": "EAGER"}
for _name in ("side_stream", "cublas_init", "cublas_raw", "first_capture", "graph_nodes",
              "process_group_lazy_cumem0", "process_group_eager_cumem0"):
    MEASUREMENTS[_name + "_eager"] = (MEASUREMENTS[_name][0], {**MEASUREMENTS[_name][1], **_EAGER})
for _family in ("sleep", "fill", "gemm_bf16", "softmax", "sdpa_flash", "topk"):
    MEASUREMENTS["kernel_" + _family + "_eager"] = (MEASUREMENTS["kernel_" + _family][0], _EAGER)


def run_all(out_dir, only):
    results = {}
    for name, (_, env) in MEASUREMENTS.items():
        if only and name not in only:
            continue
        child_env = dict(os.environ)
        child_env.update(env)
        child_env["NCCL_NVLS_ENABLE"] = "0"
        child_env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
        t0 = time.time()
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name],
                           env=child_env, capture_output=True, text=True, timeout=300)
        entry = {"env": env, "wall_s": round(time.time() - t0, 2), "exit": p.returncode}
        if p.returncode == 0:
            entry["data"] = json.loads(p.stdout)
        else:
            entry["stderr"] = p.stderr[-4000:]
        results[name] = entry
        print("torch_facts: %-28s exit %d, %.1f s" % (name, p.returncode, entry["wall_s"]),
              file=sys.stderr)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "torch_facts.json"), "w") as f:
        json.dump({"schema": "gpumem-torch-facts/1", "measurements": results}, f, indent=1)
        f.write("\n")
    return 0 if all(e["exit"] == 0 for e in results.values()) else 3


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--one")
    ap.add_argument("--only", default="", help="comma-separated measurement names")
    a = ap.parse_args(argv)
    if a.one:
        json.dump(MEASUREMENTS[a.one][0](), sys.stdout)
        return 0
    if not a.out:
        ap.error("give --out DIR or --one NAME")
    return run_all(a.out, set(filter(None, a.only.split(","))))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
