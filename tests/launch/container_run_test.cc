// docker run and podman run in front of an engine's command (launch/container_run.h): the
// options set aside, the environment kept, the command the container runs read, the image's
// tag as the engine release, and what the command does not show refused where it is.
#include "launch/container_run.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "launch/launch_scenario.h"
#include "support/launch_words.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

// docker run as the engines' documentation writes it (vLLM's "Using Docker": the
// vllm/vllm-openai image, whose ENTRYPOINT is `vllm serve`; SGLang's DeepSeek-V3 benchmark:
// lmsysorg/sglang with the command after the image).
TEST(LaunchCommand, DockerRunReadsTheCommandTheContainerRuns) {
  EngineLaunch l =
      read(words("docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/"
                 "huggingface --env HUGGING_FACE_HUB_TOKEN=$HF_TOKEN -p 8000:8000 --ipc=host "
                 "vllm/vllm-openai:latest --model mistralai/Mistral-7B-v0.1 -tp 2"));
  EXPECT_EQ(l.engine, "vllm");
  EXPECT_EQ(l.model, "mistralai/Mistral-7B-v0.1");
  EXPECT_EQ(l.model_loc.column, 184);
  EXPECT_EQ(args_of(l), std::vector<std::string>{"--tensor-parallel-size=2"});
  ASSERT_EQ(l.env.size(), 1u);
  EXPECT_EQ(l.env[0].name, "HUGGING_FACE_HUB_TOKEN");
  EXPECT_EQ(l.env[0].value, "$HF_TOKEN");
  EXPECT_EQ(l.env[0].loc.column, 95);
  EXPECT_EQ(l.env[0].value_loc.column, 118);

  l = read(words(
      "sudo docker run -itd --rm -e=PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True -e HF_TOKEN "
      "-p8000:8000 docker.io/vllm/vllm-openai:v0.10.1@sha256:ab Qwen/Qwen3-8B"));
  EXPECT_EQ(l.model, "Qwen/Qwen3-8B");
  ASSERT_EQ(l.env.size(), 2u);
  EXPECT_EQ(l.env[0].name, "PYTORCH_CUDA_ALLOC_CONF");  // -e=NAME=VALUE, as docker reads it
  EXPECT_EQ(l.env[0].value, "expandable_segments:True");
  EXPECT_EQ(l.env[1].name, "HF_TOKEN");
  EXPECT_EQ(l.env[1].value, "$HF_TOKEN");  // the host's, as docker passes it

  l = read(words(
      "docker run --gpus all --shm-size 32g --ipc=host --network=host --privileged "
      "lmsysorg/sglang:latest python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 "
      "--tp 8"));
  EXPECT_EQ(l.engine, "sglang");
  EXPECT_EQ(l.model, "deepseek-ai/DeepSeek-V3");
  EXPECT_EQ(args_of(l), std::vector<std::string>{"--tp-size=8"});

  l = read(words("podman run --entrypoint vllm vllm/vllm-openai serve m --max-model-len 4096"));
  EXPECT_EQ(l.engine, "vllm");
  EXPECT_EQ(l.model, "m");

  EXPECT_EQ(image_repository("registry.example.com:5000/vllm/vllm-openai:nightly"),
            "vllm/vllm-openai");
  EXPECT_EQ(image_repository("lmsysorg/sglang"), "lmsysorg/sglang");
}

// Both engines tag their images by release: the tag pins the engine release the scenario
// simulates (a release gpumem does not model is then refused where the tag says it).
TEST(LaunchCommand, AnImageTagNamesTheEngineRelease) {
  EXPECT_EQ(image_release("lmsysorg/sglang:v0.4.6.post1-cu124")->version, "0.4.6.post1");
  EXPECT_EQ(image_release("vllm/vllm-openai:v0.10.1")->version, "0.10.1");
  EXPECT_EQ(image_release("vllm/vllm-openai:v0.10.1")->from, 18u);
  EXPECT_FALSE(image_release("vllm/vllm-openai:latest"));
  EXPECT_FALSE(image_release("vllm/vllm-openai:nightly-0a1b2c"));
  EXPECT_FALSE(image_release("localhost:5000/vllm/vllm-openai"));
  EXPECT_FALSE(image_release("vllm/vllm-openai@sha256:0123abcd"));
  EXPECT_FALSE(image_release("lmsysorg/sglang:v0.5.9.postx"));

  const EngineLaunch l =
      read(words("docker run --gpus all lmsysorg/sglang:v0.4.6.post1-cu124 python3 -m "
                 "sglang.launch_server --model-path Qwen/Qwen3-8B"));
  EXPECT_EQ(l.version, "0.4.6.post1");
  EXPECT_EQ(l.version_loc.column, 40);
  Diagnostics diags;
  std::optional<Scenario> s = scenario_from_launch(
      l, LaunchOptions{"h100", ""}, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->engine.version, "0.4.6.post1");
  LaunchOptions pinned{"h100", ""};
  pinned.engine_version = "0.5.9";
  s = scenario_from_launch(l, pinned, test_catalogs().gpus, test_catalogs().models, diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->engine.version, "0.5.9");
}

TEST(LaunchCommand, WhatADockerRunDoesNotShowIsRefused) {
  const std::pair<std::string, std::string> kRefusals[] = {
      {"docker run --gpus all lmsysorg/sglang:latest",
       "<launch command>:1:23: the image lmsysorg/sglang:latest runs no serving engine gpumem "
       "knows by itself; write the command it runs after the image (python -m "
       "sglang.launch_server, sglang serve, vllm serve, python -m "
       "vllm.entrypoints.openai.api_server, python -m vllm.entrypoints.api_server)\n"},
      {"docker run --cpu-count 4 vllm/vllm-openai --model m",
       "<launch command>:1:12: '--cpu-count' is not a docker run option gpumem knows; it cannot "
       "tell whether the next word is its value or the image\n"},
      {"docker run -itx vllm/vllm-openai --model m",
       "<launch command>:1:15: '-x' is not a docker run option gpumem knows; it cannot tell "
       "whether the next word is its value or the image\n"},
      {"docker run --env-file .env vllm/vllm-openai m",
       "<launch command>:1:23: --env-file: the variables in .env are not in the command, and an "
       "engine's may change its memory; write them with -e NAME=VALUE\n"},
      {"docker run vllm/vllm-openai vllm serve m",
       "<launch command>:1:29: the image vllm/vllm-openai already runs 'vllm serve' (its "
       "ENTRYPOINT): the words after the image are its arguments; drop 'vllm serve'\n"},
      {"docker run --gpus all", "<launch command>:1:19: the container command names no image\n"},
      {"docker run -e", "<launch command>:1:12: '-e' expects a value\n"},
  };
  for (const auto& [command, expected] : kRefusals) {
    EXPECT_EQ(refusal(words(command)), expected) << command;
  }
}

// Hostile input: 200,000 options before the image read in one pass, and an option whose
// value is the last word refused at it.
TEST(LaunchCommand, ADockerRunOfManyOptionsReadsInOnePass) {
  std::vector<std::string> argv = {"docker", "run"};
  for (int i = 0; i < 100'000; ++i) {
    argv.push_back("-e");
    argv.push_back("HF_TOKEN=x");
  }
  argv.insert(argv.end(), {"vllm/vllm-openai", "m"});
  EXPECT_EQ(read(argv).env.size(), 100'000u);
  argv.resize(argv.size() - 3);
  EXPECT_EQ(refusal(argv), "<launch command>:1:1399998: '-e' expects a value\n");
}

}  // namespace
}  // namespace gpumem
