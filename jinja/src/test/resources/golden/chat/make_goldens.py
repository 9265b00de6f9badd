"""Golden corpus of chat-template renderings, produced by the real libraries a vLLM engine renders with.

Run it with the Python of the project-local virtualenv (see README.md), from anywhere:

    PY=$(build/python-env.sh venv goldens jinja/src/test/resources/golden/chat/requirements.txt | tail -1)
    WHEEL=$(build/python-env.sh wheel vllm==0.33.0 | tail -1)
    $PY jinja/src/test/resources/golden/chat/make_goldens.py --vllm-wheel "$WHEEL" [--out FILE]

Every case defined below goes the way a vLLM chat request goes:

1. vLLM's message normalization. The functions that shape what a template sees are compiled from the pinned
   vLLM wheel itself (vllm/renderers/chat_utils/chat_message.py: parse_chat_message_content and the part parsers,
   _postprocess_messages, with the placeholder constants of content_parser.py; vllm/renderers/hf.py: _detect_content_format; the reasoning_content rename of
   ChatCompletionRequest._normalize_messages_before in vllm/entrypoints/openai/chat_completion/protocol.py).
   Their modules import torch, PIL and openai, so only those functions are loaded, next to small stand-ins
   (vllm_stubs() below) for what they import. The request's pydantic parsing of `tools` is emulated in
   vllm_tools().
2. transformers' apply_chat_template (tokenize=False) on a PreTrainedTokenizerFast built in memory from the
   template's special tokens, so it passes exactly the special_tokens_map a real tokenizer passes.

Output: cases.jsonl next to this file (or --out), one JSON object per line; see README.md for the fields.
Offline (HF_HUB_OFFLINE) and deterministic: no randomness, and strftime_now reads FIXED_NOW.
"""
import argparse
import ast
import collections
import datetime
import functools
import json
import logging
import os
import sys
import typing
import zipfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import jinja2  # noqa: E402
import jinja2.nodes  # noqa: E402
import tokenizers  # noqa: E402
import transformers  # noqa: E402
import transformers.utils.chat_template_utils as hf_chat  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "templates")
OUT = os.path.join(HERE, "cases.jsonl")

# The versions requirements.txt pins; the script refuses to write goldens with anything else.
TRANSFORMERS_VERSION = "5.20.2"
JINJA2_VERSION = "3.1.6"
VLLM_WHEEL_PREFIX = "vllm-0.33.0-"


# --------------------------------------------------------------------------------------
# The clock: transformers' strftime_now calls datetime.now(); the Java tests inject the same instant
# --------------------------------------------------------------------------------------
FIXED_NOW = datetime.datetime(2026, 11, 30, 9, 5, 7)


class _FixedClock(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return FIXED_NOW


hf_chat.datetime = _FixedClock


# --------------------------------------------------------------------------------------
# vLLM's own normalization, compiled from the wheel
# --------------------------------------------------------------------------------------
def load_upstream(wheel, path, names, namespace, inside=None):
    """Compiles the named top-level functions/assignments of `path` in the wheel into `namespace`.

    Annotations are dropped (they name types this script does not load); everything else runs as shipped.
    Exits when a name is missing, so a moved function is noticed rather than silently skipped.
    """
    with zipfile.ZipFile(wheel) as z:
        tree = ast.parse(z.read(path).decode("utf-8"), path)
    body = tree.body
    if inside is not None:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == inside).body
    picked, found = [], set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            if inside is not None:
                node.decorator_list = []  # a pydantic @classmethod validator, called here as a plain function
            picked.append(node)
            found.add(node.name)
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id in names):
            picked.append(node)
            found.add(node.targets[0].id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in names:
            picked.append(ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node))
            found.add(node.target.id)
    if found != set(names):
        sys.exit("%s in %s: %s not found (moved upstream?)" % (path, os.path.basename(wheel),
                                                              sorted(set(names) - found)))
    module = ast.Module(body=picked, type_ignores=[])
    for n in ast.walk(module):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n.returns = None
            a = n.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
                arg.annotation = None
    exec(compile(ast.fix_missing_locations(module), "%s!%s" % (os.path.basename(wheel), path), "exec"), namespace)


class VLLMValidationError(ValueError):
    """Stands in for vllm.exceptions.VLLMValidationError (a 400 Bad Request)."""

    def __init__(self, message, **kwargs):
        super().__init__(message)


