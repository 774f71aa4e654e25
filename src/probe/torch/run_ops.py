#!/usr/bin/env python3
"""Replays a gpumem operation trace inside a real PyTorch process: the torch probe.

`gpumem export-ops SCENARIO -o DIR` writes, per rank, every step, allocator request, graph
capture, collective, library load and PyTorch-resource use of the scenario's start-up
program (format "gpumem.ops/2", src/opstrace/README.md). This runner executes them in a
PyTorch process on one GPU per rank -- tensors through PyTorch's caching allocator, captures through
torch.cuda.CUDAGraph with private pools, collectives through torch.distributed's NCCL --
and after every step records cudaMemGetInfo, NVML and the allocator's own numbers in the
trace format gpumem-probe writes ("gpumem.trace/2", src/probe/README.md), marked
"probe": "torch". It adds no engine logic: every size and every order comes from the trace.

What a replay cannot take from the trace, and does its own way (recorded in the trace's
"runner" object):
  * kernels: each kernel the program launches is one torch.cuda._sleep(0) kernel (the
    memory a kernel touches is already allocated; what differs between kernels is their
    module and their node in a captured graph);
  * cuBLAS: load_library("cublas") creates a cuBLAS handle through the library PyTorch
    loaded and runs one 256x256 SGEMM on buffers of its own (cuMemAlloc), as gpumem-probe
    does -- not a torch matmul, which would also take PyTorch's own cuBLAS workspace, which
    the trace requests separately;
  * the capture stream: the first capture creates one side stream (PyTorch's stream pool).

Operations it refuses by name rather than fake: CUDA IPC (custom all-reduce buffers),
collectives on a scratch buffer, and a capture not routed to a private pool.

Usage (one process per rank; RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT as
torchrun sets them when the trace has more than one rank):
    run_ops.py ops.rank0.json --out DIR
    run_ops.py ops.rank0.json --check     (no GPU, no torch: is the trace one this runner
                                           replays? every operation known, with its
                                           arguments, in an order the replay can follow)
Exit codes: 0 every step ended ok (or the trace checks), 3 a step did not, 2 a bad trace.
"""

import argparse
import ctypes
import glob
import json
import os
import socket
import sys
import time

# gpumem.ops/2 adds the "torch" operation (the program's first uses of PyTorch's stream pool
# and ATen module); a v1 trace is a /2 trace without it.
OPS_FORMATS = ("gpumem.ops/2", "gpumem.ops.v1")
TRACE_FORMAT = "gpumem.trace/2"
CATEGORIES = ("context", "communication", "weights", "kv", "graphs", "workspace",
              "activations", "other")
GEMM_N = 256  # gpumem-probe's first GEMM (src/probe/cuda_device.cc kFirstGemmN)


class BadTrace(Exception):
    """The trace is not one this runner can replay faithfully."""


class StepFailed(Exception):
    """An operation failed on the GPU; `outcome` is the trace's outcome name."""

    def __init__(self, outcome, message):
        super().__init__(message)
        self.outcome = outcome


def monotonic():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class Nvml:
    """NVML readings through nvidia-ml-py (pynvml); every field None when unavailable."""

    def __init__(self, index):
        self.handle = None
        self.error = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        except Exception as e:  # NVML missing or refused: readings are null, and why is kept
            self.error = "%s: %s" % (type(e).__name__, e)

    def read(self, sample):
        if self.handle is None:
            return
        n = self.nvml
        try:
            m = n.nvmlDeviceGetMemoryInfo(self.handle)
            sample.update(nvml_total=m.total, nvml_free=m.free, nvml_used=m.used)
        except n.NVMLError:
            pass
        try:
            m = n.nvmlDeviceGetMemoryInfo(self.handle, version=n.nvmlMemory_v2)
            sample.update(nvml_v2_total=m.total, nvml_v2_reserved=m.reserved,
                          nvml_v2_free=m.free, nvml_v2_used=m.used)
        except (n.NVMLError, AttributeError, TypeError):
            pass
        try:
            for p in n.nvmlDeviceGetComputeRunningProcesses(self.handle):
                if p.pid == os.getpid():
                    sample["process_used"] = p.usedGpuMemory
        except n.NVMLError:
            pass

    def provenance(self):
        if self.handle is None:
            return None
        n = self.nvml

        def text(v):
            return v.decode() if isinstance(v, bytes) else v
        return {"driver_version": text(n.nvmlSystemGetDriverVersion()),
                "name": text(n.nvmlDeviceGetName(self.handle)),
                "uuid": text(n.nvmlDeviceGetUUID(self.handle))}


