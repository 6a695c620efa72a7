"""Search through the warm daemon when it runs, else in-process."""

from __future__ import annotations

from gitmem import compile as compiler
from gitmem import index
from gitmem.repo import Repo
from gitmem.retrieve import NO_EMBEDDINGS, NOT_INDEXED, Result, Retriever


def search(
    repo: Repo,
    query: str,
    paths: list[str],
    *,
    k: int = 10,
    cwd: str | None = None,
    daemon: bool = True,
) -> tuple[Result, str]:
    """Returns the result and what served it (``daemon`` or ``in-process``)."""
    if daemon:
        from gitmem import client

        served = client.retrieve(repo, query, paths, k=k, cwd=cwd)
        if served is not None:
            return served, "daemon"
    resolution = index.resolve_embedder(repo, allow_download=False, one_shot=True)
    retriever = Retriever.open(repo, embedder=resolution.embedder)
    if retriever.stale or retriever.generation is None:
        # records changed (or no index yet): refresh incrementally, then search
        retriever.close()
        try:
            built = index.build(
                repo, embedder=resolution.embedder, model_warning=resolution.warning
            )
        except Exception as exc:
            why = compiler.not_written(exc)
            if why is None:
                raise
            # no room for the index (the disk full): the hooks' ranking, from the records
            # (the table compiled into memory, see compile.build_or_in_memory); before session
            # 56, a traceback
            retriever = Retriever.open(repo, light=True)
            retriever.warnings.append(NOT_INDEXED.format(why))
        else:
            retriever = Retriever.open(repo, embedder=resolution.embedder)
            if built.model_failure:  # why, rather than "run `gitmem index`", just run
                retriever.warnings = [w for w in retriever.warnings if w != NO_EMBEDDINGS]
                retriever.warnings.append(built.model_failure)
    if resolution.warning:
        retriever.warnings.append(resolution.warning)
    try:
        return retriever.retrieve(query, paths, k=k, cwd=cwd), "in-process"
    finally:
        retriever.close()