class _NoMedia:
    """Stands in for vLLM's multimodal parser/tracker of a text-only model.

    Media parts are accepted and produce no placeholder: the placeholder a multimodal model gets is
    model-specific, so "string"-format templates see only the text parts (as the router renders them).
    """

    class model_config:
        enable_prompt_embeds = False

    def create_parser(self, **kwargs):
        return self

    def mm_placeholder_storage(self):
        return {}

    def get_num_items(self, modality):
        return 0

    def __getattr__(self, name):
        if name.startswith("parse_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


class _TypeAdapter:
    """pydantic.TypeAdapter(T).validate_python: the parts here are already valid, so it is the identity."""

    def __init__(self, t):
        pass

    def validate_python(self, value):
        return value


def _typed_dict(**kwargs):
    return dict(kwargs)


VLLM_LOGGER = logging.getLogger("vllm")
VLLM_LOGGER.setLevel(logging.ERROR)  # its warnings (e.g. arguments coerced to {}) are what the cases are about


def vllm_stubs():
    ns = {
        "__name__": "vllm_upstream", "json": json, "jinja2": jinja2, "cast": typing.cast, "partial": functools.partial,
        "lru_cache": functools.lru_cache, "deque": collections.deque, "Counter": collections.Counter,
        "Any": typing.Any, "Iterable": typing.Iterable, "Callable": typing.Callable,
        "logger": VLLM_LOGGER, "VLLMValidationError": VLLMValidationError, "TypeAdapter": _TypeAdapter,
        "ContentPart": object, "ConversationMessage": _typed_dict, "ChatCompletionContentPartTextParam": _typed_dict,
        # The union of the content-part TypedDicts' keys (types.py + openai); parts with other keys keep them
        # in "openai"-format templates. No case here has such keys.
        "_KNOWN_CONTENT_PART_FIELDS": frozenset(
            {"type", "text", "image_url", "input_audio", "refusal", "file", "audio_url", "video_url",
             "image_embeds", "audio_embeds", "video_embeds", "image_pil", "prompt_embeds", "data", "uuid",
             "thinking", "closed", "name", "detail", "encoding"}),
    }
    for t in ["ChatCompletionContentPartImageParam", "ChatCompletionContentPartAudioParam",
              "ChatCompletionContentPartVideoParam", "ResponseInputImageParam", "ChatCompletionContentPartParam",
              "ChatCompletionContentPartImageEmbedsParam", "ChatCompletionContentPartAudioEmbedsParam",
              "ChatCompletionContentPartVideoEmbedsParam", "ChatCompletionContentPartPromptEmbedsParam",
              "ChatCompletionContentPartInputAudioParam", "ChatCompletionContentPartRefusalParam",
              "CustomChatCompletionContentPILImageParam", "CustomThinkCompletionContentParam",
              "ChatCompletionAssistantMessageParam", "ChatCompletionToolMessageParam",
              "CustomChatCompletionContentSimpleImageParam", "CustomChatCompletionContentSimpleAudioParam",
              "CustomChatCompletionContentSimpleVideoParam", "CustomChatCompletionContentToolReferenceParam",
              "MultiModalEmbedsPayload", "InputAudio", "Image"]:
        ns[t] = dict  # TypedDicts, only named in cast(...) calls and partial(cast, ...) parsers
    return ns


CHAT_MESSAGE_NAMES = [
    "_TextParser", "_ImageEmbedsParser", "_AudioEmbedsParser", "_VideoEmbedsParser", "_PromptEmbedsParser",
    "_InputAudioParser", "_RefusalParser", "_PILImageParser", "_ThinkParser", "_AssistantParser", "_ToolParser",
    "_ImageParser", "_AudioParser", "_VideoParser", "_ResponsesInputImageParser", "MM_PARSER_MAP",
    "_get_interleaved_text_prompt", "get_full_multimodal_text_prompt", "_collect_extra_fields",
    "parse_chat_message_content_mm_part", "PART_TYPES_TO_SKIP_NONE_CONTENT", "TEXT_PART_TYPES",
    "parse_chat_message_content_parts", "_reject_reserved_placeholder_in_text", "parse_chat_message_content_part",
    "_CLAUDE_CODE_BILLING_HEADER", "_strip_claude_code_billing_header", "parse_chat_message_content",
    "_postprocess_messages",
]
CONTENT_PARSER_NAMES = ["MODALITY_PLACEHOLDERS_MAP", "PROMPT_EMBEDS_PLACEHOLDER_TOKEN",
                        "PROMPT_EMBEDS_PLACEHOLDER_ID_PREFIX", "make_prompt_embeds_placeholder"]
HF_NAMES = ["_is_var_access", "_is_attr_access", "_is_var_or_elems_access", "_attr_dotted_name",
            "_iter_nodes_assign_var_or_elems", "_iter_nodes_assign_messages_item", "_iter_nodes_assign_content_item",
            "_try_extract_ast", "_detect_content_format"]


class Vllm:
    """vLLM 0.33.0's chat-request path up to apply_chat_template, from the wheel's own code."""

    def __init__(self, wheel):
        if not os.path.basename(wheel).startswith(VLLM_WHEEL_PREFIX):
            sys.exit("expected a %s*.whl, got %s" % (VLLM_WHEEL_PREFIX, wheel))
        self.ns = vllm_stubs()
        load_upstream(wheel, "vllm/renderers/chat_utils/content_parser.py", CONTENT_PARSER_NAMES, self.ns)
        load_upstream(wheel, "vllm/renderers/chat_utils/chat_message.py", CHAT_MESSAGE_NAMES, self.ns)
        load_upstream(wheel, "vllm/renderers/hf.py", HF_NAMES, self.ns)
        load_upstream(wheel, "vllm/entrypoints/openai/chat_completion/protocol.py", ["_normalize_messages_before"],
                      self.ns, inside="ChatCompletionRequest")

    def content_format(self, source):
        # resolve_chat_template_content_format with --chat-template-content-format auto (the default)
        return self.ns["_detect_content_format"](source, default="string")

    def conversation(self, messages, content_format):
        """parse_chat_messages for a text-only model (interleave_mm_strings off)."""
        messages = self.ns["_normalize_messages_before"](None, {"messages": messages})["messages"]
        conversation = []
        for msg in messages:
            conversation.extend(self.ns["parse_chat_message_content"](msg, _NoMedia(), content_format, False))
        self.ns["_postprocess_messages"](conversation)
        return conversation


def vllm_tools(tools):
    """The request's tools as vLLM hands them to the template: [tool.model_dump() for tool in request.tools].

    Emulates ChatCompletionToolsParam/FunctionDefinition (vllm/entrypoints/openai/chat_completion/protocol.py,
    vllm/entrypoints/generate/base/protocol.py): type is "function"; function keeps name, description and
    parameters (None when absent) in that order, and strict/defer_loading only when set; other keys are dropped.
    A tool without a function object fails validation (400), so no case may use one.
    """
    if tools is None:
        return None
    out = []
    for tool in tools:
        fn = tool.get("function")
        if tool.get("type", "function") != "function" or not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise ValueError("not an OpenAI function tool (vLLM answers 400): %r" % (tool,))
        f = {"name": fn["name"], "description": fn.get("description"), "parameters": fn.get("parameters")}
        if fn.get("strict") is not None:
            f["strict"] = fn["strict"]
        defer = fn.get("defer_loading", tool.get("defer_loading"))  # the tool's flag is copied to its function
        if defer is not None:
            f["defer_loading"] = defer
        out.append({"type": "function", "function": f, **({"defer_loading": tool["defer_loading"]} if tool.get("defer_loading") is not None else {})})
    return out


def make_tokenizer(tokens):
    """A PreTrainedTokenizerFast with the template's special tokens, built in memory (no files, no network)."""
    vocab = {"<unk>": 0}
    for t in tokens.values():
        vocab.setdefault(t, len(vocab))
    backend = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **tokens)


# --------------------------------------------------------------------------------------
# Conversation library
# --------------------------------------------------------------------------------------
def U(c):
    return {"role": "user", "content": c}


def A(c, **kw):
    m = {"role": "assistant", "content": c}
    m.update(kw)
    return m


def S(c):
    return {"role": "system", "content": c}


def TOOL(call_id, name, content):
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def IMAGE(url):
    return {"type": "image_url", "image_url": {"url": url}}


def CALL(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


T_WEATHER = {"type": "function", "function": {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"}},
        "required": ["city"]}}}
T_SEARCH = {"type": "function", "function": {
    "name": "search_docs",
    "description": "Search the knowledge base \u2014 returns short snippets (max 5).",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string", "description": "Free-text query"},
        "max_results": {"type": "integer", "description": "How many results", "default": 3},
        "filters": {"type": "object", "description": "Optional filters", "properties": {
            "lang": {"type": "string", "description": "ISO language code"},
            "score_min": {"type": "number", "description": "Minimum score"}}}},
        "required": ["query"]}}}
T_CALC = {"type": "function", "function": {
    "name": "calculate",
    "description": "Sum a list of numbers.",
    "parameters": {"type": "object", "properties": {
        "values": {"type": "array", "items": {"type": "number"}, "description": "Numbers to add"},
        "precise": {"type": "boolean", "description": "Use exact arithmetic"},
        "options": {"type": "object", "description": "Extra options"},
        "label": {"type": "string", "description": "Free label"}},
        "required": ["values"]}}}
