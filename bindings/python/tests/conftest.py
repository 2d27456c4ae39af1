"""Shared paths and helpers of the x12kit Python suite."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List, NoReturn

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VECTORS = Path(os.environ.get("X12KIT_VECTORS", REPO / "tests" / "vectors"))
EXAMPLES = REPO / "examples" / "python"


def corpus_dir() -> Path:
    """``$X12KIT_CORPUS`` or ``../shared/corpus`` relative to the repo root."""
    env = os.environ.get("X12KIT_CORPUS")
    return Path(env) if env else (REPO / ".." / "shared" / "corpus").resolve()


def skip_without_corpus(test: str) -> NoReturn:
    """Called by a corpus test when the corpus folder is absent: skips it with the reason
    (named in scripts/test.sh's summary through ``$X12KIT_SKIP_LOG``), or fails it when
    ``X12KIT_REQUIRE_CORPUS=1`` (CI)."""
    root = corpus_dir()
    assert not root.is_dir()
    if os.environ.get("X12KIT_REQUIRE_CORPUS") == "1":
        pytest.fail(f"the corpus is required (X12KIT_REQUIRE_CORPUS=1) but {root} does not exist")
    reason = f"the corpus was not found at {root} (set X12KIT_CORPUS)"
    log = os.environ.get("X12KIT_SKIP_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"python {test}: {reason}\n")
    pytest.skip(reason)


def corpus_files() -> List[Path]:
    root = corpus_dir()
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.name not in {"README.md", "MANIFEST.tsv", "SOURCES.tsv"}
    )


ISA = (
    "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       "
    "*230101*1200*U*00401*000000001*0*P*>~"
)
X850 = (
    ISA
    + "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~"
    "SE*3*0001~GE*1*1~IEA*1*000000001~"
).encode()


def make_850(n_sets: int, lines: int = 3) -> bytes:
    """A valid-envelope 850 interchange with `n_sets` sets of `lines` PO1 lines each."""
    out = [ISA, "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~"]
    for i in range(1, n_sets + 1):
        cn = f"{i:04d}"
        body = [f"BEG*00*SA*PO-{i}**20230101~"]
        for k in range(1, lines + 1):
            body.append(f"PO1*{k}*{k * 2}*EA*{k}.25**BP*ITEM-{k}~")
        body.append(f"CTT*{lines}~")
        out.append(f"ST*850*{cn}~")
        out.extend(body)
        out.append(f"SE*{len(body) + 2}*{cn}~")
    out.append(f"GE*{n_sets}*1~IEA*1*000000001~")
    return "\n".join(out).encode()


@pytest.fixture
def x850() -> bytes:
    return X850


def assert_same(a: Any, b: Any, path: str = "$") -> None:
    """Equal values of the same types (``1 == 1.0`` is not enough) and dict keys in the same order."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} {a!r:.80} vs {type(b).__name__} {b!r:.80}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} vs {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def assert_documents_as_in_to_dict(r: Any, d: Any) -> int:
    """Each set's ``transaction.document`` is its ``document`` in ``d`` (a ``to_dict()`` with
    documents), keys in the same order (``None`` where ``d`` has none). Returns how many
    documents were compared."""
    seen = 0
    assert len(r.interchanges) == len(d["interchanges"])
    for i, di in zip(r.interchanges, d["interchanges"]):
        assert len(i.groups) == len(di["groups"])
        for g, dg in zip(i.groups, di["groups"]):
            assert len(g.transactions) == len(dg["transactions"])
            for t, dt in zip(g.transactions, dg["transactions"]):
                want = dt.get("document")
                assert_same(t.document, want, f"$.{t.type}/{t.control_number}.document")
                seen += want is not None
    return seen
