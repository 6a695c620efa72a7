"""A scripted model server on localhost, so that the real agent CLIs can run offline.

It speaks the three wire formats the agents use: Anthropic's Messages API (Claude Code,
and Copilot CLI with an Anthropic-type provider), OpenAI's Responses API (Codex) and
Google's Gemini API (Gemini CLI); streamed (server-sent events) or not. Each request that
offers tools takes the next step of the script, a tool call; when the script is done, or
for a request without tools (titles, routing, summaries), it answers with text. A
subagent's conversation (one whose first message holds a marker of ``threads``) takes its
steps from its own script. Every
request body is kept, so that a test can read exactly what the agent sent its model:
what gitmem's hooks added to the conversation, and what the agent told the model after a
hook denied a call.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Step:
    """A tool call the model makes: the agent's own tool name and arguments. ``custom``:
    a Responses API free-form tool (Codex's apply_patch), whose input is a string."""

    name: str
    arguments: dict[str, Any] | str
    custom: bool = False


@dataclass(frozen=True)
class Request:
    path: str
    body: dict[str, Any]

    @property
    def offers_tools(self) -> bool:
        return bool(self.body.get("tools"))

    def text(self) -> str:
        """Every string in the request, joined: the conversation as the model sees it."""
        out: list[str] = []

        def walk(value: object) -> None:
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, dict):
                for key, item in value.items():
                    if key not in ("tools", "input_schema", "parameters"):
                        walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk({k: v for k, v in self.body.items() if k != "tools"})
        return "\n".join(out)

    def opening(self) -> str:
        """The conversation's first message (Anthropic's or Gemini's format): a subagent's
        task."""
        messages = self.body.get("messages") or self.body.get("contents") or [{}]
        return Request(self.path, {"m": messages[0]}).text()