TOOLS2 = [T_WEATHER, T_SEARCH]
TOOLS3 = [T_WEATHER, T_SEARCH, T_CALC]

NUMBERS_ARGS = {
    "values": [1, 1.0, 0.1, 1e-05, 1e21, -0.0, 123456789012345678901234567890, -7, 3.14159, 2.5e-300, 100.0, 1e16],
    "precise": True,
    "options": {"enabled": False, "limit": None, "nested": {"list": [], "obj": {}}, "ratio": 0.5},
    "label": "na\u00efve caf\u00e9 \u2615 \"quoted\" back\\slash\nnewline\ttab </s> {{x}}",
    "empty": "",
}

REASON1 = "The user asks for 2+2.\nThat is 4."
REASON2 = "Now multiply by 3: 12.\n\nDouble-check: 4*3 = 12."

LONG40 = [S("You are a counting assistant.")]
for _i in range(1, 40):
    LONG40.append(U("Turn %d: what comes after %d?" % (_i, _i)) if _i % 2 == 1
                  else A("After %d comes %d." % (_i - 1, _i)))

CONVS = {
    # ---- basic
    "single-user": dict(messages=[U("What is the capital of France?")]),
    "system-user": dict(messages=[S("You are a concise assistant."), U("Name three primary colors.")]),
    "multi-turn": dict(messages=[
        S("You are a helpful assistant."), U("Hi there!"), A("Hello! How can I help you today?"),
        U("What's 2+2?"), A("2+2 equals 4."), U("And times 3?")]),
    "multi-turn-nosys": dict(messages=[U("Tell me a joke."), A("Why did the chicken cross the road?"),
                                       U("Why?")]),
    "ends-assistant": dict(messages=[S("Be brief."), U("Say hi."), A("Hi!")]),
    "long-40": dict(messages=LONG40),
    "unicode": dict(messages=[
        S("\u0623\u0646\u062a \u0645\u0633\u0627\u0639\u062f \u0645\u0641\u064a\u062f. \u2014 "
          "\u05e2\u05d1\u05e8\u05d9\u05ea: \u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd"),
        U("\u4f60\u597d\uff0c\u4e16\u754c\uff01\u3053\u3093\u306b\u3061\u306f \uc548\ub155\ud558\uc138\uc694 "
          "\U0001F600\U0001F44D\U0001F3FD \U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466 "
          "\U0001F1EB\U0001F1F7 e\u0301 A\u030a \U0001D518\U0001D52B\U0001D526 zero\u200bwidth "
          "\u05de\u05b4\u05d1\u05b0\u05d7\u05b8\u05df"),
        A("\u00dcn\u00efc\u00f6d\u00e9 \u2713 \u2014 \u201cquotes\u201d \u2018single\u2019 \u2026 \u00bd \u2211 "
          "\u221e \u2260 \u2264 \u2265 \u00df \u0130 line\u2028sep para\u2029sep"),
        U("\u0939\u093f\u0928\u094d\u0926\u0940 \u0926\u0947\u0935\u0928\u093e\u0917\u0930\u0940 "
          "\u200eLRM\u200fRLM \u202eRLO override\u202c end \U0001F9D1\u200D\U0001F4BB")]),
    "whitespace": dict(messages=[
        S("  system with spaces  "),
        U("  leading and trailing spaces  "), A("line one\r\nline two\r\n"),
        U("\ttab\tseparated\t"), A("\n\nsurrounded by newlines\n\n"),
        U("\u00a0nbsp\u3000ideographic\u2003em-space\u00a0")]),
    "empty-content": dict(messages=[U("Hello?"), A(""), U("")]),
    "newline-only": dict(messages=[S("\n"), U("\n\n\n"), A("\r\n"), U(" \n \t\n")]),
    "special-chars": dict(messages=[
        U("Use {{ braces }} and {% if x %}tags{% endif %} and {# comments #} literally. "
          "Backslash \\ quote \" apostrophe ' <b>&amp;</b> $PATH %s %d {0} \\n <|im_end|> </s> [INST]"),
        A("Sure: {{ braces }} stay as they are.")]),
    "unicode-nosys": None,  # filled in below: same as "unicode" without the system message
    "whitespace-nosys": None,
    "long-39-nosys": None,
    # ---- tools
    "tools-declared": dict(tools=TOOLS2, messages=[S("You can call tools."), U("What's the weather in Paris?")]),
    "tools-declared-nosys": dict(tools=TOOLS2, messages=[U("Search for 'jinja templates'.")]),
    "tool-call-dict": dict(tools=TOOLS2, messages=[
        S("You can call tools."), U("What's the weather in Paris?"),
        A("", tool_calls=[CALL("call00001", "get_weather", {"city": "Paris", "unit": "celsius"})]),
        TOOL("call00001", "get_weather", '{"temperature": 21.5, "condition": "sunny"}'),
        A("It is 21.5 \u00b0C and sunny in Paris."), U("Thanks! And in Tokyo?")]),
    "tool-call-str": dict(tools=TOOLS2, messages=[
        U("Find docs about caf\u00e9s."),
        A("", tool_calls=[CALL("call00002", "search_docs",
                               '{ "query" : "na\u00efve caf\u00e9",\n  "max_results": 3, "filters": {"lang": "fr"} }')]),
        TOOL("call00002", "search_docs", "1. Caf\u00e9 culture\n2. Espresso basics"),
        A("I found two documents."), U("Summarize the first.")]),
    "tool-call-numbers": dict(tools=[T_CALC], messages=[
        U("Add these numbers."),
        A("", tool_calls=[CALL("call00003", "calculate", NUMBERS_ARGS)]),
        TOOL("call00003", "calculate", '{"sum": 1.0000000000000002e+21, "ok": true, "warnings": null}')]),
    "tool-call-numbers-str": dict(tools=[T_CALC], messages=[
        U("Add these numbers (arguments as a JSON string)."),
        A("", tool_calls=[CALL("call00014", "calculate", json.dumps(NUMBERS_ARGS, ensure_ascii=False))]),
        TOOL("call00014", "calculate", '{"sum": 1e21}'), A("The sum is about 1e21.")]),
    "tools-weather-only": dict(tools=[T_WEATHER], messages=[U("Weather in Paris?")]),
    "tool-call-weather-only": dict(tools=[T_WEATHER], messages=[
        S("Use tools when needed."), U("Weather in Paris?"),
        A("", tool_calls=[CALL("call00015", "get_weather", {"city": "Paris", "unit": "celsius"})]),
        TOOL("call00015", "get_weather", "  sunny, 21 C  "), A("Sunny, 21 \u00b0C."), U("Thanks")]),
    # (Cohere's legacy parameter_definitions tools are not OpenAI tools: vLLM answers 400, so no case has them.)
    "tool-parallel": dict(tools=TOOLS2, messages=[
        U("Weather in Paris and in Oslo?"),
        A("", tool_calls=[CALL("call00004", "get_weather", {"city": "Paris"}),
                          CALL("call00005", "get_weather", {"city": "Oslo", "unit": "fahrenheit"})]),
        TOOL("call00004", "get_weather", '{"temperature": 21}'),
        TOOL("call00005", "get_weather", '{"temperature": 40}'),
        A("Paris: 21 \u00b0C. Oslo: 40 \u00b0F.")]),
    "tool-result-last": dict(tools=TOOLS2, messages=[
        S("You can call tools."), U("Weather in Rome?"),
        A("", tool_calls=[CALL("call00006", "get_weather", {"city": "Rome"})]),
        TOOL("call00006", "get_weather", "sunny, 25 degrees")]),
    "tool-multi-round": dict(tools=TOOLS2, messages=[
        U("Check weather in Berlin, then search for umbrellas."),
        A("", tool_calls=[CALL("call00007", "get_weather", {"city": "Berlin"})]),
        TOOL("call00007", "get_weather", '{"condition": "rain"}'),
        A("", tool_calls=[CALL("call00008", "search_docs", '{"query": "umbrellas"}')]),
        TOOL("call00008", "search_docs", "[]"),
        A("It rains in Berlin and I found no umbrella documents."), U("OK.")]),
    "tool-call-with-content": dict(tools=TOOLS2, messages=[
        U("Weather in Lima?"),
        A("Let me check that for you.", tool_calls=[CALL("call00009", "get_weather", {"city": "Lima"})]),
        TOOL("call00009", "get_weather", '{"temperature": 18}'),
        A("18 degrees in Lima.")]),
    # ---- reasoning
    "reasoning-last": dict(messages=[U("What is 2+2?"), A("The answer is 4.", reasoning_content=REASON1)]),
    "reasoning-history": dict(messages=[
        S("Think step by step."), U("What is 2+2?"), A("4.", reasoning_content=REASON1),
        U("Times 3?"), A("12.", reasoning_content=REASON2), U("Thanks.")]),
    "think-in-content": dict(messages=[
        U("Greet me."), A("<think>\nThe user wants a greeting.\n</think>\n\nHello!"), U("Again.")]),
    "reasoning-tools": dict(tools=TOOLS2, messages=[
        U("Weather in Paris?"),
        A("", reasoning_content="I need the weather tool.",
          tool_calls=[CALL("call00010", "get_weather", {"city": "Paris"})]),
        TOOL("call00010", "get_weather", '{"temperature": 20}'),
        A("20 degrees.", reasoning_content="The tool said 20."), U("Great.")]),
    "reasoning-tools-pending": dict(tools=TOOLS2, messages=[
        S("Use tools."), U("Weather in Paris and then Oslo?"),
        A("", reasoning_content="First Paris.", tool_calls=[CALL("call00016", "get_weather", {"city": "Paris"})]),
        TOOL("call00016", "get_weather", '{"temperature": 20}'),
        A("Paris done.", reasoning_content="Now Oslo.\n", tool_calls=[CALL("call00017", "get_weather", {"city": "Oslo"})]),
        TOOL("call00017", "get_weather", '{"temperature": -3.5}')]),
    "thinking-field": dict(messages=[
        U("What is 2+2?"), A("4", thinking="Simple arithmetic."), U("And 3+3?")]),
    # ---- content arrays
    # OpenAI parts: vLLM turns an image_url part into {"type": "image"} for "openai"-format templates and drops it
    # for "string" ones (see _NoMedia); it rejects {"type": "image"} in a request.
    "content-parts": dict(messages=[
        S([{"type": "text", "text": "You describe images."}]),
        U([{"type": "text", "text": "What is in this picture?"}, IMAGE("https://example.com/cat.png")]),
        A([{"type": "text", "text": "A cat on a sofa."}]),
        U([IMAGE("https://example.com/dog.png"), {"type": "text", "text": "And this one?"},
           {"type": "text", "text": "Be brief."}])]),
    "content-parts-nosys": dict(messages=[
        U([IMAGE("https://example.com/frame.png"), {"type": "text", "text": "Describe \U0001F5BC\uFE0F"}])]),
    # ---- documents
    "documents": dict(documents=[
        {"title": "Tides", "text": "Tides are caused mainly by the Moon's gravity."},
        {"title": "Sun", "text": "The Sun is a G-type main-sequence star."}],
        messages=[U("What causes tides?")]),
    "documents-tools": dict(tools=TOOLS2, documents=[
        {"title": "Tides", "text": "Tides are caused mainly by the Moon's gravity."},
        {"title": "Sun", "text": "The Sun is a G-type main-sequence star."}],
        messages=[S("Answer from the documents."), U("What causes tides?")]),
    # ---- error-prone inputs
    "err-user-user": dict(messages=[U("first"), U("second")]),
    "err-assistant-first": dict(messages=[A("I speak first."), U("ok")]),
    "err-system-middle": dict(messages=[U("hi"), S("late system"), U("hello")]),
    "err-missing-content": dict(messages=[S("sys"), {"role": "user"}]),
    "err-bad-role": dict(messages=[U("hi"), {"role": "robot", "content": "beep"}]),
    # (No messages at all: apply_chat_template raises ValueError before any template runs, so no case has it.)
    "err-parallel-calls": dict(tools=TOOLS2, messages=[
        U("Weather in Paris and Oslo?"),
        A("", tool_calls=[CALL("call00011", "get_weather", {"city": "Paris"}),
                          CALL("call00012", "get_weather", {"city": "Oslo"})])]),
    "err-bad-tool-id": dict(tools=TOOLS2, messages=[
        U("Weather?"), A("", tool_calls=[CALL("call_1", "get_weather", {"city": "Paris"})]),
        TOOL("call_1", "get_weather", "sunny")]),
    # ---- request shapes that vLLM's normalization rewrites (chat_message.py, protocol.py)
    "request-shapes": dict(tools=TOOLS2, messages=[
        # text-like parts are joined with "\n" ("string") or become text parts ("openai")
        S([{"type": "input_text", "text": "You are terse."}, "and plain-string part"]),
        {"role": "user", "name": "ada", "content": [{"type": "text", "text": "Weather in Oslo?"},
                                                    {"type": "output_text", "text": "(asked twice)"}]},
        # content null next to tool calls (what OpenAI clients send); empty arguments become {}
        {"role": "assistant", "content": None, "reasoning": "Use the tool.",
         "tool_calls": [CALL("call00018", "get_weather", ""), CALL("call00019", "search_docs", '{"query": "oslo"}')]},
        # tool content as text parts is joined into one string, for either format
        {"role": "tool", "tool_call_id": "call00018", "content": [{"type": "text", "text": "cold"},
                                                                  {"type": "text", "text": "-3 C"}]},
        {"role": "tool", "tool_call_id": "call00019", "content": None},
        # the deprecated reasoning_content is renamed to reasoning and both are passed
        A([{"type": "text", "text": "Cold: -3 \u00b0C."}], reasoning_content="Summarize."),
        U("Thanks.")]),
    "request-shapes-lenient": dict(tools=TOOLS2, messages=[
        U("Weather in Oslo?"),
        # an empty tool_calls list is dropped; arguments that are not a JSON object become {}
        A("Hm.", tool_calls=[]),
        A("", tool_calls=[CALL("call00020", "get_weather", "{not json"), CALL("call00021", "get_weather", "[1, 2]")]),
        TOOL("call00020", "get_weather", "?"), TOOL("call00021", "get_weather", "?"),
        # thinking parts count as text; the DeepSeek task marker is kept
        {"role": "user", "task": "chat", "content": [{"type": "thinking", "thinking": "I think so."},
                                                     {"type": "refusal", "refusal": "No."}]}]),
}

