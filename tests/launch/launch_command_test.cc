// Launch commands as users type them (the engines' documentation and public issue threads):
// each form read into the engine, environment, model and flags a scenario needs, and a
// command that cannot be read refused where it goes wrong.
#include "launch/launch_command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/engine_model.h"
#include "engine/vllm/flags.h"
#include "engine/vllm/version.h"
#include "launch/launch_scenario.h"
#include "support/launch_words.h"
#include "support/model_configs.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

TEST(LaunchCommand, VllmServeWithItsShortFormsAndHumanReadableLengths) {
  // The vLLM quickstart's form, with the issue's flags.
  const EngineLaunch l = read(words("vllm serve Qwen/Qwen3-32B -tp 2 --max-model-len 32K"));
  EXPECT_EQ(l.engine, "vllm");
  EXPECT_EQ(l.model, "Qwen/Qwen3-32B");
  EXPECT_EQ(args_of(l),
            (std::vector<std::string>{"--tensor-parallel-size=2", "--max-model-len=32K"}));
  EXPECT_EQ(l.args[1].value_loc.column, 49);  // "32K" in the joined command
}

TEST(LaunchCommand, ThePythonModuleFormsOfBothEngines) {
  EngineLaunch l = read(words(
      "python3 -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-8B-Instruct "
      "--gpu-memory-utilization=0.95 --enforce-eager"));
  EXPECT_EQ(l.engine, "vllm");
  EXPECT_EQ(l.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(args_of(l),
            (std::vector<std::string>{"--gpu-memory-utilization=0.95", "--enforce-eager="}));
  l =
      read(words("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 "
                 "--trust-remote-code --mem-fraction-static 0.85 --cuda-graph-bs 1 2 4 8"));
  EXPECT_EQ(l.engine, "sglang");
  EXPECT_EQ(l.model, "deepseek-ai/DeepSeek-V3");
  EXPECT_EQ(args_of(l), (std::vector<std::string>{
                            "--tp-size=8", "--trust-remote-code=", "--mem-fraction-static=0.85",
                            "--cuda-graph-bs=1,2,4,8"}));
  l = read(words("sglang serve --model-path Qwen/Qwen3-8B --port 30000"));
  EXPECT_EQ(l.engine, "sglang");
  EXPECT_EQ(args_of(l), std::vector<std::string>{"--port=30000"});
}

TEST(LaunchCommand, EnvironmentPrefixesAndArgparsePrefixes) {
  // case 24 of the public logs: underscores and an argparse prefix.
  const EngineLaunch l = read(
      words("env CUDA_VISIBLE_DEVICES=0,1 NCCL_BUFFSIZE=1048576 vllm serve cyankiwi/Kimi-Linear "
            "--tensor_parallel 2 --no-enable-prefix-caching"));
  ASSERT_EQ(l.env.size(), 2u);
  EXPECT_EQ(l.env[0].name, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(l.env[0].value, "0,1");
  EXPECT_EQ(l.env[1].value, "1048576");
  EXPECT_EQ(args_of(l),
            (std::vector<std::string>{"--tensor-parallel-size=2", "--no-enable-prefix-caching="}));
}

// A shell's `nohup CMD > log 2>&1 &` passes `nohup CMD`; exec, time and uv run run the command
// as it is too.
TEST(LaunchCommand, ProgramsThatRunTheCommandAsItIs) {
  EngineLaunch l =
      read(words("CUDA_VISIBLE_DEVICES=0 nohup python3 -m sglang.launch_server "
                 "--model-path Qwen/Qwen3-8B"));
  EXPECT_EQ(l.engine, "sglang");
  ASSERT_EQ(l.env.size(), 1u);
  EXPECT_EQ(l.env[0].value, "0");
  l = read(words("exec time uv run vllm serve Qwen/Qwen3-8B -tp 2"));
  EXPECT_EQ(l.model, "Qwen/Qwen3-8B");
  EXPECT_EQ(args_of(l), std::vector<std::string>{"--tensor-parallel-size=2"});
  EXPECT_EQ(refusal(words("uv vllm serve m")),
            "<launch command>:1:1: not a command that starts a serving engine gpumem models; it "
            "reads python -m sglang.launch_server, sglang serve, vllm serve, python -m "
            "vllm.entrypoints.openai.api_server, python -m vllm.entrypoints.api_server\n");
}

// Mistral-format checkpoints as their cards serve them (RedHatAI/Magistral-Small-2506-FP8):
// the three format flags read, none with a memory effect (vllm engine/arg_utils.py).
TEST(LaunchCommand, MistralFormatFlagsRead) {
  const EngineLaunch l =
      read(words("vllm serve mistralai/Ministral-8B-Instruct-2410 --tokenizer-mode mistral "
                 "--config-format mistral --load-format mistral --tool-call-parser mistral"));
  EXPECT_EQ(args_of(l),
            (std::vector<std::string>{"--tokenizer-mode=mistral", "--config-format=mistral",
                                      "--load-format=mistral", "--tool-call-parser=mistral"}));
}

TEST(LaunchCommand, JsonValuesStayOneArgument) {
  const EngineLaunch l = read(
      {"vllm", "serve", "m", "--compilation-config", "{\"cudagraph_capture_sizes\": [1, 2, 4]}"});
  EXPECT_EQ(args_of(l), std::vector<std::string>{
                            "--compilation-config={\"cudagraph_capture_sizes\": [1, 2, 4]}"});
}

TEST(LaunchCommand, WhatCannotBeReadIsRefusedWhereItIs) {
  EXPECT_EQ(refusal(words("torchrun --nproc-per-node 2 serve.py")),
            "<launch command>:1:1: not a command that starts a serving engine gpumem models; it "
            "reads python -m sglang.launch_server, sglang serve, vllm serve, python -m "
            "vllm.entrypoints.openai.api_server, python -m vllm.entrypoints.api_server\n");
  EXPECT_EQ(refusal(words("vllm serve --max-model-len 4096")),
            "<launch command>:1:1: the command names no model (--model MODEL)\n");
  EXPECT_EQ(refusal(words("vllm serve m --max-model-len")),
            "<launch command>:1:14: '--max-model-len' expects a value\n");
  EXPECT_EQ(refusal(words("vllm serve m other")),
            "<launch command>:1:14: unexpected argument 'other': vLLM takes it as no flag's "
            "value\n");
  EXPECT_EQ(refusal({}),
            "the launch command after '--' is empty; write it as you would run it, "
            "e.g. -- vllm serve Qwen/Qwen3-8B --max-model-len 32768\n");
  // Bytes that are not UTF-8 would be replaced in the scenario written from the command, so
  // two different flags could become one key (found by the launch_command fuzzer).
  EXPECT_EQ(refusal({"vllm", "serve", "m", "-\xff\xfe-tp", "4"}),
            "<launch command>:1:15: the launch command is not UTF-8 text here (byte 255)\n");
  EXPECT_EQ(read({"vllm", "serve", "m", "--served-model-name", "\xc3\xa9t\xc3\xa9"}).args.size(),
            1u);
}

TEST(LaunchCommand, AnAmbiguousPrefixNamesItsCandidates) {
  // argparse: "ambiguous option: --max-num could match --max-num-seqs, ...".
  const EngineLaunch l = read(words("vllm serve m --max-num 4"));
  EXPECT_EQ(args_of(l), std::vector<std::string>{"--max-num=4"});
  const Result<const FlagSpec*> spec =
      match_flag("--max-num", find_engine("vllm")->flags(), "vLLM");
  EXPECT_EQ(spec.status().message(),
            "ambiguous option: --max-num could match --max-num-seqs, --max-num-batched-tokens, "
            "--max-num-queued-reqs, --max-num-queued-tokens, --max-num-scheduled-tokens, "
            "--max-num-partial-prefills");
  EXPECT_EQ(*match_flag("--max-num-se", find_engine("vllm")->flags(), "vLLM"),
            find_flag("--max-num-seqs", find_engine("vllm")->flags()));
}

TEST(LaunchCommand, TheCorrectedCommandReplacesTheFlagInAnySpelling) {
  const std::vector<std::string> argv =
      words("python -m sglang.launch_server --model-path m --mem-fraction 0.55 --tp 8");
  EXPECT_EQ(launch_with_flag(argv, "--mem-fraction-static", "0.77", {}),
            "python -m sglang.launch_server --model-path m --mem-fraction-static 0.77 --tp 8");
  EXPECT_EQ(launch_with_flag(argv, "--cuda-graph-max-bs", "96", {}),
            "python -m sglang.launch_server --model-path m --mem-fraction 0.55 --tp 8 "
            "--cuda-graph-max-bs 96");
  const std::vector<std::string> vllm = {"vllm",      "serve", "m", "--cudagraph-capture-sizes",
                                         "1",         "2",     "4", "--compilation-config",
                                         "{\"a\": 1}"};
  EXPECT_EQ(launch_with_flag(vllm, "--max-cudagraph-capture-size", "2",
                             std::vector<std::string>{"--cudagraph-capture-sizes"}),
            "vllm serve m --compilation-config '{\"a\": 1}' --max-cudagraph-capture-size 2");
}

TEST(LaunchScenario, TheGpuOptionAndTheLayoutGiveTheHardware) {
  Diagnostics diags;
  const EngineLaunch l = read(words("vllm serve llama-3.1-8b-instruct -tp 4 -pp 2"));
  std::optional<Scenario> s = scenario_from_launch(
      l, LaunchOptions{"h100", ""}, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->hardware.gpu, "h100-sxm-80gb");
  EXPECT_EQ(s->hardware.gpus_per_node, 8);  // TP 4 x PP 2
  EXPECT_EQ(s->engine.version, "0.30.0");   // the newest modelled
  EXPECT_EQ(s->name, "vllm-llama-3.1-8b-instruct");
  s = scenario_from_launch(l, LaunchOptions{"h200x16", "0.11.0"}, test_catalogs().gpus,
                           test_catalogs().models, diags);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->hardware.gpus_per_node, 16);
  EXPECT_EQ(s->engine.version, "0.11.0");
  EXPECT_FALSE(scenario_from_launch(l, LaunchOptions{"h100y2", ""}, test_catalogs().gpus,
                                    test_catalogs().models, diags));
  EXPECT_EQ(diags.errors().back().to_string(),
            "--gpu: unknown GPU 'h100y2'; did you mean 'h100'? (gpumem catalog gpus lists them; "
            "add a count as h100x2)");
}

TEST(LaunchCommand, AConfigFileGivesItsModelAndItsFlagsInTheFilesOrder) {
  // vllm docs configuration/serve_args.md: `vllm serve --config config.yaml`, the model in
  // the file (it read as a command naming no model).
  const std::string dir = GPUMEM_SOURCE_DIR "/tests/data/launch-commands/config/";
  EngineLaunch l = read({"vllm", "serve", "--config", dir + "config.yaml"});
  EXPECT_EQ(l.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(args_of(l), (std::vector<std::string>{"--host=127.0.0.1", "--port=6379",
                                                  "--uvicorn-log-level=info"}));
  // The command's model wins over the file's; the file's flags come first, in its order
  // (they were reversed), and the command's own override them.
  l = read({"vllm", "serve", "m", "--config", dir + "Llama3.3_Hopper.yaml",
            "--max-num-batched-tokens", "4096"});
  EXPECT_EQ(l.model, "m");
  EXPECT_EQ(args_of(l), (std::vector<std::string>{
                            "--kv-cache-dtype=fp8", "--async-scheduling=",
                            "--no-enable-prefix-caching=", "--max-num-batched-tokens=4096"}));
}

TEST(LaunchCommand, DottedKeysOfAJsonFlagMergeIntoOneObject) {
  // The vLLM GPT-OSS recipe (MI300X): -cc is --compilation-config, and vLLM merges the keys.
  const EngineLaunch l =
      read(words("vllm serve m -cc.pass_config.fuse_rope_kvcache=True -tp 2 "
                 "--compilation-config.cudagraph_mode FULL -cc.use_inductor_graph_partition=True"));
  EXPECT_EQ(args_of(l),
            (std::vector<std::string>{"--tensor-parallel-size=2",
                                      "--compilation-config={pass_config: {fuse_rope_kvcache: "
                                      "True}, cudagraph_mode: FULL, "
                                      "use_inductor_graph_partition: True}"}));
  EXPECT_EQ(l.args[1].flag_loc.column, 14);
  // SGLang's parser has no dotted keys: the flag stays as written, for its reader to refuse.
  EXPECT_EQ(args_of(read(words("sglang serve --model-path m --tp.x 2"))),
            std::vector<std::string>{"--tp.x=2"});
}

TEST(LaunchCommand, FlagsTheEngineHasButGpumemDoesNotModelAreRefusedByName) {
  Diagnostics diags;
  const EngineLaunch s = read(words(
      "python3 -m sglang.launch_server --model-path m --enable-torch-compile --tool-server demo "
      "--moe-runner-backend auto"));
  (void)read_flags(s.args, find_engine("sglang")->flags(), "SGLang", diags);
  EXPECT_EQ(diags.to_string(),
            "<launch command>:1:48: '--enable-torch-compile' is not modelled: the model is "
            "compiled with torch.compile for the CUDA graphs of batch sizes up to "
            "--torch-compile-max-bs, whose memory gpumem's graph model does not cover\n");
  Diagnostics vllm_diags;
  const EngineLaunch v = read(words("vllm serve m --enable-sleep-mode --stream-interval 20"));
  (void)read_flags(v.args, find_engine("vllm")->flags(), "vLLM", vllm_diags);
  EXPECT_EQ(vllm_diags.to_string(),
            "<launch command>:1:14: '--enable-sleep-mode' is not modelled: weights and KV cache "
            "are allocated from vLLM's CuMemAllocator pool (device_allocator/cumem.py) instead "
            "of PyTorch's caching allocator\n");
}

// Flags common in real launch commands: those with no device memory at start-up are read
// (the server's logging and API options), those whose memory is not modelled are refused by
// name, each with what it would change.
TEST(LaunchCommand, ServerOptionsAreReadAndUnmodelledMemoryOptionsRefused) {
  Diagnostics sglang_diags;
  const EngineLaunch s =
      read(words("python3 -m sglang.launch_server --model-path m --api-key k --log-requests "
                 "--enable-cache-report --schedule-conservativeness 0.3 --enable-mixed-chunk "
                 "--grammar-backend xgrammar --skip-server-warmup --enable-lora --lora-paths a=b"));
  (void)read_flags(s.args, find_engine("sglang")->flags(), "SGLang", sglang_diags);
  EXPECT_EQ(sglang_diags.to_string(),
            "<launch command>:1:198: '--enable-lora' is not modelled: LoRA adapter weights and "
            "their buffers (lora/mem_pool.py) are not modelled\n"
            "<launch command>:1:212: '--lora-paths' is not modelled: it enables LoRA, whose "
            "adapter weights and buffers (lora/mem_pool.py) are not modelled\n");
  Diagnostics vllm_diags;
  const EngineLaunch v = read(
      words("vllm serve m --max-log-len 100 --enable-log-requests --disable-uvicorn-access-log "
            "--tokenizer-mode auto --enable-lora --cpu-offload-gb 4"));
  (void)read_flags(v.args, find_engine("vllm")->flags(), "vLLM", vllm_diags);
  // --cpu-offload-gb is modelled in both engines (weights/cpu_offload.h).
  EXPECT_EQ(vllm_diags.to_string(),
            "<launch command>:1:105: '--enable-lora' is not modelled: LoRA adapter slots and the "
            "punica kernels' buffers are not modelled\n");
  Diagnostics offload_diags;
  const EngineLaunch o = read(
      words("python3 -m sglang.launch_server --model-path m --cpu-offload-gb 35 --torchao-config "
            "int8dq --device cuda --default-chat-template-kwargs x"));
  (void)read_flags(o.args, find_engine("sglang")->flags(), "SGLang", offload_diags);
  EXPECT_EQ(offload_diags.to_string(),
            "<launch command>:1:68: '--torchao-config' is not modelled: torchao quantizes every "
            "linear layer after the weights are loaded, which shrinks them before the KV pool is "
            "sized\n");
}

// More of the flags real launch commands carry: SGLang's overlap scheduler, sampling and
// tokenizer workers, vLLM's frontend, scheduling, tracing and data-parallel wiring are read
// (no device memory at start-up); those with memory gpumem does not model are refused by name.
TEST(LaunchCommand, SchedulerFrontendAndWiringFlagsAreReadAndBufferFlagsRefused) {
  Diagnostics sglang_diags;
  (void)read_flags(
      read(words("python3 -m sglang.launch_server --model-path m --disable-overlap-schedule "
                 "--num-continuous-decode-steps 2 --sampling-backend pytorch --dist-timeout 600 "
                 "--tokenizer-worker-num 2 --enable-priority-scheduling --max-queued-requests 8 "
                 "--enable-nccl-nvls"))
          .args,
      find_engine("sglang")->flags(), "SGLang", sglang_diags);
  EXPECT_EQ(sglang_diags.to_string(),
            "<launch command>:1:231: '--enable-nccl-nvls' is not modelled: NCCL's NVLink SHARP "
            "buffers for the all-reduce are not modelled\n");
  Diagnostics vllm_diags;
  (void)read_flags(
      read(words("vllm serve m --enable-log-outputs --scheduling-policy priority "
                 "--structured-outputs-config {\"backend\":\"xgrammar\"} -dpl 2 --headless "
                 "--api-server-count 4 --all2all-backend allgather_reducescatter "
                 "--enable-prompt-embeds"))
          .args,
      find_engine("vllm")->flags(), "vLLM", vllm_diags);
  EXPECT_EQ(vllm_diags.to_string(),
            "<launch command>:1:196: '--enable-prompt-embeds' is not modelled: the model runner "
            "keeps an inputs_embeds buffer of max-num-batched-tokens rows\n");
}

// Large-scale serving options whose memory is not modelled are refused when they turn the
// feature on, and read when they leave it off (the flag's own "none" or "null", "auto",
// false); "none" is no off value of a flag whose engine takes it as a name (a LoRA path).
TEST(LaunchCommand, ExpertParallelBackendsAreRefusedOnlyWhenOn) {
  Diagnostics off;
  (void)read_flags(
      read(words("python3 -m sglang.launch_server --model-path m "
                 "--moe-a2a-backend none --disaggregation-mode null --deepep-mode auto "
                 "--load-balance-method round_robin"))
          .args,
      find_engine("sglang")->flags(), "SGLang", off);
  EXPECT_EQ(off.to_string(), "");
  Diagnostics on;
  (void)read_flags(
      read(words("python3 -m sglang.launch_server --model-path m --moe-a2a-backend deepep "
                 "--moe-dense-tp-size 1 --lora-paths none"))
          .args,
      find_engine("sglang")->flags(), "SGLang", on);
  EXPECT_EQ(on.to_string(),
            "<launch command>:1:48: '--moe-a2a-backend' is not modelled: an all-to-all backend "
            "(DeepEP, Mooncake) allocates communication buffers of its own, which gpumem does "
            "not model\n"
            "<launch command>:1:73: '--moe-dense-tp-size' is not modelled: it shards the dense "
            "MLP layers over fewer ranks than the attention, a weight layout gpumem does not "
            "model\n"
            "<launch command>:1:95: '--lora-paths' is not modelled: it enables LoRA, whose "
            "adapter weights and buffers (lora/mem_pool.py) are not modelled\n");
}

// vLLM reads --kv-cache-memory-bytes as a human-readable integer, as --max-model-len.
TEST(LaunchCommand, KvCacheMemoryBytesIsHumanReadable) {
  Diagnostics diags;
  const FlagValues v = read_flags(read(words("vllm serve m --kv-cache-memory-bytes 20G")).args,
                                  find_engine("vllm")->flags(), "vLLM", diags);
  EXPECT_EQ(diags.to_string(), "");
  EXPECT_EQ(v.integer("--kv-cache-memory"), 20LL << 30);
}

// argparse reads a one-letter option with its value attached: "-O3" is "-O 3" (vLLM's -O,
// kept as written: the engine reads it by its release; cli case
// simulate_launch_optimization_level simulates one); a longer short form takes no attached
// value ("-tp1" is no flag).
TEST(LaunchCommand, AOneLetterOptionTakesItsValueAttached) {
  const EngineLaunch l = read(words("vllm serve m -O3"));
  EXPECT_EQ(args_of(l), std::vector<std::string>{"-O=3"});
  EXPECT_EQ(l.args[0].value_loc.column, 16);
  Diagnostics diags;
  (void)read_flags(read(words("vllm serve m -tp1")).args, find_engine("vllm")->flags(), "vLLM",
                   diags);
  EXPECT_EQ(diags.to_string(),
            "<launch command>:1:14: unknown vLLM flag '-tp1'; did you mean '-tp'?\n");
}

// From vLLM 0.12.0 "-O3" is --optimization-level, a flag beside --compilation-config, so a
// command may give both (vllm v0.12.0 utils/argparse_utils.py parse_args); before, -O was the
// compilation config itself, and giving it twice is refused.
TEST(LaunchCommand, VllmsOptimizationLevelSitsBesideACompilationConfig) {
  const auto read_at = [](const std::string& version, vllm::EngineFlags& f) {
    ScenarioEngine e;
    e.name = "vllm";
    e.args =
        read(words(R"(vllm serve m -O3 --compilation-config {"cudagraph_mode":"PIECEWISE"})")).args;
    Diagnostics diags;
    f = vllm::read_engine_flags(e, vllm::rules_for(*vllm::parse_version(version)), diags);
    return diags.to_string();
  };
  vllm::EngineFlags f;
  EXPECT_EQ(read_at("0.12.0", f), "");
  EXPECT_EQ(f.optimization_level, 3);
  EXPECT_EQ(f.cudagraph_mode, vllm::CudagraphMode::kPiecewise);
  EXPECT_EQ(read_at("0.11.0", f),
            "<launch command>:1:18: flag '--compilation-config' repeats '--compilation-config' "
            "given earlier\n");
}

TEST(LaunchScenario, ARepositoryIdNamesItsCatalogEntry) {
  // The issue's own example: `vllm serve Qwen/Qwen3-32B` (it read as an unknown model).
  Diagnostics diags;
  const EngineLaunch l = read(words("vllm serve Qwen/Qwen3-32B -tp 2"));
  std::optional<Scenario> s = scenario_from_launch(
      l, LaunchOptions{"h100", ""}, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->model.catalog_name, "qwen3-32b");
  EXPECT_EQ(s->name, "vllm-qwen3-32b");
  s = scenario_from_launch(read(words("vllm serve ./Qwen3-32B")), LaunchOptions{"h100", ""},
                           test_catalogs().gpus, test_catalogs().models, diags);
  EXPECT_EQ(s->model.catalog_name, "./Qwen3-32B");  // a path is the resolution's to read
  // An earlier repository name the entry lists as an alias, in any case, names it too.
  s = scenario_from_launch(read(words("vllm serve META-LLAMA/Meta-Llama-3.1-8B-Instruct")),
                           LaunchOptions{"h100", ""}, test_catalogs().gpus, test_catalogs().models,
                           diags);
  EXPECT_EQ(s->model.catalog_name, "llama-3.1-8b-instruct");
  // A checkpoint directory that exists stays a path, read as `model:` reads it.
  const std::string awq = public_config_dir("Qwen--Qwen3-32B-AWQ");
  s = scenario_from_launch(read(words("vllm serve " + awq + " -tp 2")), LaunchOptions{"h100", ""},
                           test_catalogs().gpus, test_catalogs().models, diags);
  EXPECT_EQ(s->model.catalog_name, awq);
  EXPECT_TRUE(diags.empty()) << diags.to_string();
}

TEST(LaunchScenario, NodesSplitTheGpusAndOtherFlagsDoNotHideTheLayout) {
  // The SGLang DeepSeek-V3 benchmark's two H20 nodes: TP 16 over --nnodes 2. It read as one
  // node of one GPU: the unknown --enable-torch-compile hid the layout.
  Diagnostics diags;
  const EngineLaunch l =
      read(words("python3 -m sglang.launch_server --model-path deepseek-v3 --tp 16 "
                 "--dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 0 --enable-torch-compile"));
  std::optional<Scenario> s = scenario_from_launch(
      l, LaunchOptions{"h20-96gb", ""}, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->hardware.nodes, 2);
  EXPECT_EQ(s->hardware.gpus_per_node, 8);
  EXPECT_FALSE(scenario_from_launch(l, LaunchOptions{"h20-96gbx15", ""}, test_catalogs().gpus,
                                    test_catalogs().models, diags));
  EXPECT_EQ(diags.errors().back().to_string(),
            "--gpu: 15 GPUs do not split evenly over --nnodes 2");
}

// What `gpumem scenario -- ...` writes reads back as a scenario (found by the launch_command
// fuzz target): a flag or variable given twice in one spelling keeps its last value, as
// argparse and the shell do, rather than being written as a YAML key twice, and a value
// holding a newline stays inside the comment that quotes the command.
TEST(LaunchScenario, TheWrittenScenarioReadsBack) {
  Diagnostics diags;
  std::optional<Scenario> twice = scenario_from_launch(
      read(words("A=1 A=2 vllm serve llama-3.1-8b-instruct --port 1 --max-num-seqs 8 --port 2 "
                 "--max-num-seqs 16")),
      LaunchOptions{"h200", ""}, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(twice) << diags.to_string();
  ASSERT_EQ(twice->engine.args.size(), 2u);
  EXPECT_EQ(twice->engine.args[0].flag, "--port");
  EXPECT_EQ(twice->engine.args[0].values, std::vector<std::string>{"2"});
  EXPECT_EQ(twice->engine.args[1].flag, "--max-num-seqs");
  EXPECT_EQ(twice->engine.args[1].values, std::vector<std::string>{"16"});
  ASSERT_EQ(twice->engine.env.size(), 1u);
  EXPECT_EQ(twice->engine.env[0].value, "2");
  const EngineLaunch l =
      read({"vllm", "serve", "llama-3.1-8b-instruct", "--compilation-config", "{\n\"level\": 3}"});
  std::optional<Scenario> s = scenario_from_launch(
      l, LaunchOptions{"h200", ""}, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  const std::string yaml = launch_scenario_yaml(*s, l);
  EXPECT_NE(
      yaml.find("#   vllm serve llama-3.1-8b-instruct --compilation-config {?\"level\": 3}\n"),
      std::string::npos)
      << yaml;
  std::optional<Scenario> back = parse_scenario("s.yaml", yaml, test_catalogs().gpus, diags);
  ASSERT_TRUE(back) << diags.to_string();
  EXPECT_TRUE(diags.empty()) << diags.to_string();
  ASSERT_EQ(back->engine.args.size(), 1U);
  EXPECT_EQ(back->engine.args[0].values, std::vector<std::string>{"{\n\"level\": 3}"});
  // A mistyped flag holding a quote and a brace is a quoted key.
  const EngineLaunch typo = read({"vllm", "serve", "llama-3.1-8b-instruct", "--x'y: [1]}"});
  s = scenario_from_launch(typo, LaunchOptions{"h200", ""}, test_catalogs().gpus,
                           test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  back = parse_scenario("s.yaml", launch_scenario_yaml(*s, typo), test_catalogs().gpus, diags);
  ASSERT_TRUE(back) << diags.to_string();
  EXPECT_EQ(back->engine.args.at(0).flag, "--x'y: [1]}");
}

}  // namespace
}  // namespace gpumem