SAMPLE_KEYS = ("cuda_free", "cuda_total", "nvml_total", "nvml_free", "nvml_used",
               "nvml_v2_total", "nvml_v2_reserved", "nvml_v2_free", "nvml_v2_used",
               "process_used")


def find_library(soname_prefix, names):
    """A shared library PyTorch loaded (found by soname), else one in the nvidia wheels."""
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    for base in sys.path:
        for path in sorted(glob.glob(os.path.join(base, "nvidia", "**", soname_prefix + "*"),
                                     recursive=True)):
            try:
                return ctypes.CDLL(path)
            except OSError:
                pass
    raise StepFailed("error", "cannot load %s (tried %s and the nvidia wheels)"
                     % (soname_prefix, ", ".join(names)))


class Driver:
    """Raw device allocations through the driver API (cuMemAlloc, what cudaMalloc does), for
    the program's own cudaMallocs and the cuBLAS GEMM's buffers: nothing of PyTorch's."""

    def __init__(self):
        self.lib = find_library("libcuda.so", ["libcuda.so.1"])

    def alloc(self, size):
        ptr = ctypes.c_uint64(0)
        rc = self.lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(size))
        if rc == 2:  # CUDA_ERROR_OUT_OF_MEMORY
            raise StepFailed("out_of_memory", "cuMemAlloc(%d) failed: out of memory" % size)
        if rc != 0:
            raise StepFailed("error", "cuMemAlloc(%d) failed: CUresult %d" % (size, rc))
        return ptr.value

    def free(self, ptr):
        rc = self.lib.cuMemFree_v2(ctypes.c_uint64(ptr))
        if rc != 0:
            raise StepFailed("error", "cuMemFree failed: CUresult %d" % rc)

    def version(self):
        v = ctypes.c_int(0)
        self.lib.cuDriverGetVersion(ctypes.byref(v))
        return v.value


def load_cublas(torch, device, driver):
    """A cuBLAS handle on the current stream and one SGEMM, through the cuBLAS PyTorch
    loaded: the library's kernels and handle state, as gpumem-probe's load_library."""
    lib = find_library("libcublas.so", ["libcublas.so.13", "libcublas.so.12", "libcublas.so"])
    handle = ctypes.c_void_p()
    rc = lib.cublasCreate_v2(ctypes.byref(handle))
    if rc != 0:
        raise StepFailed("error", "cublasCreate failed: status %d" % rc)
    stream = torch.cuda.current_stream(device).cuda_stream
    lib.cublasSetStream_v2(handle, ctypes.c_void_p(stream))
    size = 4 * GEMM_N * GEMM_N
    a, b, c = (driver.alloc(size) for _ in range(3))
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    rc = lib.cublasSgemm_v2(handle, 0, 0, GEMM_N, GEMM_N, GEMM_N, ctypes.byref(one),
                            ctypes.c_void_p(a), GEMM_N, ctypes.c_void_p(b), GEMM_N,
                            ctypes.byref(zero), ctypes.c_void_p(c), GEMM_N)
    torch.cuda.synchronize(device)
    for p in (a, b, c):
        driver.free(p)
    if rc != 0:
        raise StepFailed("error", "cublasSgemm failed: status %d" % rc)
    return lib, handle


