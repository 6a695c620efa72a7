"""Embedding model resolution and a thin wrapper over fastembed.

Resolution order (first that works wins):

1. a local folder: ``GITMEM_EMBED_MODEL_DIR``, else ``embed_model_dir`` in
   ``.continuity/config.yaml`` (relative to the repository root);
2. fastembed's own cache (``FASTEMBED_CACHE_PATH`` or its default, where that folder is
   this user's or root's: ``default_cache``), and only if that misses,
   a download, unless ``HF_HUB_OFFLINE`` is set or a download failed in the last 24 hours.
   The download runs in a child process with short network timeouts and a hard time limit,
   so an unreachable hub costs seconds once, not tens of seconds on every call;
3. nothing: retrieval falls back to keyword + path ranking, with one warning line.

A model folder runs on onnxruntime and tokenizers directly (``OrtModel``): the same
computation fastembed performs for this model (tokenize with truncation at
``model_max_length``, mean-pool the last hidden state over the attention mask, L2-normalise;
a test checks the vectors agree to 1e-6), without importing fastembed, which costs ~0.4 s
on its own. Processes that exit after one job (`gitmem search`, `gitmem index`) also skip
onnxruntime's graph optimisation: the session is ready in ~0.04-0.08 s instead of ~0.2 s.
The fully optimised graph embeds a single query ~3x faster (11-15 ms against 30-45 ms), so
the daemon, which answers one query at a time, uses it. For batches its fusions bring
nothing, but basic optimisation alone (the int8 weights dequantised once, at setup) makes
them 5-10% faster, so a one-shot process that has hundreds of texts to embed uses that
(measured, interleaved: see ``OrtModel._load``). Such a bulk job also runs whole batches
side by side, one per core, rather than splitting each batch across cores: 10,000-record
builds took 111-116 s instead of 133-134 s (two alternating runs each). And it runs texts in
order of token count, so that a batch, padded to its longest text, carries almost no padding
(ordering by characters left 18% of the tokens run as padding): 79-99 s instead of 98-116 s.
With the optional OpenVINO installed, such a bulk job runs on it instead where the CPU
multiplies in bfloat16 (``ovrun``: 10,000 records in 41-43 s instead of 98 s). The model in
fastembed's own cache runs the same way, found where fastembed puts it
(``cached_snapshot``); fastembed itself remains the path for downloads, and for a cache
laid out otherwise.

Never imported on an agent hook's hot path. A warm daemon (``gitmem watch``) keeps the
model loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem import ovrun

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy as np
    import numpy.typing as npt

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384
DOWNLOAD_TIMEOUT_S = 120
RETRY_AFTER_S = 24 * 3600
FOLD_WEIGHTS_FROM = 256  # texts in a one-shot process's first batch (see OrtModel._load)
BATCH = 32  # texts per model run; 16-32 measured fastest, 128 ~20% slower (cache)
MAX_CALLERS = 8  # batches run concurrently by a bulk job (see OrtModel._load)
# From this many texts in one call, a model set up for single queries (the daemon's) hands
# them to one set up for batches (`Embedder.for_bulk`), as `gitmem index` loads it.
BULK_FROM = 256
# A bulk job of this many texts may run on OpenVINO (see `ovrun`): it costs ~0.7 s to import
# and compile, which ~2.5x faster batches repay from a few hundred texts.
ACCELERATE_FROM = 256
EmbedProgress = Callable[[int, int], None]  # (texts embedded, texts to embed)


class ModelError(RuntimeError):
    """The model folder looked right but the model could not be loaded or run."""


def _why(exc: BaseException) -> str:
    """``exc`` as a reason a user can act on. onnxruntime built for NumPy 1 (1.18 and
    before) under NumPy 2 fails to import with an empty ImportError (NumPy prints its own
    story to stderr first): "cannot load the model in DIR:" said nothing (session 54).
    On one line (onnxruntime's own messages run over several), as warnings are shown."""
    said = " ".join(str(exc).split()) or type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if not str(exc).strip() and cause is not None:
        said += f" ({type(cause).__name__}: {' '.join(str(cause).split())})"
    if isinstance(exc, ImportError):
        from importlib.metadata import PackageNotFoundError, version

        try:
            ort, numpy = version("onnxruntime"), version("numpy")
            old = tuple(int(n) for n in ort.split(".")[:2]) < (1, 19)
            numpy2 = int(numpy.split(".")[0]) >= 2
        except (PackageNotFoundError, ValueError):
            return said
        if old and numpy2:
            said += (
                f": onnxruntime {ort} was built for NumPy 1 and cannot run under NumPy "
                f"{numpy}; `pip install -U onnxruntime`"
            )
    return said


@dataclass(frozen=True)
class ModelInfo:
    name: str
    source: str  # "dir" | "cache" | "download"
    location: str
    fingerprint: str  # vectors from models with different fingerprints are not mixed


class Embedder:
    def __init__(self, model: Any, info: ModelInfo) -> None:
        self._model = model
        self.info = info
        # what ran the model for the last `embed` ("onnxruntime", "openvino bf16", ...),
        # and why OpenVINO, asked for, did not (see `ovrun`): reported by builds
        self.runtime: str | None = None
        self.note: str | None = None

    def warm(self) -> None:
        """Load the model now rather than on the first query (the daemon)."""
        self.embed(["warm up"])

    def for_bulk(self) -> Embedder:
        """This model set up for many texts at once (``OrtModel``'s bulk configuration),
        for a large re-index by a process whose session is tuned for single queries: the
        daemon building a missing index, or after a branch switch. A session of its own,
        loaded on first use and freed with it; the same vectors and fingerprint."""
        model = self._model
        if isinstance(model, OrtModel) and not model.bulk:
            bulk = OrtModel(model.folder, optimize=False, bulk=True, verify=model.verify)
            return Embedder(bulk, self.info)
        return self

    def embed(
        self, texts: list[str], progress: EmbedProgress | None = None
    ) -> npt.NDArray[np.float32]:
        import numpy as np

        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return vectors
        source = self.for_bulk() if len(texts) >= BULK_FROM else self
        model = source._model
        try:
            source._fill(texts, vectors, progress)
        except Exception as exc:
            if not (isinstance(model, OrtModel) and model.runtime.startswith("openvino")):
                raise
            # fail open: the optional runtime failed midway, so the job runs again on
            # onnxruntime, and the build says why
            model.fall_back(f"openvino failed while embedding ({exc}); embedded with onnxruntime")
            source._fill(texts, vectors, progress)
        if isinstance(model, OrtModel):
            self.runtime, self.note = model.runtime, model.note
        else:
            self.runtime, self.note = "fastembed", None
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result: npt.NDArray[np.float32] = vectors / norms
        return result

    def _fill(
        self,
        texts: list[str],
        vectors: npt.NDArray[np.float32],
        progress: EmbedProgress | None,
    ) -> None:
        done = 0
        for rows, block in self._batches(texts):
            if len(block) != len(rows):
                raise ModelError(f"the model returned {len(block)} vectors for {len(rows)} texts")
            vectors[rows] = block
            done += len(rows)
            if progress is not None:
                progress(done, len(texts))
        if done != len(texts):
            raise ModelError(f"the model returned {done} vectors for {len(texts)} texts")

    def _batches(self, texts: list[str]) -> Iterator[tuple[list[int], npt.NDArray[np.float32]]]:
        """(rows, vectors) batch by batch. A batch is padded to its longest text, so texts
        are embedded in length order: by token count on gitmem's own runner, by characters
        on fastembed (whose batches tokenize inside it)."""
        if isinstance(self._model, OrtModel):
            yield from self._model.embed_batches(texts, BATCH)
            return
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows: list[int] = []
        block: list[Any] = []
        vectors = self._model.embed([texts[i] for i in order], batch_size=BATCH)
        for position, vector in enumerate(vectors):
            if position >= len(texts):
                raise ModelError(f"the model returned more vectors than {len(texts)} texts")
            rows.append(order[position])
            block.append(vector)
            if len(rows) == BATCH:
                yield rows, np.array(block, dtype=np.float32)
                rows, block = [], []
        if rows:
            yield rows, np.array(block, dtype=np.float32)


@dataclass(frozen=True)
class Resolution:
    embedder: Embedder | None
    warning: str | None


def _no_telemetry() -> None:
    """onnxruntime 1.29+ sends a telemetry event and writes a device id under
    ``~/.cache/Microsoft`` when it is imported. gitmem promises to work offline and to keep
    its files in the git directory, so it opts out unless the user chose otherwise (set
    ``ORT_DISABLE_TELEMETRY=0`` to keep onnxruntime's default)."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


def _quiet_fastembed() -> None:
    """fastembed logs ERROR lines (through loguru) when a model is not cached; gitmem says
    what happened in one warning line instead."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - loguru comes with fastembed
        return
    logger.disable("fastembed")


def _dir_fingerprint(folder: Path) -> str:
    onnx = folder / "model.onnx"
    return f"{MODEL_NAME}:dir:{onnx.stat().st_size}"


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


class OrtModel:
    """all-MiniLM-L6-v2 from a local folder, on onnxruntime + tokenizers (see module doc).
    ``embed`` has the shape of fastembed's ``TextEmbedding.embed``."""

    def __init__(
        self,
        folder: Path,
        *,
        optimize: bool = True,
        bulk: bool = False,
        verify: Callable[[], str | None] | None = None,
    ) -> None:
        # The session (0.05-0.35 s) and the tokenizer load on first use: `gitmem index`
        # runs after every commit from the git hooks and usually has nothing to embed.
        self.folder = folder
        self.bulk = bulk
        # why these files must not be loaded, asked before loading them (a folder a
        # repository's settings name: `modelkit.pinned_problem`)
        self.verify = verify
        self._optimize = optimize
        self._forward: Callable[[dict[str, Any]], Any] | None = None  # feed -> hidden
        self._inputs: frozenset[str] = frozenset()
        self._tokenizer: Any = None
        self._callers = 1
        self._pad_id = 0
        self._pad_left = False
        self.runtime = "onnxruntime"  # what runs the model, once loaded (see `ovrun`)
        self.note: str | None = None  # why OpenVINO, asked for, does not run it
        self._accelerate = True  # OpenVINO may run bulk jobs; off after it failed

    def fall_back(self, reason: str) -> None:
        """Run on onnxruntime from now on (OpenVINO failed: ``reason``), loading it on the
        next call."""
        self._forward, self._accelerate = None, False
        self.runtime, self.note = "onnxruntime", reason

    def _load(self, count: int) -> None:
        if self.verify is not None and (why := self.verify()) is not None:
            raise ModelError(
                f"not loaded: {why}; a folder .continuity/config.yaml names must hold "
                "the pinned model (name another in GITMEM_EMBED_MODEL_DIR)"
            )
        callers = min(_cpus(), MAX_CALLERS)
        runner = self._accelerated(count, callers) if self.bulk and self._accelerate else None
        if runner is not None:
            self._callers = callers  # ACCELERATE_FROM > 2 * BATCH
            self._forward, self._inputs, self.runtime = runner.run, runner.inputs, runner.name
            self._load_tokenizer()
            return
        _no_telemetry()
        import onnxruntime as ort

        folder = self.folder
        options = ort.SessionOptions()
        if not self._optimize:
            # Basic optimisation folds the int8 weights' dequantisation into constants once
            # (~0.14 s more to set up) instead of on every run: 5-10% faster batches
            # (measured, interleaved), so it pays from a few hundred texts on.
            options.graph_optimization_level = (
                ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
                if count >= FOLD_WEIGHTS_FROM
                else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            )
        if self.bulk and callers > 1 and count >= 2 * BATCH:
            # A bulk job runs whole batches side by side, one per core, each on a single
            # onnxruntime thread, instead of splitting every batch's matrix products
            # across cores: at ~55-token texts those products are small enough that
            # onnxruntime's per-operator hand-offs cost 7-25% (measured, interleaved, on
            # 2 cores). One session serves all callers (`run` is thread-safe), so the
            # weights are in memory once.
            options.intra_op_num_threads = 1
            self._callers = callers
        elif not self.bulk:
            # onnxruntime's worker threads spin for a while after each run. That is worth
            # ~30% on back-to-back index batches, but a query's numpy work right after its
            # embedding then competes with two spinning threads on a 2-core machine (a
            # 10,000-row similarity took 5-10 ms instead of ~1 ms, measured).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = frozenset(i.name for i in session.get_inputs())

        def forward(feed: dict[str, Any]) -> Any:
            return session.run(None, feed)[0]

        self._forward = forward
        self._load_tokenizer()

    def _accelerated(self, count: int, callers: int) -> ovrun.Runner | None:
        """OpenVINO for a bulk job when configured and able (see `ovrun`); on failure the
        job runs on onnxruntime and ``note`` says why."""
        if count < ACCELERATE_FROM:
            return None
        try:
            return ovrun.load(self.folder, callers)
        except ovrun.Unavailable as exc:
            self.note = f"{exc}; embedding with onnxruntime"
            return None

    def _load_tokenizer(self) -> None:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        _configure_tokenizer(tokenizer, self.folder)
        padding = tokenizer.padding or {}
        self._pad_id = int(padding.get("pad_id", 0))
        self._pad_left = padding.get("direction") == "left"
        tokenizer.no_padding()  # batches are padded in `_run`
        self._tokenizer = tokenizer

    def embed(self, texts: list[str], batch_size: int = BATCH) -> Iterator[npt.NDArray[np.float32]]:
        """fastembed's shape: one vector per text, in the texts' order."""
        for _rows, vectors in self.embed_batches(texts, batch_size, in_order=True):
            yield from vectors

    def embed_batches(
        self, texts: list[str], batch_size: int = BATCH, *, in_order: bool = False
    ) -> Iterator[tuple[list[int], npt.NDArray[np.float32]]]:
        """(rows of ``texts``, their vectors), batch by batch. Unless ``in_order``, batches
        are made of texts of equal token counts: a batch is padded to its longest text, and
        grouping by characters left 18% of the tokens run as padding on synthetic records
        (0.07% by tokens), which made whole builds ~20% slower (measured, interleaved)."""
        if not texts:
            return
        if self._forward is None:
            try:
                self._load(len(texts))
            except Exception as exc:
                raise ModelError(f"cannot load the model in {self.folder}: {_why(exc)}") from exc
        encodings = self._tokenizer.encode_batch(texts)
        order = list(range(len(texts)))
        if not in_order:
            order.sort(key=lambda i: len(encodings[i].ids))
        batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]

        def run(rows: list[int]) -> tuple[list[int], npt.NDArray[np.float32]]:
            return rows, self._run([encodings[i] for i in rows])

        if self._callers == 1 or len(batches) < 2:
            for rows in batches:
                yield run(rows)
            return
        from concurrent.futures import ThreadPoolExecutor

        # Batches are submitted in order and their results taken in order; the model run
        # and the pooling release the GIL for most of their time.
        pool = ThreadPoolExecutor(self._callers, thread_name_prefix="gitmem-embed")
        try:
            yield from pool.map(run, batches)
        finally:
            # an abandoned or failed job stops after the batches already running
            pool.shutdown(wait=True, cancel_futures=True)

    def _run(self, encodings: list[Any]) -> npt.NDArray[np.float32]:
        import numpy as np

        # padded here rather than by the tokenizer, which pads a whole call to its longest
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            cols = slice(width - len(e.ids), width) if self._pad_left else slice(0, len(e.ids))
            ids[row, cols] = e.ids
            mask[row, cols] = e.attention_mask
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        assert self._forward is not None  # loaded by `embed_batches`
        hidden = self._forward(feed)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: npt.NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return result


