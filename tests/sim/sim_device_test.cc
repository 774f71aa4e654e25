#include "sim/sim_device.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

GpuSpec h200() {
  GpuSpec g;
  g.name = "h200-sxm-141gb";
  g.memory_total = mib(143'771);
  g.cuda_total = mib(143'156);
  g.sm_count = 132;
  g.max_threads_per_sm = 2048;
  return g;
}

TEST(SimDevice, ContextOnFirstUseSizedByThreadSlots) {
  SimDevice d(h200(), DeviceConstants{}, bytes(0));
  EXPECT_EQ(d.used().value(), 0);
  MemInfo info = d.mem_get_info();
  // 2048 B per slot x 132 SMs x 2048 threads = 553,648,128 B (528 MiB)
  EXPECT_EQ(d.used_by(Category::kContext).value(), 553'648'128);
  EXPECT_EQ(info.total.value(), 143'156LL << 20);
  EXPECT_EQ(info.free.value(), (143'156LL << 20) - 553'648'128);
  d.mem_get_info();
  EXPECT_EQ(d.used().value(), 553'648'128);  // created once
}

TEST(SimDevice, DriverReserveWhenCudaTotalUnknown) {
  GpuSpec g = h200();
  g.cuda_total.reset();
  SimDevice d(g, DeviceConstants{}, bytes(0));
  EXPECT_EQ(d.total().value(), (143'771LL - 640) << 20);
}

TEST(SimDevice, RawAllocationsRoundToPages) {
  SimDevice d(h200(), DeviceConstants{}, bytes(0));
  ASSERT_TRUE(d.init_context().ok());
  const Bytes base = d.used();
  ASSERT_TRUE(d.malloc(mib(8) + bytes(3'456), Category::kCommunication).ok());  // custom AR meta
  EXPECT_EQ((d.used() - base).value(), 10LL << 20);
  Result<DevicePtr> p = d.malloc(mib(8), Category::kCommunication);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((d.used() - base).value(), 18LL << 20);
  ASSERT_TRUE(d.malloc(kib(3), Category::kOther).ok());
  EXPECT_EQ((d.used() - base).value(), 20LL << 20);  // small: opens a shared 2 MiB page
  d.free(*p);
  EXPECT_EQ((d.used() - base).value(), 12LL << 20);
  EXPECT_EQ(d.used_by(Category::kCommunication).value(), 10LL << 20);
  EXPECT_EQ(d.peak_used().value(), (base + mib(20)).value());
}

TEST(SimDevice, SmallAllocationsArePackedIntoPages) {
  // H200 facts (malloc.json): 4096 x 256 B take 2 MiB; 1024 x 512 KiB take 512 MiB.
  SimDevice d(h200(), DeviceConstants{}, bytes(0));
  ASSERT_TRUE(d.init_context().ok());
  const Bytes base = d.used();
  for (int i = 0; i < 4096; ++i) ASSERT_TRUE(d.malloc(bytes(256), Category::kOther).ok());
  EXPECT_EQ((d.used() - base).value(), 2LL << 20);
  const Bytes mid = d.used();
  for (int i = 0; i < 1024; ++i) ASSERT_TRUE(d.malloc(kib(512), Category::kOther).ok());
  EXPECT_EQ((d.used() - mid).value(), 512LL << 20);
}

TEST(SimDevice, OutOfMemoryChangesNothing) {
  SimDevice d(h200(), DeviceConstants{}, gib(138));
  ASSERT_TRUE(d.init_context().ok());
  const Bytes before = d.used();
  Result<DevicePtr> p = d.malloc(gib(2), Category::kWeights);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(d.used(), before);
  EXPECT_EQ(d.last_failure().requested.value(), 2LL << 30);
  // 143156 MiB - 138 GiB - 528 MiB = 1316 MiB free
}

TEST(SimDevice, PreoccupiedMemoryIsNotFree) {
  SimDevice d(h200(), DeviceConstants{}, gib(10));
  EXPECT_EQ(d.mem_get_info().free.value(), (143'156LL << 20) - (10LL << 30) - 553'648'128);
}

TEST(SimDevice, IpcOpenCostsWhatCalibrationSays) {
  DeviceConstants c;
  c.ipc_open_cost = mib(2);
  SimDevice exporter(h200(), DeviceConstants{}, bytes(0));
  SimDevice importer(h200(), c, bytes(0));
  Result<DevicePtr> buf = exporter.malloc(mib(8), Category::kCommunication);
  Result<IpcHandle> h = exporter.ipc_export(*buf);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->size.value(), 8LL << 20);
  ASSERT_TRUE(importer.init_context().ok());
  const Bytes before = importer.used();
  Result<DevicePtr> mapped = importer.ipc_open(*h);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ((importer.used() - before).value(), 2LL << 20);
  importer.ipc_close(*mapped);
  EXPECT_EQ(importer.used(), before);
}

TEST(SimDevice, GraphExecutableChargedAtInstantiation) {
  SimDevice d(h200(), DeviceConstants{}, bytes(0));
  // 100 x 10,240 B = 1,024,000 B per graph. The pool's first 2 MiB chunk comes with the
  // context: two graphs fit it for free, the third grows the pool by one chunk.
  const std::int64_t expected_graph_memory[] = {0, 0, 2LL << 20, 2LL << 20, 4LL << 20};
  for (std::int64_t expected : expected_graph_memory) {
    ASSERT_TRUE(d.begin_graph_capture().ok());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(d.launch_kernel({}, bytes(0)).ok());
    ASSERT_TRUE(d.end_graph_capture().ok());
    EXPECT_EQ(d.used_by(Category::kGraphs).value(), expected);
  }
  EXPECT_FALSE(d.end_graph_capture().ok());
}

TEST(SimDevice, KernelsLaunchedTogetherCountAsManyNodes) {
  // The same five graphs, 100 nodes each, recorded by one launch_kernels(100) per graph,
  // and eager launches in between that record nothing.
  SimDevice d(h200(), DeviceConstants{}, bytes(0));
  const std::int64_t expected_graph_memory[] = {0, 0, 2LL << 20, 2LL << 20, 4LL << 20};
  for (std::int64_t expected : expected_graph_memory) {
    ASSERT_TRUE(d.launch_kernels(1000, bytes(0)).ok());
    ASSERT_TRUE(d.begin_graph_capture().ok());
    ASSERT_TRUE(d.launch_kernels(100, bytes(0)).ok());
    ASSERT_TRUE(d.end_graph_capture().ok());
    EXPECT_EQ(d.used_by(Category::kGraphs).value(), expected);
  }
}

// The H200's PyTorch 2.11 figures (model/calibration/h200-sxm-141gb-torch.yaml measures the
// first three); the first kernel's module as gpumem's tests pick it.
DeviceConstants pytorch_process() {
  DeviceConstants k;
  k.pytorch_stream_pool = mib(70);
  k.pytorch_aten_module = mib(92);
  k.pytorch_first_capture = mib(2);
  k.pytorch_first_kernel = mib(2);
  return k;
}

// A replay whose program names no PyTorch resource: the first kernel loads its own module,
// the first capture creates the stream pool (its stream), the ATen module (the generator
// tensors' seed fill) and the generator tensors' segment, each once.
TEST(SimDevice, APytorchProcessPaysOnceAtItsFirstCaptureAndFirstKernel) {
  SimDevice d(h200(), pytorch_process(), bytes(0));
  ASSERT_TRUE(d.init_context().ok());
  const Bytes context = d.used();
  ASSERT_TRUE(d.launch_kernels(0, bytes(0)).ok());  // no kernel launched: nothing loaded
  EXPECT_EQ(d.used(), context);
  ASSERT_TRUE(d.launch_kernels(3, bytes(0)).ok());
  ASSERT_TRUE(d.launch_kernel({}, bytes(0)).ok());
  EXPECT_EQ((d.used() - context).value(), 2LL << 20);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(d.begin_graph_capture().ok());
    ASSERT_TRUE(d.end_graph_capture().ok());
  }
  EXPECT_EQ((d.used() - context).value(), 166LL << 20);
  EXPECT_EQ(d.used_by(Category::kGraphs).value(), 0);  // the two empty graphs fit the chunk
  ASSERT_TRUE(d.use_pytorch_resource(PytorchResource::kStreamPool).ok());
  ASSERT_TRUE(d.use_pytorch_resource(PytorchResource::kAtenModule).ok());
  EXPECT_EQ((d.used() - context).value(), 166LL << 20);
  // A raw process (gpumem-probe's, the defaults: every PyTorch constant zero) pays nothing.
  SimDevice raw(h200(), DeviceConstants{}, bytes(0));
  ASSERT_TRUE(raw.init_context().ok());
  ASSERT_TRUE(raw.use_pytorch_resource(PytorchResource::kStreamPool).ok());
  ASSERT_TRUE(raw.use_pytorch_resource(PytorchResource::kAtenModule).ok());
  ASSERT_TRUE(raw.launch_kernels(3, bytes(0)).ok());
  ASSERT_TRUE(raw.begin_graph_capture().ok());
  ASSERT_TRUE(raw.end_graph_capture().ok());
  EXPECT_EQ(raw.used(), raw.used_by(Category::kContext));
  EXPECT_EQ(raw.used(), context);
}

// An engine's program names its first uses: the ATen module before any kernel (so the first
// kernel loads nothing more), the stream pool, then the first capture adds only the
// generator tensors' segment.
TEST(SimDevice, PytorchResourcesAreCreatedOnceAtTheirFirstUse) {
  SimDevice d(h200(), pytorch_process(), bytes(0));
  ASSERT_TRUE(d.init_context().ok());
  const Bytes context = d.used();
  ASSERT_TRUE(d.use_pytorch_resource(PytorchResource::kAtenModule).ok());
  EXPECT_EQ((d.used() - context).value(), 92LL << 20);
  ASSERT_TRUE(d.use_pytorch_resource(PytorchResource::kAtenModule).ok());
  ASSERT_TRUE(d.launch_kernels(3, bytes(0)).ok());
  EXPECT_EQ((d.used() - context).value(), 92LL << 20);
  ASSERT_TRUE(d.use_pytorch_resource(PytorchResource::kStreamPool).ok());
  ASSERT_TRUE(d.use_pytorch_resource(PytorchResource::kStreamPool).ok());
  EXPECT_EQ((d.used() - context).value(), 162LL << 20);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(d.begin_graph_capture().ok());
    ASSERT_TRUE(d.end_graph_capture().ok());
  }
  EXPECT_EQ((d.used() - context).value(), 164LL << 20);
  EXPECT_EQ(d.used(), d.used_by(Category::kContext));

  // Out of memory: the resource is not created, and a later use tries again.
  DeviceConstants big;
  big.pytorch_aten_module = h200().cuda_total.value_or(bytes(0));
  SimDevice full(h200(), big, bytes(0));
  const Status first = full.use_pytorch_resource(PytorchResource::kAtenModule);
  EXPECT_EQ(first.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(first.message(), "PyTorch's ATen module needs 143,156.00 MiB, 142,628.00 MiB free");
  EXPECT_EQ(full.use_pytorch_resource(PytorchResource::kAtenModule).code(),
            StatusCode::kOutOfMemory);
}

}  // namespace
}  // namespace gpumem