class Replay:
    def __init__(self, trace, env_rank, out_name):
        self.t = trace
        self.out_name = out_name
        self.rank = trace["rank"]
        self.world = trace["world_size"]
        self.local = trace["local_rank"]
        self.launcher = env_rank
        self.nvml = Nvml(self.local)
        self.context = False
        self.tensors = {}      # id -> (tensor, category, size)
        self.raw = {}          # id -> (device pointer, category, size)
        self.pools = {}        # gpumem pool id -> torch pool handle
        self.graphs = {}       # gpumem pool id -> captured graphs, oldest first
        self.pending_pool = None
        self.capture = None    # (graph, pool, stream context) while capturing
        self.pool_to_end = None
        self.stream = None
        self.stream_step = None
        self.aten_used = False
        self.comms = {}        # gpumem communicator index -> torch process group
        self.dist_ready = False
        self.cublas = None
        self.cuda = None
        self.steps = []
        self.step = None
        self.pending_log = []
        self.kernels_launched = 0

    # ---- readings -------------------------------------------------------------------------
    def sample(self):
        s = {"t_mono_s": monotonic()}
        for k in SAMPLE_KEYS:
            s[k] = None
        if self.context:
            free, total = self.torch.cuda.mem_get_info(self.local)
            s["cuda_free"], s["cuda_total"] = free, total
        self.nvml.read(s)
        return s

    def allocator_view(self):
        torch = self.torch
        st = torch.cuda.memory_stats(self.local) if self.context else {}
        return {"segments": st.get("segment.all.current", 0),
                "active_blocks": st.get("active.all.current", 0),
                "inactive_split_blocks": st.get("inactive_split.all.current", 0),
                "device_mallocs": st.get("num_device_alloc", 0),
                "device_frees": st.get("num_device_free", 0),
                "alloc_retries": st.get("num_alloc_retries", 0),
                "ooms": st.get("num_ooms", 0),
                "allocated_peak": st.get("allocated_bytes.all.peak", 0),
                "reserved_peak": st.get("reserved_bytes.all.peak", 0)}

    # ---- steps ----------------------------------------------------------------------------
    def begin(self, name):
        self.step = {"name": name, "before": self.sample(), "log": self.pending_log,
                     "readings": []}
        self.pending_log = []

    def end(self, outcome, message, exported_outcome, emulated):
        s = self.step
        after = self.sample()
        torch = self.torch
        own = {c: 0 for c in CATEGORIES}
        for _, cat, size in self.tensors.values():
            own[cat] += size
        for _, cat, size in self.raw.values():
            own[cat] += size
        self.steps.append({
            "name": s["name"], "outcome": outcome, "message": message,
            "wall_s": after["t_mono_s"] - s["before"]["t_mono_s"],
            "before": s["before"], "after": after,
            "allocated_after_bytes": torch.cuda.memory_allocated(self.local) if self.context else 0,
            "reserved_after_bytes": torch.cuda.memory_reserved(self.local) if self.context else 0,
            "own_allocations_after_bytes": own,
            "log": s["log"],
            "exported_outcome": exported_outcome,
            "emulated_after": emulated,
            "torch_allocator_after": self.allocator_view(),
            "readings": s["readings"]})
        self.step = None

    # ---- operations -----------------------------------------------------------------------
    def op_context(self):
        torch = self.torch
        torch.cuda.set_device(self.local)
        torch.cuda.synchronize(self.local)  # the context exists from here on, whatever the CUDA
        self.context = True

    def op_mem_get_info(self, simulated_free):
        free, _ = self.torch.cuda.mem_get_info(self.local)
        self.step["readings"].append({"simulated_free": simulated_free, "measured_free": free})

    def op_alloc(self, ident, size, category, expect_oom=False):
        torch = self.torch
        try:
            t = torch.empty(size, dtype=torch.uint8, device="cuda:%d" % self.local)
        except torch.cuda.OutOfMemoryError as e:
            raise StepFailed("out_of_memory", str(e).split("\n")[0])
        if expect_oom:
            del t
            raise StepFailed("error", "the simulator ran out of memory at this %d-byte request, "
                                      "PyTorch did not" % size)
        self.tensors[ident] = (t, category, size)

    def op_free(self, ident):
        del self.tensors[ident]  # the runner holds the only reference: the block is freed here

    def op_pool_begin(self, pool):
        if pool not in self.pools:
            raise BadTrace("routing to pool %d, which was never created" % pool)
        self.pending_pool = pool

    def op_capture_begin(self):
        torch = self.torch
        if self.pending_pool is None:
            raise BadTrace("a capture not routed to a private pool: PyTorch always gives a "
                           "capture one, gpumem's emulation would use the default pools")
        pool = self.pending_pool
        self.pending_pool = None
        if self.stream is None:
            self.stream = torch.cuda.Stream(self.local)
            self.stream_step = self.step["name"]
        torch.cuda.synchronize(self.local)
        ctx = torch.cuda.stream(self.stream)
        ctx.__enter__()
        g = torch.cuda.CUDAGraph()
        g.capture_begin(pool=self.pools[pool], capture_error_mode="relaxed")
        self.capture = (g, pool, ctx)

    def op_capture_end(self):
        if self.capture is None:
            raise BadTrace("capture_end without capture_begin")
        g, pool, ctx = self.capture
        g.capture_end()
        ctx.__exit__(None, None, None)
        self.capture = None
        self.graphs.setdefault(pool, []).append(g)
        self.pool_to_end = pool

    def op_pool_end(self, pool):
        if self.pool_to_end != pool:
            raise BadTrace("pool_end %d does not follow the capture routed to it" % pool)
        self.pool_to_end = None

    def op_pool_release(self, pool):
        graphs = self.graphs.get(pool, [])
        if not graphs:
            raise BadTrace("pool_release %d: no captured graph uses it" % pool)
        graphs.pop(0).reset()

    def op_kernels(self, count):
        sleep = self.torch.cuda._sleep
        for _ in range(count):
            sleep(0)
        self.kernels_launched += count
        if self.capture is None:
            self.torch.cuda.synchronize(self.local)

    def driver(self):
        if self.cuda is None:
            self.cuda = Driver()
        return self.cuda

    def op_malloc(self, ident, size, category):
        self.raw[ident] = (self.driver().alloc(size), category, size)

    def op_raw_free(self, ident):
        if ident not in self.raw:
            raise BadTrace("raw_free of %d, which is no raw allocation" % ident)
        self.driver().free(self.raw.pop(ident)[0])

    def op_torch(self, resource):
        """The program's use of a resource PyTorch creates once: the stream pool (a side
        stream, which the first capture then runs on) or the ATen module (a fill kernel on
        four bytes outside the allocator, so PyTorch's allocator sees nothing)."""
        torch = self.torch
        if resource == "stream_pool":
            if self.stream is None:
                self.stream = torch.cuda.Stream(self.local)
                self.stream_step = self.step["name"]
        elif resource == "aten":
            if not self.aten_used:
                ptr = self.driver().alloc(4)
                raw = type("Raw", (), {"__cuda_array_interface__": {
                    "shape": (1,), "typestr": "<f4", "data": (ptr, False), "version": 3,
                    "strides": None}})()
                torch.as_tensor(raw, device="cuda:%d" % self.local).zero_()
                torch.cuda.synchronize(self.local)
                self.driver().free(ptr)
                self.aten_used = True
        else:
            raise BadTrace("torch resource '%s': the runner knows stream_pool and aten" % resource)

    def op_library(self, name):
        if name != "cublas":
            raise BadTrace("load_library('%s'): the runner knows cublas" % name)
        if self.cublas is not None:
            return
        if self.capture is not None:
            raise BadTrace("load_library(cublas) during a capture")
        self.cublas = load_cublas(self.torch, self.local, self.driver())

    # ---- communication --------------------------------------------------------------------
    def dist(self):
        """torch.distributed with gloo for host exchanges, once, when the trace needs it."""
        import torch.distributed as dist
        if not self.dist_ready:
            if self.world == 1 and "MASTER_ADDR" not in os.environ:
                # One rank needs no launcher, only a port of its own for the store.
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    port = s.getsockname()[1]
                os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
            dist.init_process_group(backend="gloo", rank=self.rank, world_size=self.world)
            self.dist_ready = True
        return dist

    def op_comm_create(self, index, ranks):
        dist = self.dist()
        dev = self.torch.device("cuda", self.local)
        try:
            group = dist.new_group(ranks=ranks, backend="nccl", device_id=dev)
        except TypeError:  # a PyTorch whose new_group has no device_id: connect explicitly
            group = dist.new_group(ranks=ranks, backend="nccl")
            group._get_backend(dev).eager_connect_single_device(dev)
        self.comms[index] = group

    def op_all_reduce(self, index, buffer, size):
        if buffer is None:
            raise BadTrace("an all-reduce on the implementation's scratch buffer: the runner "
                           "replays collectives on the program's tensors only")
        kind, ident = buffer
        if kind != "block":
            raise BadTrace("an all-reduce on a raw allocation: not replayed")
        t = self.tensors[ident][0][:size]
        view = t.view(self.torch.float32) if size % 4 == 0 else t
        self.dist().all_reduce(view, group=self.comms[index])
        if self.capture is None:
            self.torch.cuda.synchronize(self.local)

    def op_host_min(self):
        if self.world == 1:
            return  # one rank: the MIN is its own value, and there is nobody to wait for
        torch = self.torch
        value = torch.zeros(1, dtype=torch.int64)  # a CPU tensor: no device memory
        self.dist().all_reduce(value, op=self.dist().ReduceOp.MIN)

    def op_host_barrier(self):
        if self.world > 1:
            self.dist().barrier()

    # ---- the whole trace ------------------------------------------------------------------
    def run(self):
        import torch
        self.torch = torch
        self.initial = self.sample()
        ops = self.t["ops"]
        failed = None
        i = 0
        while i < len(ops):
            op = ops[i]
            code, args = op[0], op[1:]
            i += 1
            if code == "log":
                (self.step["log"] if self.step else self.pending_log).append(args[0])
                continue
            if code == "step":
                self.begin(args[0])
                continue
            if code == "end":
                # Every operation ran: the step ends as the program's did (an engine that
                # stops itself, say, stops at the same step after the same operations).
                self.end(args[0], args[1], args[0], args[2])
                continue
            if self.step is None:
                raise BadTrace("operation %s outside a step" % code)
            try:
                self.apply(code, args)
            except StepFailed as e:
                failed = e
            except torch.cuda.OutOfMemoryError as e:
                failed = StepFailed("out_of_memory", str(e).split("\n")[0])
            except RuntimeError as e:
                failed = StepFailed("error", "%s: %s" % (code, str(e).split("\n")[0]))
            if failed is not None:
                # The step ends here; so does the start-up, as the engine's would.
                exported = "?"
                for later in ops[i:]:
                    if later[0] == "end":
                        exported = later[1]
                        break
                self.end(failed.outcome, str(failed), exported, None)
                break
        return failed

    def apply(self, code, args):
        simple = {
            "context": self.op_context,
            "mem_get_info": self.op_mem_get_info,
            "alloc": self.op_alloc,
            "free": self.op_free,
            "empty_cache": lambda: self.torch.cuda.empty_cache(),
            "reset_peak": lambda: self.torch.cuda.reset_peak_memory_stats(self.local),
            "pool_create": lambda p: self.pools.__setitem__(p, self.torch.cuda.graph_pool_handle()),
            "pool_begin": self.op_pool_begin,
            "pool_end": self.op_pool_end,
            "pool_release": self.op_pool_release,
            "capture_begin": self.op_capture_begin,
            "torch": self.op_torch,
            "capture_end": self.op_capture_end,
            "kernels": lambda count, _bytes: self.op_kernels(count),
            "library": self.op_library,
            "malloc": self.op_malloc,
            "raw_free": self.op_raw_free,
            "comm_create": self.op_comm_create,
            "all_reduce": self.op_all_reduce,
            "host_min": self.op_host_min,
            "host_barrier": self.op_host_barrier,
        }
        if code == "alloc_failed":
            self.op_alloc(-1, args[0], args[1], expect_oom=True)
            return
        if code in ("malloc_failed",):
            raise BadTrace("a raw allocation the simulator could not fit: not replayed")
        if code in ("ipc_export", "ipc_open", "ipc_close", "host_all_gather"):
            raise BadTrace("%s: CUDA IPC (custom all-reduce buffers) is not replayed by the "
                           "torch runner; run this scenario with gpumem-probe" % code)
        if code not in simple:
            raise BadTrace("unknown operation '%s'" % code)
        simple[code](*args)

    # ---- output ---------------------------------------------------------------------------
    def provenance(self):
        torch = self.torch
        prov = {"probe": "torch", "hostname": socket.gethostname(), "pid": os.getpid(),
                "python": sys.version.split()[0], "torch_version": torch.__version__,
                "torch_cuda": torch.version.cuda, "env": {}}
        for k, v in sorted(os.environ.items()):
            if k.startswith(("NCCL_", "CUDA_", "PYTORCH_", "TORCH_")):
                prov["env"][k] = v
        cuda = torch.version.cuda or "0.0"
        major, minor = (int(x) for x in cuda.split(".")[:2])
        prov["cuda_runtime_version"] = major * 1000 + minor * 10
        try:
            prov["cuda_driver_version"] = self.driver().version()
        except StepFailed:
            prov["cuda_driver_version"] = None
        nccl = torch.cuda.nccl.version() if hasattr(torch.cuda, "nccl") else None
        if isinstance(nccl, tuple):
            nccl = nccl[0] * 10000 + nccl[1] * 100 + nccl[2]
        prov["nccl_version"] = nccl
        if self.context:
            p = torch.cuda.get_device_properties(self.local)
            prov["device"] = {
                "ordinal": self.local, "name": p.name,
                "uuid": str(getattr(p, "uuid", "")),
                "pci_bus_id": getattr(p, "pci_bus_id", None),
                "compute_capability": "%d.%d" % (p.major, p.minor),
                "total_global_mem": p.total_memory,
                "sm_count": p.multi_processor_count,
                "nvml": self.nvml.provenance()}
        else:
            prov["device"] = {"name": None, "total_global_mem": 0, "nvml": self.nvml.provenance()}
        if self.nvml.error:
            prov["nvml_error"] = self.nvml.error
        return prov

    def trace(self):
        t = self.t
        return {
            "format": TRACE_FORMAT, "probe": "torch",
            "scenario": t["scenario"], "scenario_file": t["scenario_file"],
            "engine": t["engine"], "gpu_type": t["gpu_type"],
            "rank": self.rank, "world_size": self.world, "local_rank": self.local,
            "launcher": self.launcher,
            "interconnect_modelled": t["interconnect_modelled"], "emulated": t["emulated"],
            "ops_trace": {"file": self.out_name, "format": t["format"],
                          "calibration": t["calibration"],
                          "pytorch_cuda_alloc_conf": t["pytorch_cuda_alloc_conf"],
                          "operations": len(t["ops"])},
            "runner": {"stand_in_kernel": "torch.cuda._sleep(0)",
                       "kernels_launched": self.kernels_launched,
                       "cublas": "cublasCreate + one %dx%d SGEMM on cuMemAlloc buffers"
                                 % (GEMM_N, GEMM_N),
                       "capture_stream_created_in_step": self.stream_step},
            "provenance": self.provenance(),
            "initial": self.initial,
            "steps": self.steps,
            "facts_source": "the exported program (gpumem's simulation of the same start-up); "
                            "a replay does not recompute the engine's numbers",
            "facts": t["facts"]}