def _configure_tokenizer(tokenizer: Any, folder: Path) -> None:
    """Truncation and padding as fastembed (0.9) sets them up for the same files, so that
    a folder, or fastembed's own cache, gives fastembed's vectors (tested on both): the
    stricter of ``model_max_length`` and ``max_length``, sides from tokenizer_config.json
    before tokenizer.json's, the pad token's id from tokenizer.json, config.json, or the
    vocabulary."""
    settings = _json_file(folder / "tokenizer_config.json")
    limits = [
        v
        for v in (settings.get("model_max_length"), settings.get("max_length"))
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= sys.maxsize
    ]
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=min(limits) if limits else 512,  # 512: the model's position table
        direction=settings.get("truncation_side") or truncation.get("direction", "right"),
    )
    padding = tokenizer.padding or {}
    special = _json_file(folder / "special_tokens_map.json")
    pad = padding.get("pad_token") or settings.get("pad_token") or special.get("pad_token")
    pad_token = str((pad.get("content") if isinstance(pad, dict) else pad) or "[PAD]")
    pad_id = padding.get("pad_id", _json_file(folder / "config.json").get("pad_token_id"))
    if pad_id is None:
        pad_id = tokenizer.token_to_id(pad_token)
    tokenizer.enable_padding(
        direction=settings.get("padding_side") or padding.get("direction", "right"),
        pad_id=0 if pad_id is None else int(pad_id),
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
    )


