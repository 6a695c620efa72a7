"""OpenVINO as the runtime for bulk embedding, when it is installed (``gitmem[openvino]``).

Why a second runtime: a large build is all model time, and on onnxruntime's CPU provider
that is float32 matrix products, which run at the core's float32 rate (~85 GFLOP/s per
core here, the same as numpy's OpenBLAS). Many x86 CPUs can multiply in bfloat16, at a
multiple of that rate (AMX on Xeon since Sapphire Rapids, AVX-512 BF16 on Zen 4 and Cooper
Lake), but onnxruntime's CPU provider has no bfloat16 kernels. OpenVINO runs the same ONNX
file with bfloat16 products and float32 accumulation. Measured on this project's 2-core
machines (AMX): `gitmem index --full` at 10,000 records took 41 and 43 s against 98 and
98 s on onnxruntime (alternating), and the vectors agree with onnxruntime's to cosine
>= 0.99997 (mean 0.99999). OpenVINO's own float32 runs no faster than onnxruntime, so on
a CPU without bfloat16 the default stays onnxruntime.

It is optional because it is large (~180 MB installed) and helps only builds of hundreds
of records or more; queries always run on onnxruntime (importing OpenVINO and compiling
the model costs ~0.7 s, more than a whole cold search should).

It fails open: a model OpenVINO cannot load or compile runs on onnxruntime (``load``
raises ``Unavailable``, the build warns when OpenVINO was asked for), and a job it fails
midway runs again on onnxruntime (``embed.Embedder.embed``), with a warning.

``GITMEM_EMBED_BACKEND`` chooses: ``auto`` (the default: OpenVINO for bulk jobs when it is
installed and the CPU multiplies in bfloat16), ``onnxruntime`` (never OpenVINO), or
``openvino`` (OpenVINO for bulk jobs even without bfloat16, in float32: for testing).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Feed = dict[str, npt.NDArray[np.int64]]

BACKEND_ENV = "GITMEM_EMBED_BACKEND"
CHOICES = ("auto", "onnxruntime", "openvino")


class Unavailable(RuntimeError):
    """OpenVINO was asked for but cannot run the model (the reason is the message)."""


def choice() -> str:
    """The configured backend; an unknown value is an error the caller reports."""
    value = os.environ.get(BACKEND_ENV, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise Unavailable(f"{BACKEND_ENV}={value!r} is not one of {', '.join(CHOICES)}")
    return value


@dataclass(frozen=True)
class Runner:
    """One compiled model that ``callers`` threads may run at once."""

    name: str  # "openvino bf16" | "openvino f32", reported by builds
    inputs: frozenset[str]
    run: Callable[[Feed], npt.NDArray[np.float32]]  # the last hidden state


@dataclass(frozen=True)
class _Plan:
    """What runs a bulk job here: OpenVINO's ``core`` in ``precision``, or, when ``core``
    is None, onnxruntime, for the reason ``why`` (for `gitmem doctor`)."""

    core: Any
    precision: str  # "bf16" | "f32"; "" with onnxruntime
    why: str


def _plan() -> _Plan:
    """The setting, what is installed and what the CPU can do, decided once for `load`
    and `describe`. Raises ``Unavailable`` when OpenVINO was asked for and cannot run (a
    misspelt setting, not installed, or broken)."""
    which = choice()
    if which == "onnxruntime":
        return _Plan(None, "", f"{BACKEND_ENV}=onnxruntime")
    try:
        ov = _import_quietly()
    except ImportError as exc:
        if which == "openvino":
            raise Unavailable(f"openvino is not installed ({exc})") from exc
        return _Plan(None, "", "`pip install gitmem[openvino]`: ~2x faster on CPUs with bfloat16")
    try:
        core = ov.Core()
        bf16 = "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception as exc:  # OpenVINO's errors are plain RuntimeErrors
        raise Unavailable(f"openvino fails: {exc}") from exc
    if not bf16 and which == "auto":
        return _Plan(None, "", "this CPU has no bfloat16, where openvino would be faster")
    return _Plan(core, "bf16" if bf16 else "f32", "")


def load(folder: Path, callers: int) -> Runner | None:
    """OpenVINO compiled for ``callers`` concurrent batches, or None when the job should
    run on onnxruntime (``auto`` without OpenVINO or bfloat16, or the setting says so).
    Raises ``Unavailable`` when OpenVINO was asked for or is installed, and fails."""
    plan = _plan()
    if plan.core is None:
        return None
    precision = plan.precision
    try:
        compiled = plan.core.compile_model(
            str(folder / "model.onnx"),
            "CPU",
            {
                "INFERENCE_PRECISION_HINT": precision,
                # no int8 activations: they are what moved onnxruntime's int8 vectors
                "DYNAMIC_QUANTIZATION_GROUP_SIZE": 0,
                # one stream of one thread per caller, as the onnxruntime bulk path runs
                "NUM_STREAMS": callers,
                "INFERENCE_NUM_THREADS": callers,
            },
        )
        inputs = frozenset(port.get_any_name() for port in compiled.inputs)
        _first_run(compiled, inputs)
    except Exception as exc:
        raise Unavailable(f"openvino cannot compile {folder / 'model.onnx'}: {exc}") from exc
    local = threading.local()

    def run(feed: Feed) -> npt.NDArray[np.float32]:
        request: Any = getattr(local, "request", None)
        if request is None:  # an infer request serves one thread at a time
            request = local.request = compiled.create_infer_request()
        hidden: npt.NDArray[np.float32] = request.infer(feed)[0]  # a copy (share_outputs)
        return hidden

    return Runner(f"openvino {precision}", inputs, run)


def _first_run(compiled: Any, inputs: frozenset[str]) -> None:
    """One run on this thread before any caller's. OpenVINO's Python binding initialises
    some of its state on first use under a C++ static guard, and the thread initialising
    it waits there for the GIL: when two threads make a process's first runs at once, the
    other one can hold the GIL while it waits for the guard, and both wait forever (3 of 25
    fresh processes hung, measured; none of 40 after one run on one thread; tested)."""
    import numpy as np

    ids = np.full((1, 2), 101, dtype=np.int64)
    values = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
    compiled.create_infer_request().infer({name: values[name] for name in inputs})


def describe() -> str:
    """What runs large builds here, and why, for `gitmem doctor`."""
    try:
        plan = _plan()
    except Unavailable as exc:
        return f"onnxruntime ({exc})"
    if plan.core is None:
        return f"onnxruntime ({plan.why})"
    if plan.precision == "f32":
        return "openvino f32 (this CPU has no bfloat16: no faster than onnxruntime)"
    return "openvino bf16"


def _import_quietly() -> Any:
    """``import openvino`` without its model converter, which it imports when it can: that
    import writes a client id and usage counts under ``~/intel`` and queues a usage event
    for Intel's telemetry. gitmem does not convert models, and it writes nothing to a
    user's home or network on its own account (`openvino` guards the import, so it loads
    without it; tested: no file appears in $HOME)."""
    converter = "openvino.tools.ovc"
    blocked = "openvino" not in sys.modules and converter not in sys.modules
    if blocked:
        sys.modules[converter] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import openvino
    finally:
        if blocked and sys.modules.get(converter, "") is None:
            del sys.modules[converter]
    return openvino