CONVS["unicode-nosys"] = dict(messages=CONVS["unicode"]["messages"][1:])
CONVS["whitespace-nosys"] = dict(messages=CONVS["whitespace"]["messages"][1:])
CONVS["long-39-nosys"] = dict(messages=LONG40[1:])

BASIC_CORE = ["single-user", "system-user", "multi-turn"]
BASIC_MORE = ["multi-turn-nosys", "ends-assistant", "unicode", "whitespace", "empty-content", "newline-only",
              "special-chars"]
TOOLS_ALL = ["tools-declared", "tools-declared-nosys", "tool-call-dict", "tool-call-str", "tool-call-numbers",
             "tool-call-numbers-str",
             "tool-parallel", "tool-result-last", "tool-multi-round", "tool-call-with-content"]
REASONING = ["reasoning-last", "reasoning-history", "think-in-content", "reasoning-tools", "reasoning-tools-pending"]
REQUEST_SHAPES = ["request-shapes", "request-shapes-lenient"]
ERRS = ["err-user-user", "err-assistant-first", "err-system-middle", "err-missing-content", "err-bad-role"]

# conversations rendered with both add_generation_prompt values; others get a single value
BOTH_AGP = {"single-user", "system-user", "multi-turn", "tool-call-dict", "tool-result-last", "reasoning-history",
            "reasoning-last", "content-parts"}