def _json_file(path: Path) -> dict[str, Any]:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# what OrtModel reads from a folder (tokenizer_config.json and special_tokens_map.json are
# optional: their settings have defaults)
RUNNER_FILES = ("model.onnx", "tokenizer.json", "config.json")


def _from_dir(
    folder: Path,
    *,
    optimize: bool = True,
    bulk: bool = False,
    pinned: bool = False,
    stamp: Path | None = None,
) -> Embedder:
    """The model in ``folder``; ``pinned``: only the one `gitmem model assemble` makes
    (a folder a repository's settings name), its check remembered in ``stamp`` (see
    `modelkit.pinned_problem`)."""
    for name in RUNNER_FILES:
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder} has no {name}")
    verify: Callable[[], str | None] | None = None
    if pinned:
        from gitmem import modelkit

        if (why := modelkit.pinned_problem(folder, full=False)) is not None:
            raise ValueError(why)

        def verify() -> str | None:
            return modelkit.pinned_problem(folder, full=True, stamp=stamp)

    model = OrtModel(folder, optimize=optimize, bulk=bulk, verify=verify)
    return Embedder(model, ModelInfo(MODEL_NAME, "dir", str(folder), _dir_fingerprint(folder)))


# fastembed keeps this model in a Hugging Face hub cache, under the repository its
# registry names for it (fastembed 0.9: this one, with `model.onnx`). fastembed 0.7 and
# before spelled it `qdrant/...`, and the hub names cache folders as spelled: a cache such
# a release filled (kept in <temp>/fastembed_cache across upgrades) runs here too, and on
# gitmem's floor of fastembed, which loads only that spelling, the runner finds its own.
HUB_REPO = "Qdrant/all-MiniLM-L6-v2-onnx"
HUB_REPOS = (HUB_REPO, "qdrant/all-MiniLM-L6-v2-onnx")