class FakeModel:
    """``with FakeModel(steps) as model:`` serves on ``model.url`` until the block ends."""

    def __init__(
        self,
        steps: list[Step],
        threads: dict[str, list[Step]] | None = None,
        think_s: float = 0.0,
    ) -> None:
        self.steps = list(steps)
        self.think_s = think_s  # how long the model takes to answer with a step, as real ones do
        self.threads = {marker: list(script) for marker, script in (threads or {}).items()}
        self.requests: list[Request] = []
        self.run = secrets.token_hex(4)  # this model's part of its tool calls' ids
        self._lock = threading.Lock()
        self._taken = 0
        handler = type("Handler", (_Handler,), {"model": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, path: str, body: dict[str, Any]) -> Step | None:
        """Keep the request; the step it takes, if it offers tools and steps are left
        (after ``think_s`` seconds)."""
        step = self._record(path, body)
        if step is not None and self.think_s:
            time.sleep(self.think_s)
        return step

    def _record(self, path: str, body: dict[str, Any]) -> Step | None:
        request = Request(path, body)
        with self._lock:
            self.requests.append(request)
            if not request.offers_tools:
                return None
            thread = next((m for m in self.threads if m in request.opening()), None)
            if thread is not None:
                script = self.threads[thread]
                return script.pop(0) if script else None
            if self._taken < len(self.steps):
                self._taken += 1
                return self.steps[self._taken - 1]
        return None

    @property
    def conversation(self) -> list[Request]:
        """The requests that offered tools: the agent's main conversation, in order."""
        return [r for r in self.requests if r.offers_tools and not self.thread_of(r)]

    def thread(self, marker: str) -> list[Request]:
        """The requests of the subagent whose task holds ``marker``, in order."""
        return [r for r in self.requests if r.offers_tools and self.thread_of(r) == marker]

    def thread_of(self, request: Request) -> str | None:
        return next((m for m in self.threads if m in request.opening()), None)

    @property
    def steps_taken(self) -> int:
        return self._taken


class _Handler(BaseHTTPRequestHandler):
    model: FakeModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # model lists, health checks
        self._json({"object": "list", "data": [], "models": []})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if "count_tokens" in self.path or ":countTokens" in self.path:
            self._json({"input_tokens": 10, "totalTokens": 10})
            return
        step = self.model.record(self.path, body)
        if self.path.startswith("/v1beta/") or ":generateContent" in self.path:
            self._gemini(body, step)
        elif self.path.rstrip("/").endswith("/responses"):
            self._responses(step)
        else:
            self._messages(body, step)

    # -- Anthropic Messages ------------------------------------------------------------
    def _messages(self, body: dict[str, Any], step: Step | None) -> None:
        if step is not None:
            block: dict[str, Any] = {
                "type": "tool_use",
                # unique across runs, as a real model's are: Claude Code resuming a session
                # puts a hook's context after every result of the call id it names
                "id": f"toolu_{self.model.run}{len(self.model.requests):04d}",
                "name": step.name,
                "input": step.arguments,
            }
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": "Done."}, "end_turn"
        message = {
            "id": f"msg_{self.model.run}{len(self.model.requests)}",  # unique, as above
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        if not body.get("stream"):
            self._json(message)
            return
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}
        ]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
            {"type": "message_stop"},
        ]
        self._sse([(e["type"], e) for e in events])

    # -- OpenAI Responses ----------------------------------------------------------------
    def _responses(self, step: Step | None) -> None:
        n = len(self.model.requests)
        item: dict[str, Any]
        if step is None:
            item = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{self.model.run}{len(self.model.requests)}",  # unique, as above
                "status": "completed",
                "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
            }
        elif step.custom:
            item = {"type": "custom_tool_call", "name": step.name, "input": step.arguments}
        else:
            item = {"type": "function_call", "name": step.name,
                    "arguments": json.dumps(step.arguments)}  # fmt: skip
        if step is not None:
            item.update(id=f"fc_{n}", call_id=f"call_{n}", status="completed")
        usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
                 "output_tokens_details": None, "total_tokens": 15}  # fmt: skip
        # the response as a whole too, and numbered events: Copilot CLI (OpenAI's SDK)
        # takes its output from `response.completed` and returned nothing without it
        response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "fake"}
        events = [
            {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {**response, "status": "completed",
                                                        "output": [item], "usage": usage}},
        ]  # fmt: skip
        self._sse([(e["type"], {**e, "sequence_number": i}) for i, e in enumerate(events)])

    # -- Gemini --------------------------------------------------------------------------
    def _gemini(self, body: dict[str, Any], step: Step | None) -> None:
        config = body.get("generationConfig") or {}
        if step is not None:
            parts: list[dict[str, Any]] = [
                {"functionCall": {"name": step.name, "args": step.arguments}}
            ]
        elif config.get("responseMimeType") == "application/json":  # Gemini CLI's router
            answer = {"complexity_reasoning": "simple", "complexity_score": 10}
            parts = [{"text": json.dumps(answer)}]
        else:
            parts = [{"text": "Done."}]
        response = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 15},
        }
        if "alt=sse" in self.path:
            self._sse([(None, response)])
        else:
            self._json(response)

    # -- transport -----------------------------------------------------------------------
    def _json(self, data: object) -> None:
        payload = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _sse(self, events: list[tuple[str | None, object]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


# -- pointing each agent CLI at a FakeModel ---------------------------------------------
# How each agent runs offline against ``url``: its settings under ``home`` (its HOME) and
# its environment, and the command line for one prompt, non-interactive. Shared by
# tests/test_live_agents.py and benchmarks/live_agents.py. Nothing of gitmem's here.

Command = Callable[[str], list[str]]


def offline(
    agent: str,
    exe: str,
    home: Path,
    project: Path,
    url: str,
    env: dict[str, str],
    *,
    claude_tools: str = "Read Edit Bash",
) -> tuple[Command, dict[str, str]]:
    """(prompt -> argv, environment) for ``agent`` (claude, codex, gemini, copilot, qwen,
    opencode, kilo, pi, cline, droid) in ``project``. Settings files are written once and kept (Codex keeps the
    hooks' trust in its config.toml); what changes with ``url`` is passed each time."""
    env = {**env, "HOME": str(home), "PWD": str(project)}  # OpenCode takes its folder from PWD
    if agent == "claude":
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="test", DISABLE_AUTOUPDATER="1",
                   DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")  # fmt: skip
        return lambda prompt: [exe, "-p", prompt, "--allowedTools", claude_tools], env
    if agent == "codex":  # the project trusted in Codex's config, as a user does once
        config = home / ".codex" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        text = config.read_text() if config.exists() else (
            'model = "gpt-5.5"\nmodel_provider = "fake"\n[model_providers.fake]\n'
            'name = "fake"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n'
        )  # fmt: skip
        trusted = f"[projects.{json.dumps(str(project))}]"
        if trusted not in text:
            config.write_text(text + f'{trusted}\ntrust_level = "trusted"\n')
        env.update(CODEX_HOME=str(config.parent))
        base = f'model_providers.fake.base_url="{url}/v1"'
        return lambda prompt: [exe, "exec", "-c", base,
                               "--dangerously-bypass-approvals-and-sandbox", prompt], env  # fmt: skip
    if agent == "gemini":
        settings = home / ".gemini"
        settings.mkdir(parents=True, exist_ok=True)
        auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        (settings / "settings.json").write_text(json.dumps(auth))
        folders = settings / "trustedFolders.json"
        trusted = json.loads(folders.read_text()) if folders.exists() else {}
        folders.write_text(json.dumps({**trusted, str(project): "TRUST_FOLDER"}))
        env.update(GEMINI_API_KEY="test", GOOGLE_GEMINI_BASE_URL=url)
        return lambda prompt: [exe, "-p", prompt, "--yolo"], env
    if agent == "copilot":
        env.update(COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=url,
                   COPILOT_PROVIDER_TYPE="anthropic", COPILOT_PROVIDER_API_KEY="test",
                   COPILOT_MODEL="claude-sonnet-4.5", COPILOT_ALLOW_ALL="true",
                   COPILOT_AUTO_UPDATE="false")  # fmt: skip
        return lambda prompt: [exe, "-p", prompt], env
    if agent == "qwen":  # its own memory agent, which reruns each session, off
        settings = home / ".qwen"
        settings.mkdir(parents=True, exist_ok=True)
        memory = {"enableManagedAutoMemory": False, "enableManagedAutoDream": False}
        (settings / "settings.json").write_text(json.dumps({"memory": memory}))
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="test",
                   QWEN_CODE_SUPPRESS_YOLO_WARNING="1")  # fmt: skip
        args = ["--auth-type", "anthropic", "--model", "claude-sonnet-4-5", "--yolo"]
        return lambda prompt: [exe, *args, prompt], env
    if agent in ("opencode", "kilo"):  # a config file outside the project
        config = home / f"{agent}.json"
        provider = {"anthropic": {"options": {"baseURL": f"{url}/v1", "apiKey": "test"}}}
        config.write_text(json.dumps({"model": "anthropic/claude-sonnet-4-5", "provider": provider,
                                      "autoupdate": False, "share": "disabled"}))  # fmt: skip
        env.update(OPENCODE_CONFIG=str(config), OPENCODE_DISABLE_AUTOUPDATE="1")
        env.update(KILO_CONFIG=str(config), KILO_DISABLE_AUTOUPDATE="1")  # its fork's names
        return lambda prompt: [exe, "run", prompt], env
    if agent == "cline":  # the Responses API: Cline takes a base URL for OpenAI's only
        settings = home / ".cline" / "data" / "settings"
        settings.mkdir(parents=True, exist_ok=True)
        provider = {"provider": "openai-native", "apiKey": "test", "model": "gpt-5",
                    "baseUrl": f"{url}/v1"}  # fmt: skip
        entry = {"settings": provider, "updatedAt": "2026-11-24T00:00:00.000Z",
                 "tokenSource": "manual"}  # fmt: skip
        (settings / "providers.json").write_text(json.dumps({
            "version": 1, "lastUsedProvider": "openai-native", "modes": {},
            "providers": {"openai-native": entry}}))  # fmt: skip
        return lambda prompt: [exe, "--yolo", prompt], env
    if agent == "droid":  # a custom model (Droid's BYOK), which needs no Factory account
        settings = home / ".factory"
        settings.mkdir(parents=True, exist_ok=True)
        model = {"model": "claude-sonnet-4-5", "displayName": "Fake", "baseUrl": url,
                 "apiKey": "test", "provider": "anthropic", "maxOutputTokens": 4096}  # fmt: skip
        (settings / "settings.json").write_text(json.dumps({"customModels": [model]}))
        args = ["exec", "-m", "custom:claude-sonnet-4-5", "--skip-permissions-unsafe"]
        return lambda prompt: [exe, *args, prompt], env
    if agent == "pi":  # a provider of its own in models.json; Node.js 24 (pi needs 22.19+)
        folder = home / ".pi" / "agent"
        folder.mkdir(parents=True, exist_ok=True)
        env.pop("PI_CODING_AGENT_DIR", None)
        node = Path(exe).parent.parent / "node24" / "bin"  # tests/agents/package.json
        if node.is_dir():
            env["PATH"] = f"{node}{os.pathsep}{env.get('PATH', '')}"
        env.update(PI_OFFLINE="1", PI_TELEMETRY="0")
        fake = {"baseUrl": url, "api": "anthropic-messages", "apiKey": "test",
                "models": [{"id": "claude-sonnet-4-5"}]}  # fmt: skip
        (folder / "models.json").write_text(json.dumps({"providers": {"fake": fake}}))
        trust = folder / "trust.json"  # the project trusted, as a user does once (/trust)
        decisions = json.loads(trust.read_text()) if trust.exists() else {}
        trust.write_text(json.dumps({**decisions, os.path.realpath(project): True}))
        args = ["--provider", "fake", "--model", "claude-sonnet-4-5"]
        return lambda prompt: [exe, "-p", prompt, *args], env
    raise ValueError(f"no offline setup for {agent!r}")