NOAGP_ONLY = {"ends-assistant", "reasoning-last", "tool-parallel", "tool-call-with-content", "tool-call-numbers-str"}
NOSYS_BASIC = ["single-user", "multi-turn-nosys", "unicode-nosys", "whitespace-nosys", "empty-content", "special-chars",
               "long-39-nosys"]

# --------------------------------------------------------------------------------------
# Per-template plan.  convs: conversation names; variants: list of (tag, extra);
# variant_convs: restrict the non-default variants to these conversations.
# skip: (conv, variant-tag) pairs known to fail with a plain Python error that is not
# template semantics (kept out of the corpus), with the reason.
# --------------------------------------------------------------------------------------
FIREFUNCTION_EXTRA = {"functions": json.dumps([T_WEATHER["function"]], ensure_ascii=False), "datetime": "2026-11-30"}

PLANS = {
    "qwen3": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + TOOLS_ALL + REASONING + ERRS + REQUEST_SHAPES,
                  variants=[("", {}), ("think-off", {"enable_thinking": False}), ("think-on", {"enable_thinking": True})],
                  variant_convs=BASIC_CORE + REASONING + ["tool-call-dict", "tool-result-last"]),
    "llama3": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40", "err-missing-content",
                                                     "content-parts-nosys"]),
    "llama3_1": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40", "tool-call-dict", "err-missing-content"]),
    "deepseek_v3": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + TOOLS_ALL + ["think-in-content"] + ERRS),
    "gemma3": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40", "content-parts", "content-parts-nosys",
                                                     "think-in-content"] + ERRS),
    "llama3_1-tools": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + TOOLS_ALL + ERRS + ["err-parallel-calls"],
                           variants=[("", {}), ("date", {"date_string": "01 Jan 2025"}),
                                     ("sys-tools", {"tools_in_user_message": False}),
                                     ("builtin", {"builtin_tools": ["brave_search", "wolfram_alpha"]})],
                           variant_convs=["system-user", "tool-call-dict", "tools-declared", "tool-result-last"],
                           custom=[("builtin-call", dict(tools=TOOLS2, messages=[
                               U("Search the web for Jinja."),
                               A("", tool_calls=[CALL("call00013", "brave_search", {"query": "Jinja templates"})]),
                               TOOL("call00013", "brave_search", "Jinja is a templating engine.")]),
                               {"builtin_tools": ["brave_search", "wolfram_alpha"]})]),
    "llama3_2": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + ["err-parallel-calls"],
                     variants=[("", {}), ("date", {"date_string": "26 Jul 2024"})],
                     variant_convs=["system-user", "tool-call-dict"]),
    "mistral-nemo": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + ERRS + ["err-bad-tool-id"]),
    "mistral-small-3.2": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + ["content-parts"] + ERRS + ["err-bad-tool-id"]),
    "phi-3.5": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + ERRS),
    "glm-4.6": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + REASONING + ["content-parts"] + ERRS,
                    variants=[("", {}), ("think-off", {"enable_thinking": False})],
                    variant_convs=BASIC_CORE + ["reasoning-history"]),
    "granite-3.3": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + ["documents", "documents-tools"] + ERRS,
                        variants=[("", {}), ("thinking", {"thinking": True}),
                                  ("controls", {"controls": {"citations": True, "length": "short"}})],
                        variant_convs=["system-user", "multi-turn", "documents", "documents-tools"]),
    "granite-4.0": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + ["documents", "documents-tools"] + ERRS),
    "hermes-2-pro-tool-use": dict(convs=TOOLS_ALL + ["tool-call-weather-only"],
                                  custom=[("no-tools", dict(messages=[U("hi")]), {})]),
    "command-r-plus-tool-use": dict(convs=["tools-weather-only", "tool-call-weather-only", "tools-declared",
                                           "tool-call-dict"]),
    "command-r7b-tool-use": dict(convs=BASIC_CORE + ["unicode", "tool-call-weather-only", "tool-call-dict", "tool-call-str",
                                                     "tool-call-numbers", "tool-parallel", "tool-result-last",
                                                     "documents-tools"]
                                       + ["err-missing-content"],
                                 variants=[("", {}), ("citations", {"enable_citations": True}),
                                           ("think-on", {"enable_thinking": True})],
                                 variant_convs=["documents-tools", "tool-call-dict"]),
    "qwen2.5": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + TOOLS_ALL + ERRS),
    "qwq": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + REASONING + ERRS),
    "qwen3-coder": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + ERRS),
    "deepseek-r1-distill-qwen": dict(convs=BASIC_CORE + BASIC_MORE + ["think-in-content", "reasoning-history"] + ERRS),
    "deepseek-v3.1": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + ["think-in-content", "reasoning-history"] + ERRS,
                          variants=[("", {}), ("thinking", {"thinking": True})],
                          variant_convs=BASIC_CORE + ["tool-call-dict", "reasoning-history"]),
    "gemma-2": dict(convs=NOSYS_BASIC + ["system-user", "content-parts-nosys"] + ERRS),
    "gemma-4": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + REASONING + ["content-parts"] + ERRS,
                    variants=[("", {}), ("think-on", {"enable_thinking": True})],
                    variant_convs=["system-user", "reasoning-history", "tool-call-dict"]),
    "gpt-oss": dict(convs=BASIC_CORE + BASIC_MORE + TOOLS_ALL + ["thinking-field"] + ERRS,
                    variants=[("", {}), ("effort-high", {"reasoning_effort": "high"}),
                              ("identity", {"model_identity": "You are Infera."}),
                              ("builtin", {"builtin_tools": ["browser", "python"]})],
                    variant_convs=["system-user", "tool-call-dict"]),
    "functionary-v3.2": dict(convs=BASIC_CORE + ["tools-declared", "tools-declared-nosys", "tool-call-str",
                                                 "tool-call-numbers-str", "tool-call-dict"] + ERRS),
    "firefunction-v2": dict(convs=BASIC_CORE + ["unicode", "whitespace", "tool-call-dict", "tool-call-str",
                                                "tool-parallel"] + ERRS,
                            variants=[("", FIREFUNCTION_EXTRA)], variant_convs=None),
    "smollm3": dict(convs=BASIC_CORE + ["unicode", "whitespace", "tools-declared", "tool-call-dict",
                                        "tool-result-last"] + REASONING + ERRS,
                    variants=[("", {}), ("think-off", {"enable_thinking": False})],
                    variant_convs=BASIC_CORE + ["reasoning-history", "tools-declared"],
                    custom=[("no-think-flag", dict(messages=[S("Be brief. /no_think"), U("Hi")]), {}),
                            ("think-flag", dict(messages=[S("Be brief. /think"), U("Hi")]), {})]),
    "kimi-k2": dict(convs=BASIC_CORE + ["unicode"] + TOOLS_ALL + ERRS),
    "kimi-k2-instruct": dict(convs=BASIC_CORE + ["tools-declared", "tool-call-dict"]),
    "nemotron-nano-v2": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + ERRS,
                             custom=[("no-think", dict(messages=[S("/no_think"), U("Hi")]), {})]),
    "phi4": dict(convs=BASIC_CORE + BASIC_MORE + ERRS),
    "phi4-mini": dict(convs=BASIC_CORE + BASIC_MORE + ["tools-declared", "tool-call-dict"] + ERRS),
    "glm4": dict(convs=BASIC_CORE + BASIC_MORE + ["tools-declared", "tool-call-dict", "tool-call-str"] + ERRS),
    "mixtral": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + ERRS),
    "mistral-7b-instruct": dict(convs=NOSYS_BASIC + ["system-user"] + ERRS),
    "llama2": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + ERRS),
    "command-r": dict(convs=BASIC_CORE + BASIC_MORE + ERRS),
    "granite-3.2": dict(convs=BASIC_CORE + ["unicode", "whitespace", "tools-declared", "tool-call-dict",
                                            "documents"] + ERRS,
                        variants=[("", {}), ("thinking", {"thinking": True})],
                        variant_convs=["system-user", "multi-turn"]),
    "llama4": dict(convs=BASIC_CORE + ["unicode", "whitespace", "content-parts", "content-parts-nosys"] + TOOLS_ALL + ERRS
                   + REQUEST_SHAPES),
    "tinyllama": dict(convs=BASIC_CORE + BASIC_MORE + ERRS),
    "olmo2": dict(convs=BASIC_CORE + BASIC_MORE + ERRS),
    "exaone3.5": dict(convs=BASIC_CORE + BASIC_MORE + ERRS),
    "llama-guard3": dict(convs=["single-user", "multi-turn-nosys", "unicode-nosys", "system-user"] + ERRS,
                         variants=[("", {}), ("excluded", {"excluded_category_keys": ["S1", "S3"]})],
                         variant_convs=["single-user"]),
    "shieldgemma": dict(convs=["single-user", "multi-turn-nosys", "ends-assistant", "unicode"] + ERRS,
                        variants=[("", {"guideline": "\"No Harassment\": The prompt shall not contain harassment."})],
                        variant_convs=None),
    "chatml-hermes2": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + ERRS),
    "deepseek-coder": dict(convs=BASIC_CORE + BASIC_MORE + ERRS),
}