def _cache_root(cache_dir: str | None) -> str:
    """fastembed's cache folder: the one given, else its default, <temp>/fastembed_cache."""
    if cache_dir is not None:
        return cache_dir
    import tempfile

    return os.path.join(tempfile.gettempdir(), "fastembed_cache")


def default_cache() -> str | None:
    """The cache folder used when ``FASTEMBED_CACHE_PATH`` is not set: fastembed's
    default, <temp>/fastembed_cache, where that is this user's or not there yet (or root's
    alone, with the model: one an administrator provides); else ``fastembed_cache`` in
    this user's own temporary folder (``location.temp_folder``). None stands for
    fastembed's default. On a machine other accounts share, the first user of fastembed
    makes that folder: the others could not download into it, and before session 58
    gitmem ran whatever model its owner had put there (their files chose the vectors every
    search ranks by)."""
    import stat

    getuid = getattr(os, "getuid", None)
    if getuid is None:  # Windows: a temporary folder of the user's own already
        return None
    shared = _cache_root(None)
    try:
        st = os.lstat(shared)
    except FileNotFoundError:
        return None
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        if st.st_uid == getuid():
            return None
        if st.st_uid == 0 and not st.st_mode & 0o022 and _may_hold_model(shared):
            return None
    from gitmem.location import temp_folder

    own = temp_folder()
    return None if own is None else os.path.join(own, "fastembed_cache")


