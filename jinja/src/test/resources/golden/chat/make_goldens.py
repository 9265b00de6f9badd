#!/usr/bin/python3
"""Golden corpus of chat-template renderings, produced with real Python Jinja2.

Run from anywhere with Debian's interpreter (it has python3-jinja2 3.1.2):

    /usr/bin/python3 make_goldens.py

It reads templates/<name>.jinja (+ templates/<name>.json for the special tokens),
renders every case defined below in exactly the environment that
transformers.apply_chat_template uses, and writes cases.jsonl next to this file:
one JSON object per line, see README.md for the fields.

Deterministic: no randomness, and the only clock is FIXED_NOW (strftime_now).
"""
import datetime
import json
import os
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "templates")
OUT = os.path.join(HERE, "cases.jsonl")


# --------------------------------------------------------------------------------------
# The environment (identical to transformers' render_jinja_template)
# --------------------------------------------------------------------------------------
class GenerationExtension(Extension):
    """transformers' AssistantTracker: {% generation %}...{% endgeneration %} renders its body unchanged."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    def _generation_support(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


FIXED_NOW = datetime.datetime(2026, 11, 30, 9, 5, 7)  # the Java tests inject the same instant


def strftime_now(fmt):
    return FIXED_NOW.strftime(fmt)


def make_env():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationExtension, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


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
    "tools-cohere-legacy": dict(tools=[
        {"name": "internet_search", "description": "Returns a list of relevant document snippets for a textual query",
         "parameter_definitions": {"query": {"description": "Query to search the internet with", "type": "str",
                                             "required": True},
                                   "limit": {"description": "Max snippets", "type": "int", "required": False}}},
        {"name": "directly_answer", "description": "Answer without tools", "parameter_definitions": {}}],
        messages=[U("Who won the 2018 World Cup?")]),
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
    "content-parts": dict(messages=[
        S([{"type": "text", "text": "You describe images."}]),
        U([{"type": "text", "text": "What is in this picture?"}, {"type": "image", "url": "https://example.com/cat.png"}]),
        A([{"type": "text", "text": "A cat on a sofa."}]),
        U([{"type": "image"}, {"type": "text", "text": "And this one?"}, {"type": "text", "text": "Be brief."}])]),
    "content-parts-nosys": dict(messages=[
        U([{"type": "image"}, {"type": "text", "text": "Describe \U0001F5BC\uFE0F"}])]),
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
    "err-empty-messages": dict(messages=[]),
    "err-parallel-calls": dict(tools=TOOLS2, messages=[
        U("Weather in Paris and Oslo?"),
        A("", tool_calls=[CALL("call00011", "get_weather", {"city": "Paris"}),
                          CALL("call00012", "get_weather", {"city": "Oslo"})])]),
    "err-bad-tool-id": dict(tools=TOOLS2, messages=[
        U("Weather?"), A("", tool_calls=[CALL("call_1", "get_weather", {"city": "Paris"})]),
        TOOL("call_1", "get_weather", "sunny")]),
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
ERRS = ["err-user-user", "err-assistant-first", "err-system-middle", "err-missing-content", "err-bad-role",
        "err-empty-messages"]

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
    "qwen3": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + TOOLS_ALL + REASONING + ERRS,
                  variants=[("", {}), ("think-off", {"enable_thinking": False}), ("think-on", {"enable_thinking": True})],
                  variant_convs=BASIC_CORE + REASONING + ["tool-call-dict", "tool-result-last"]),
    "llama3": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40", "err-missing-content", "err-empty-messages",
                                                     "content-parts-nosys"]),
    "llama3_1": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40", "tool-call-dict", "err-missing-content",
                                                       "err-empty-messages"]),
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
    "llama3_2": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + ["err-parallel-calls", "err-empty-messages"],
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
    "command-r-plus-tool-use": dict(convs=["tools-weather-only", "tool-call-weather-only", "tools-cohere-legacy",
                                           "tools-declared", "tool-call-dict"]),
    "command-r7b-tool-use": dict(convs=BASIC_CORE + ["unicode", "tool-call-weather-only", "tool-call-dict", "tool-call-str",
                                                     "tool-call-numbers", "tool-parallel", "tool-result-last",
                                                     "documents-tools"]
                                       + ["err-missing-content"],
                                 variants=[("", {}), ("citations", {"enable_citations": True}),
                                           ("think-on", {"enable_thinking": True})],
                                 variant_convs=["documents-tools", "tool-call-dict"]),
    "qwen2.5": dict(convs=BASIC_CORE + BASIC_MORE + ["long-40"] + TOOLS_ALL + ERRS),
    "qwq": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + REASONING + ERRS),
    "qwen3-coder": dict(convs=BASIC_CORE + ["unicode", "whitespace"] + TOOLS_ALL + ERRS,
                        skip={"tool-multi-round": "string arguments: |items on a str raises a plain TypeError (kept once as tool-call-str)",
                              "tool-call-numbers-str": "same as tool-multi-round"}),
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
    "llama4": dict(convs=BASIC_CORE + ["unicode", "whitespace", "content-parts", "content-parts-nosys"] + TOOLS_ALL + ERRS),
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
for which in ["safe", "list-append", "list-pop", "dict-update", "dict-setdefault", "dunder-class", "dunder-mro",
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


def render(env, source, tokens, messages, tools, documents, agp, extra):
    try:
        template = env.from_string(source)
        out = template.render(messages=messages, tools=tools, documents=documents, add_generation_prompt=agp,
                              **tokens, **extra)
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
    ("qwen3-coder", "tool-call-str"): "the template applies |items to a string (Jinja's items filter raises TypeError)",
    ("functionary-v3.2", "tool-call-dict"): "the template concatenates str + dict arguments",
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


def main():
    env = make_env()
    cache = {}
    cases = build_cases()
    ids = set()
    problems = []
    with open(OUT, "w", encoding="utf-8", newline="\n") as out:
        for c in cases:
            assert c["id"] not in ids, c["id"]
            ids.add(c["id"])
            if c["template"] not in cache:
                cache[c["template"]] = load_template(c["template"])
            source, tokens = cache[c["template"]]
            # Render from the JSON round-trip of the inputs, so the template sees exactly what a reader of
            # cases.jsonl sees (no tuples, no shared Python objects).
            inputs = json.loads(json.dumps({k: c[k] for k in ("messages", "tools", "documents", "extra")},
                                           ensure_ascii=False))
            expected, error = render(env, source, tokens, inputs["messages"], inputs["tools"], inputs["documents"],
                                     c["add_generation_prompt"], inputs["extra"])
            if error and error["type"] not in JINJA_ERRORS and (c["template"], c["id"].split("/")[1]) not in PYTHON_ERRORS_KEPT:
                problems.append("%s: %s: %s" % (c["id"], error["type"], error["message"]))
                continue
            row = {"id": c["id"], "template": c["template"], "messages": c["messages"], "tools": c["tools"],
                   "documents": c["documents"], "add_generation_prompt": c["add_generation_prompt"],
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
    print("wrote %d cases to %s" % (len(cases) - len(problems), OUT))
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