# Operation -> its number of arguments, for --check.
ARITY = {"step": 1, "end": 3, "log": 1, "context": 0, "mem_get_info": 1, "alloc": 3,
         "alloc_failed": 2, "free": 1, "empty_cache": 0, "reset_peak": 0, "pool_create": 1,
         "pool_begin": 1, "pool_end": 1, "pool_release": 1, "capture_begin": 0,
         "capture_end": 0, "kernels": 2, "library": 1, "malloc": 3, "raw_free": 1,
         "comm_create": 2, "all_reduce": 3, "host_min": 0, "host_barrier": 0, "torch": 1}
REFUSED = ("malloc_failed", "ipc_export", "ipc_open", "ipc_close", "host_all_gather")


def check(trace):
    """What the replay would refuse, without running it: a list of reasons (empty: none)."""
    problems = []
    live, pools, in_step = set(), set(), False
    expect = None  # the operation that must come next
    for i, op in enumerate(trace["ops"]):
        code, args = op[0], op[1:]
        where = "operation %d (%s)" % (i, code)
        if expect is not None and code != expect:
            problems.append("%s: %s must come next" % (where, expect))
        expect = None
        if code in REFUSED:
            problems.append("%s: not replayed by the torch runner" % where)
            continue
        if code not in ARITY:
            problems.append("%s: unknown operation" % where)
            continue
        if len(args) != ARITY[code]:
            problems.append("%s: %d arguments, not %d" % (where, len(args), ARITY[code]))
            continue
        if code == "step":
            in_step = True
        elif code == "end":
            in_step = False
        elif code != "log" and not in_step:
            problems.append("%s: outside a step" % where)
        if code == "torch" and args[0] not in ("stream_pool", "aten"):
            problems.append("%s: unknown PyTorch resource %r" % (where, args[0]))
        if code == "alloc":
            live.add(args[0])
        elif code == "free" and args[0] not in live:
            problems.append("%s: tensor %s is not live" % (where, args[0]))
        elif code == "free":
            live.discard(args[0])
        elif code == "pool_create":
            pools.add(args[0])
        elif code in ("pool_begin", "pool_release") and args[0] not in pools:
            problems.append("%s: pool %s was never created" % (where, args[0]))
        elif code == "all_reduce" and (args[1] is None or args[1][0] != "block"
                                       or args[1][1] not in live):
            problems.append("%s: the runner reduces live tensors only" % where)
        if code == "pool_begin":
            expect = "capture_begin"
        elif code == "capture_end":
            expect = "pool_end"
    return problems