def cached_snapshot(cache_dir: str | None) -> Path | None:
    """The folder fastembed would load this model from (its cache, as it lays it out), if
    the files are there; found without importing fastembed."""
    for spelled in HUB_REPOS:
        repo = Path(_cache_root(cache_dir)) / ("models--" + spelled.replace("/", "--"))
        try:
            commit = (repo / "refs" / "main").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        folder = repo / "snapshots" / commit
        if commit and all((folder / n).is_file() for n in RUNNER_FILES):
            return folder
    return None


def _may_hold_model(cache_dir: str | None) -> bool:
    """Whether fastembed's cache folder holds an entry named for this model, in whatever
    layout a fastembed release gave it (`models--Qdrant--all-MiniLM-L6-v2-onnx`, the older
    `fast-all-MiniLM-L6-v2`): only then is fastembed asked to load it."""
    try:
        names = os.listdir(_cache_root(cache_dir))
    except OSError:
        return False
    return any("minilm-l6" in name.lower() for name in names)


def _from_cache(cache_dir: str | None, *, optimize: bool = True, bulk: bool = False) -> Embedder:
    """fastembed's cached model. When its files are where fastembed puts them, they run on
    ``OrtModel`` like a model folder: the same computation (a test checks the vectors
    against fastembed's on such a cache) without importing fastembed (~0.4 s for every
    cold search), and with the bulk configuration for `gitmem index`. The fingerprint is
    the cache's either way, so an index built by one loader serves the other."""
    info = ModelInfo(MODEL_NAME, "cache", cache_dir or "", f"{MODEL_NAME}:hub")
    folder = cached_snapshot(cache_dir)
    if folder is not None:
        return Embedder(OrtModel(folder, optimize=optimize, bulk=bulk), info)
    if not _may_hold_model(cache_dir):
        # nothing there by this model's name in any layout: importing fastembed to be told
        # so cost every cold `gitmem search` and background refresh ~0.4 s (measured)
        raise FileNotFoundError(f"no {MODEL_NAME} in fastembed's cache")
    _no_telemetry()
    from fastembed import TextEmbedding

    _quiet_fastembed()
    model = TextEmbedding(MODEL_NAME, cache_dir=cache_dir, local_files_only=True)
    return Embedder(model, info)


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def try_download(cache_dir: str | None, marker: Path | None) -> str | None:
    """Fetch the model into fastembed's cache in a child process; None on success."""
    if _offline():
        return "HF_HUB_OFFLINE is set"
    if marker is not None and marker.exists():
        age = time.time() - marker.stat().st_mtime
        if age < RETRY_AFTER_S:
            return f"a download failed {int(age // 60)} min ago; not retrying for 24 h"
    # One attempt: fastembed's own download retries three times with 3 + 9 + 27 s sleeps,
    # 40 s of waiting when the hub is unreachable. Its public constructor has no knob for
    # that, so the child calls the downloader directly, and falls back to the constructor
    # if a fastembed release moves those names.
    code = (
        "import sys\n"
        "from fastembed import TextEmbedding\n"
        "cache = sys.argv[1] or None\n"
        "try:\n"
        "    from fastembed.common.utils import define_cache_dir\n"
        "    for M in TextEmbedding.EMBEDDINGS_REGISTRY:\n"
        "        try:\n"
        f"            d = M._get_model_description({MODEL_NAME!r})\n"
        "        except ValueError:\n"
        "            continue\n"
        "        M.download_model(d, str(define_cache_dir(cache)), retries=1)\n"
        "        break\n"
        "    else:\n"
        "        raise AttributeError('no fastembed class lists the model')\n"
        "except (ImportError, AttributeError):\n"
        f"    TextEmbedding({MODEL_NAME!r}, cache_dir=cache)\n"
    )
    _no_telemetry()
    env = {**os.environ, "HF_HUB_ETAG_TIMEOUT": "5", "HF_HUB_DOWNLOAD_TIMEOUT": "10"}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, cache_dir or ""],
            capture_output=True,
            text=True,
            timeout=DOWNLOAD_TIMEOUT_S,
            env=env,
        )
        failed = proc.returncode != 0
        reason = (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
    except subprocess.TimeoutExpired:
        failed, reason = True, f"timed out after {DOWNLOAD_TIMEOUT_S} s"
    if failed:
        if marker is not None:
            try:  # best effort: before session 56 a full disk ended `gitmem index` here
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text(reason + "\n", encoding="utf-8")
            except OSError:
                pass
        return f"download failed: {reason}"
    return None


def resolve(
    root: Path | None = None,
    configured_dir: str | None = None,
    *,
    allow_download: bool = False,
    marker: Path | None = None,
    one_shot: bool = False,
    bulk: bool = False,
    stamp: Path | None = None,
) -> Resolution:
    """Find and load the embedding model, or explain in one line why not. ``one_shot``: a
    process that exits after one job, a search or an index refresh, rather than serving
    queries (skip graph optimisation, see module doc). ``stamp``: where the check of a
    model folder the repository's settings name is remembered (`modelkit.pinned_problem`).
    ``bulk``: tuned for embedding many texts back to back (``gitmem index``) rather than
    for answering queries (see ``OrtModel``)."""
    own = os.environ.get("GITMEM_EMBED_MODEL_DIR")
    explicit = own or configured_dir
    problems: list[str] = []
    if explicit:
        folder = Path(explicit).expanduser()
        if not folder.is_absolute() and root is not None:
            folder = root / folder
        # The user's own setting runs any model; one a repository's settings name only the
        # pinned one (a clone chooses it: see `modelkit.pinned_problem`).
        pinned = not own
        try:
            embedder = _from_dir(
                folder, optimize=not one_shot, bulk=bulk, pinned=pinned, stamp=stamp
            )
            return Resolution(embedder, None)
        except Exception as exc:  # a broken folder must not break retrieval
            named = "" if own else ", named by .continuity/config.yaml"
            problems.append(f"model folder {folder}{named}: {exc}")
    cache_dir = os.environ.get("FASTEMBED_CACHE_PATH") or default_cache()
    try:
        return Resolution(_from_cache(cache_dir, optimize=not one_shot, bulk=bulk), None)
    except Exception:
        problems.append("not in fastembed's cache")
    if allow_download:
        why = try_download(cache_dir, marker)
        if why is None:
            try:
                return Resolution(_from_cache(cache_dir, optimize=not one_shot, bulk=bulk), None)
            except Exception as exc:
                why = str(exc)
        problems.append(why)
    warning = (
        "embedding model unavailable (" + "; ".join(problems) + "); using keyword + path "
        "retrieval. Fix: `gitmem model assemble DIR` and set GITMEM_EMBED_MODEL_DIR=DIR."
    )
    return Resolution(None, warning)