# --------------------------------------------------------------------------------------
# Feature templates (written for this corpus): (template, tag, extra, messages)
# --------------------------------------------------------------------------------------
M3 = CONVS["multi-turn"]["messages"]
TREE = [{"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}]}, {"name": "b"}]}]
FEATURES = []


def F(template, tag, messages=None, agp=True, **extra):
    FEATURES.append((template, tag, extra, M3 if messages is None else messages, agp))


for tag, items in [("empty", []), ("one", [1]), ("three", ["a", "b", "c"])]:
    F("feature-whitespace", tag, items=items)
F("feature-whitespace-crlf", "flag-true", flag=True, v="x\r\ny")
F("feature-whitespace-crlf", "flag-false", flag=False)
F("feature-whitespace-crlf", "flag-undefined")
F("feature-trailing-newlines", "basic")
F("feature-trailing-newlines", "no-messages", messages=[])
F("feature-trailing-newlines", "one-message", messages=[U("x")])
for tag, x in [("neg", -5), ("zero", 0), ("small", 3), ("big", 10), ("str", "str"), ("empty-str", ""),
               ("none", None), ("one", 1), ("two", 2)]:
    F("feature-if", tag, x=x)
F("feature-if", "undefined")
for tag, xs in [("empty", []), ("one", [1]), ("mixed", [3, 1, 2, 2, "s", 5.5]), ("strings", ["x", "y"])]:
    F("feature-loop", tag, xs=xs, d={"z": 1, "a": None, "m": [1, 2]}, tree=TREE)
for tag, xs, stop in [("ints", [1, 2, 3, 4, 5, 6], 4), ("no-stop", [1, 2, 3], 9), ("empty", [], 1),
                      ("mixed", ["a", 1, "b", 2], 2)]:
    F("feature-loopcontrols", tag, xs=xs, stop=stop)
F("feature-scoping", "multi-turn")
F("feature-scoping", "one-message", messages=[U("only")])
F("feature-scoping", "no-messages", messages=[])
F("feature-macro", "basic", who="Zo\u00eb")
F("feature-macro", "parts", who="X", messages=CONVS["content-parts"]["messages"])
F("feature-macro", "no-messages", who="", messages=[])
for tag, xs, s in [("list5", [1, 2, 3, 4, 5], "hello"), ("empty", [], ""), ("one", ["x"], "\u00e9"),
                   ("unicode", ["\U0001F600", "b"], "\U0001F600a\u0301b")]:
    F("feature-slicing", tag, xs=xs, s=s)
F("feature-operators", "int", x=3)
F("feature-operators", "float", x=-1.5)
F("feature-operators", "zero", x=0)
F("feature-operators", "bool", x=True)
for tag, a, b in [("7-2", 7, 2), ("neg7-2", -7, 2), ("7.5-2", 7.5, 2), ("1-3", 1, 3), ("2-0.5", 2, 0.5),
                  ("big", 10 ** 18, 7), ("neg-float", -0.5, 3), ("zero-div", 1, 0), ("zero-float-div", 1.0, 0.0)]:
    F("feature-arithmetic", tag, a=a, b=b)
F("feature-percent-format", "a", v="text", n=255, f=3.14159)
F("feature-percent-format", "b", v=[1, "x"], n=-7, f=-0.5)
F("feature-percent-format", "c", v=None, n=0, f=1e21)
for tag, s in [("hello", "Hello, World!"), ("spaces", "  a  b\tc \n"), ("empty", ""), ("unicode", "Gr\u00fc\u00dfe, \u00c9cole \u4e2d\u6587!"),
               ("lines", "one\ntwo\r\nthree\n")]:
    F("feature-string-methods", tag, s=s, t="<think>\nreason\n</think>\n\nanswer")
F("feature-str-format", "ascii", name="Ada")
F("feature-str-format", "unicode", name="J\u00fcrgen \U0001F600")
F("feature-str-format", "empty", name="")
F("feature-dict-methods", "basic", data={"role": "user", "content": "hi", "n": 1.5, "z": None})
F("feature-dict-methods", "empty", data={})
F("feature-dict-methods", "nested", data={"a": {"b": [1, {"c": None}]}, "role": "tool", "content": ""})
for tag, s in [("hello", "  hello WORLD. it's a test!  "), ("empty", ""), ("unicode", "\u00e9t\u00e9 \u00e0 PARIS \u2014 \u00df"),
               ("hyphens", "foo-bar (baz) [qux] <quux> x_y")]:
    F("feature-filters-text", tag, s=s, long="The quick brown fox jumps over the lazy dog again and again",
      block="line one\n\nline three\n  indented")
F("feature-filters-list", "basic", xs=[3, "a", None, 1.5], words=["banana", "Apple", "cherry", "apple", "Banana"],
  nums=[5, 3, 8, 1, 9, 2, 3], mixed=[0, 1, "", "x", None, [], [0], False, True])
F("feature-filters-list", "small", xs=["only"], words=["b", "A", "a"], nums=[2], mixed=[None])
F("feature-filters-list", "empty", xs=[], words=[], nums=[], mixed=[], messages=[])
F("feature-filters-list", "floats", xs=[0.5, -0.0, 1e21], words=["\u00e9", "e", "E", "f", "\u00c9"], nums=[1.5, 2, -3, 2.0],
  mixed=[0.0, -0.0, 1e-300, "0", " "])
for tag, v in [("int", 7), ("neg-float", -2.5), ("str", "12.5"), ("none", None), ("big", 12345678901234567890),
               ("tiny", 1e-7)]:
    F("feature-filters-num", tag, v=v)
for tag, v in [("int", 1234567), ("float", 2.5), ("huge", 2999999999999999999999), ("neg-huge", -(10 ** 30))]:
    F("feature-big-ints", tag, v=v, huge=2999999999999999999999, wrap=2 ** 64 + 1)
VALUES = [None, True, False, 0, 1, -3, 2.5, 0.0, "", "abc", "ABC", [], [1, 2], {}, {"a": 1}, -0.0, 10 ** 30]
F("feature-tests", "values", values=VALUES)
F("feature-tests", "messages", values=M3[:2])
F("feature-tests", "strings", values=["lower", "UPPER", "Mixed", "123", "", " ", "\u00e9", "\u00c9"])
F("feature-repr", "basic", value={"n": [1, 2.0, None, True, "s"], "f": 0.1})
F("feature-repr", "empty", value={}, messages=[])
F("feature-repr", "unicode", value=["\u00e9", "\u4e2d", "\U0001F600", "a'b", 'a"b', "\\"], messages=[U("it's \"quoted\"")])
for tag, value in [("nested", {"name": "x", "list": [1, 2.5, None, True, False], "obj": {"k": "v", "empty": {}}}),
                   ("numbers", NUMBERS_ARGS), ("string", "just a string"), ("list", [None, "\u00e9", [[]]])]:
    F("feature-tojson", tag, value=value)
F("feature-tojson", "tool-messages", value=TOOLS2[:1], messages=CONVS["tool-call-dict"]["messages"][:4])
for which in ["print", "tests", "default", "ops", "attr-of-missing", "item-of-missing", "attr-of-missing-key",
              "attr-of-missing-index", "add-missing", "call-missing", "method-on-missing-key", "filter-on-missing",
              "compare-missing", "iterate-missing-attr", "tojson-missing"]:
    F("feature-undefined", which, which=which, d={"a": 1}, xs=[1])
F("feature-undefined", "missing-content", which="missing-content", messages=[U("hi"), {"role": "assistant"}])
F("feature-undefined", "missing-content-concat", which="missing-content-concat", messages=[U("hi"), {"role": "assistant"}])
NOSYS3 = CONVS["multi-turn-nosys"]["messages"]
F("feature-raise", "ok", messages=NOSYS3)
F("feature-raise", "system-first")
F("feature-raise", "bad-order", messages=[U("a"), U("b")])
F("feature-raise", "limit", messages=NOSYS3, limit=2)
F("feature-raise", "limit-ok", messages=NOSYS3, limit=10)
for which in ["safe", "list-append", "list-pop", "list-clear", "dict-pop", "dict-update", "dict-setdefault", "dunder-class", "dunder-mro",
              "private-attr", "func-globals", "format-dunder"]:
    F("feature-sandbox", which, which=which)
for name in ["unclosed-for", "mismatched-end", "unclosed-variable", "unknown-tag", "bad-expression", "stray-endif",
             "unknown-filter", "unknown-test", "unterminated-string", "empty-set",
             "macro-default-order", "unclosed-comment", "double-else"]:
    F("feature-syntax-" + name, "error", name="x")
F("feature-generation", "multi-turn")
F("feature-generation", "ends-assistant", messages=CONVS["ends-assistant"]["messages"])
F("feature-generation", "no-agp", messages=NOSYS3, agp=False)
F("feature-strftime", "fixed-clock")
F("feature-strftime", "iso-datetime", fmt="%Y-%m-%dT%H:%M:%S")
F("feature-strftime", "long-names", fmt="%A, %B %d %Y (%a %b), day %j, week %W, %I:%M %p")
F("feature-strftime", "literal-percent", fmt="100%% at %H%M")
F("feature-blocks", "basic", name="Ada")
F("feature-blocks", "empty-name", name="")
F("feature-blocks", "unicode-name", name="\u00e9l\u00e8ve \u00df \U0001F600")


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------
def load_template(name):
    with open(os.path.join(TEMPLATES, name + ".jinja"), encoding="utf-8", newline="") as f:
        source = f.read()
    meta_path = os.path.join(TEMPLATES, name + ".json")
    tokens = {}
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        for k in ("bos_token", "eos_token", "unk_token", "pad_token"):
            # transformers passes tokenizer.special_tokens_map, which leaves out unset (None) tokens
            if meta.get(k) is not None:
                tokens[k] = meta[k]
    return source, tokens


def render(tokenizer, source, messages, tools, documents, agp, extra):
    """tokenizer.apply_chat_template(..., tokenize=False), as vLLM's safe_apply_chat_template calls it.

    An empty conversation is refused by apply_chat_template before any template runs, so the feature cases
    without messages go through render_jinja_template, the transformers function it renders with, directly.
    """
    try:
        if messages:
            out = tokenizer.apply_chat_template(messages, tools=tools, documents=documents, chat_template=source,
                                                add_generation_prompt=agp, tokenize=False, **extra)
        else:
            rendered, _ = hf_chat.render_jinja_template(
                conversations=[messages], tools=tools, documents=documents, chat_template=source,
                add_generation_prompt=agp, **{**tokenizer.special_tokens_map, **extra})
            out = rendered[0]
        return out, None
    except Exception as exc:  # recorded as golden error
        return None, {"type": type(exc).__name__, "message": str(exc)}


JINJA_ERRORS = {"TemplateError", "UndefinedError", "SecurityError", "TemplateSyntaxError", "TemplateAssertionError",
                "TemplateRuntimeError"}
# Plain Python errors that are kept on purpose (the template really does this in Python).
PYTHON_ERRORS_KEPT = {
    ("feature-arithmetic", "zero-div"): "ZeroDivisionError from int / 0",
    ("feature-arithmetic", "zero-float-div"): "ZeroDivisionError from float / 0.0",
    ("feature-undefined", "tojson-missing"): "tojson of an undefined value cannot be serialised",
    ("hermes-2-pro-tool-use", "no-tools"): "the template iterates tools, which is None",
    ("functionary-v3.2", "tool-call-dict"): "the template concatenates str + dict arguments",
    # vLLM parses string arguments into dicts (_postprocess_messages), so these fail the same way
    ("functionary-v3.2", "tool-call-str"): "the template concatenates str + dict arguments",
    ("functionary-v3.2", "tool-call-numbers-str"): "the template concatenates str + dict arguments",
}


def build_cases():
    cases = []
    for tname, plan in PLANS.items():
        variants = plan.get("variants", [("", {})])
        vconvs = plan.get("variant_convs")
        for conv in plan["convs"]:
            if conv in plan.get("skip", {}):
                continue
            spec = CONVS[conv]
            for vtag, vextra in variants:
                if vtag and vconvs is not None and conv not in vconvs:
                    continue
                if conv in BOTH_AGP:
                    agps = [True, False]
                elif conv in NOAGP_ONLY:
                    agps = [False]
                else:
                    agps = [True]
                for agp in agps:
                    parts = [tname, conv] + ([vtag] if vtag else []) + ["agp" if agp else "noagp"]
                    cases.append(dict(id="/".join(parts), template=tname, messages=spec["messages"],
                                      tools=spec.get("tools"), documents=spec.get("documents"),
                                      add_generation_prompt=agp, extra=dict(vextra)))
        for ctag, spec, cextra in plan.get("custom", []):
            for agp in [True, False]:
                cases.append(dict(id="/".join([tname, ctag, "agp" if agp else "noagp"]), template=tname,
                                  messages=spec["messages"], tools=spec.get("tools"),
                                  documents=spec.get("documents"), add_generation_prompt=agp, extra=dict(cextra)))
    for tname, tag, extra, messages, agp in FEATURES:
        cases.append(dict(id="%s/%s" % (tname, tag), template=tname, messages=messages, tools=None, documents=None,
                          add_generation_prompt=agp, extra=extra))
    return cases


def roundtrip(value):
    # The template sees exactly what a reader of cases.jsonl sees (no tuples, no shared Python objects).
    return json.loads(json.dumps(value, ensure_ascii=False))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vllm-wheel", required=True, help="the pinned vllm-0.33.0-*.whl (build/python-env.sh wheel)")
    ap.add_argument("--out", default=OUT, help="where to write the corpus (default: cases.jsonl next to this file)")
    args = ap.parse_args()
    if (transformers.__version__, jinja2.__version__) != (TRANSFORMERS_VERSION, JINJA2_VERSION):
        sys.exit("need transformers %s and jinja2 %s (requirements.txt), have %s and %s"
                 % (TRANSFORMERS_VERSION, JINJA2_VERSION, transformers.__version__, jinja2.__version__))
    vllm = Vllm(args.vllm_wheel)
    cache = {}
    cases = build_cases()
    ids = set()
    problems = []
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for c in cases:
            assert c["id"] not in ids, c["id"]
            ids.add(c["id"])
            if c["template"] not in cache:
                source, tokens = load_template(c["template"])
                feature = c["template"].startswith("feature-")  # some do not even parse
                cache[c["template"]] = source, make_tokenizer(tokens), None if feature else vllm.content_format(source)
            source, tokenizer, content_format = cache[c["template"]]
            inputs = roundtrip({k: c[k] for k in ("messages", "tools", "documents", "extra")})
            if c["template"].startswith("feature-"):
                # The feature templates test Jinja itself, on the inputs as written.
                request, messages, tools = None, inputs["messages"], inputs["tools"]
            else:
                request = inputs["messages"]
                messages = roundtrip(vllm.conversation(roundtrip(request), content_format))
                tools = roundtrip(vllm_tools(inputs["tools"]))
            expected, error = render(tokenizer, source, messages, tools, inputs["documents"],
                                     c["add_generation_prompt"], inputs["extra"])
            if error and error["type"] not in JINJA_ERRORS and (c["template"], c["id"].split("/")[1]) not in PYTHON_ERRORS_KEPT:
                problems.append("%s: %s: %s" % (c["id"], error["type"], error["message"]))
                continue
            row = {"id": c["id"], "template": c["template"], "request_messages": request,
                   "content_format": None if request is None else content_format, "messages": messages,
                   "tools": tools, "documents": c["documents"], "add_generation_prompt": c["add_generation_prompt"],
                   "extra": c["extra"], "expected": expected, "error": error}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if problems:
        print("dropped %d cases with unexpected plain Python errors:" % len(problems), file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
    used = {c["template"] for c in cases}
    on_disk = {f[:-6] for f in os.listdir(TEMPLATES) if f.endswith(".jinja")}
    if on_disk - used:
        print("templates never used: %s" % sorted(on_disk - used), file=sys.stderr)
    print("wrote %d cases to %s" % (len(cases) - len(problems), args.out))
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
