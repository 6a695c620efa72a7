"""``gitmem mcp``: a stdio MCP server (the ``mcp`` package, v2 API) over the same core.

Tools: ``search_decisions(query, paths)``, ``why(path)``, ``get_decision(id)`` and
``propose_decision(title, rationale, globs)`` (writes a ``proposed`` record for review).
stdout is the protocol channel: nothing else may print there.

A failure the user can act on (no such decision, an empty title, a broken index) is the
tool's error (``ToolError``: the result says ``isError`` and the message); before session
51 it came back as a normal result holding ``{"error": ...}``, and a ``GitmemError`` from
search or why came back as the SDK's bare "Error executing tool", which says nothing.
"""

from __future__ import annotations

import json
import os

from gitmem import __version__, records, store
from gitmem import why as why_core
from gitmem.errors import GitmemError
from gitmem.repo import Repo
from gitmem.search import search


def build_server(repo: Repo) -> object:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(
        "gitmem",
        version=__version__,
        instructions=(
            "Architectural decisions recorded in this repository. Search before changing "
            "code whose design you are unsure of; `why` explains which decisions govern a path."
        ),
    )

    @server.tool(structured_output=False)
    def search_decisions(query: str, paths: list[str] | None = None) -> str:
        """Rank the project's decisions relevant to a question and the paths being touched."""
        try:
            result, _ = search(repo, query, list(paths or []), k=8, cwd=str(repo.root))
        except GitmemError as exc:
            raise ToolError(str(exc)) from None
        return json.dumps(result.to_json(), indent=1)

    @server.tool(structured_output=False)
    def why(path: str) -> str:
        """The decisions governing a repository path, most specific first, and the newest
        captured agent sessions that edited it, each with the line its first prompt began
        with and, where its records say, the prompt the edit answered (the intent behind
        the path's recent changes)."""
        try:
            reports = why_core.why(
                repo, [path], cwd=str(repo.root), provenance=False, sessions=True
            )
        except GitmemError as exc:
            raise ToolError(str(exc)) from None
        return json.dumps([r.to_json() for r in reports], indent=1)

    @server.tool(structured_output=False)
    def get_decision(id: str) -> str:
        """The full record of one decision (metadata, summary and text)."""
        try:
            d = store.load(repo.root).get(id)
        except GitmemError as exc:
            raise ToolError(str(exc)) from None
        return json.dumps(
            {
                "id": d.id,
                "title": d.title,
                "status": d.effective_status,
                "severity": d.severity,
                "globs": list(d.globs),
                "superseded_by": list(d.superseded_by),
                "file": d.file,
                "summary": d.summary,
                "body": d.body,
            },
            indent=1,
        )

    @server.tool(structured_output=False)
    def propose_decision(title: str, rationale: str, globs: list[str] | None = None) -> str:
        """Write a new decision record with status `proposed`, for a human to review."""
        title = records.one_line(title)  # the heading below too
        try:
            path = records.new(
                repo,
                title,
                status="proposed",
                globs=list(globs or []),
                body=f"# {title}\n\n## Context\n\nProposed by an agent through gitmem's MCP "
                f"server; review before accepting.\n\n## Decision\n\n{rationale.strip()}\n",
            )
        except GitmemError as exc:
            raise ToolError(str(exc)) from None
        return json.dumps({"file": path.relative_to(repo.root).as_posix(), "status": "proposed"})

    return server


def serve(repo: Repo) -> None:
    os.chdir(repo.root)
    server = build_server(repo)
    server.run()  # type: ignore[attr-defined]