def apply_environment(trace):
    """The engine process's environment, before torch (and NCCL) read it."""
    env = trace["environment"]
    for k, v in env["set"].items():
        os.environ[k] = v
    for k in env["unset"]:
        os.environ.pop(k, None)
    conf = trace["pytorch_cuda_alloc_conf"]
    if conf:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf
    else:
        os.environ.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    # NVLink multicast can take shared GPUs out of service: never on (src/probe/README.md).
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ops", help="ops.rank<R>.json from gpumem export-ops")
    ap.add_argument("--out", help="directory for trace.rank<R>.json")
    ap.add_argument("--check", action="store_true", help="only check the trace")
    a = ap.parse_args(argv)
    if not a.check and not a.out:
        ap.error("give --out DIR, or --check")
    with open(a.ops) as f:
        trace = json.load(f)
    if trace.get("format") not in OPS_FORMATS:
        print("run_ops: %s is not a %s trace" % (a.ops, " or ".join(OPS_FORMATS)),
              file=sys.stderr)
        return 2
    if a.check:
        problems = check(trace)
        for p in problems:
            print("run_ops: %s: %s" % (a.ops, p), file=sys.stderr)
        if not problems:
            print("run_ops: %s: %d operations, all replayable" % (a.ops, len(trace["ops"])))
        return 2 if problems else 0
    if "RANK" in os.environ and int(os.environ["RANK"]) != trace["rank"]:
        print("run_ops: RANK is %s but %s is rank %d's trace"
              % (os.environ["RANK"], a.ops, trace["rank"]), file=sys.stderr)
        return 2
    if trace["world_size"] > 1 and "MASTER_ADDR" not in os.environ:
        print("run_ops: a %d-rank trace needs MASTER_ADDR and MASTER_PORT (start it with "
              "torchrun)" % trace["world_size"], file=sys.stderr)
        return 2
    apply_environment(trace)
    replay = Replay(trace, "torchrun" if "RANK" in os.environ else "none",
                    os.path.basename(a.ops))
    try:
        failed = replay.run()
    except BadTrace as e:
        print("run_ops: %s: %s" % (a.ops, e), file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "trace.rank%d.json" % trace["rank"])
    with open(path + ".tmp", "w") as f:
        json.dump(replay.trace(), f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    if replay.dist_ready:
        import torch.distributed as dist
        dist.destroy_process_group()
    if failed is not None:
        print("run_ops: rank %d stopped at step '%s': %s"
              % (trace["rank"], replay.steps[-1]["name"], failed), file=sys.stderr)
        return 3
    print("run_ops: %s rank %d: %d steps in %.1f s -> %s"
          % (trace["scenario"], trace["rank"], len(replay.steps),
             monotonic() - replay.initial["t_mono_s"], path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
