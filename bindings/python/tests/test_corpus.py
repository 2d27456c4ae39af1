"""Every corpus file (../shared/corpus or $X12KIT_CORPUS) through every read path."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

import x12kit
from conftest import assert_documents_as_in_to_dict, assert_same, corpus_dir, corpus_files, skip_without_corpus

FILES = corpus_files()


def test_the_corpus_is_there() -> None:
    if not corpus_dir().is_dir():
        skip_without_corpus("test_the_corpus_is_there")
    assert FILES, f"no corpus files under {corpus_dir()} (set X12KIT_CORPUS)"


# Without the corpus, one test stands for its files: skipped with the reason (or failed in CI).
@pytest.mark.parametrize(
    "path",
    FILES or [None],
    ids=[str(p.relative_to(corpus_dir())) for p in FILES] or ["no corpus"],
)
def test_corpus_file(path: Optional[Path]) -> None:
    if path is None:
        if corpus_dir().is_dir():
            pytest.fail(f"no corpus files under {corpus_dir()}")
        skip_without_corpus("test_corpus_file")
    data = path.read_bytes()
    r = x12kit.parse(path)
    j = x12kit.parse_json(data)
    assert r.to_json() == j
    d = r.to_dict()
    assert_same(d, json.loads(j))
    # Lazy views agree with the contract.
    assert len(r.interchanges) == len(d["interchanges"])
    for i, di in zip(r.interchanges, d["interchanges"]):
        assert i.header == di["header"]
        for g, dg in zip(i.groups, di["groups"]):
            for t, dt in zip(g.transactions, dg["transactions"]):
                assert t.type == dt["type"] and t.control_number == dt["controlNumber"]
                assert len(list(t.segments())) == len(dt["segments"])
    # Each set's `document` is the contract's, keys in the contract's order.
    assert_documents_as_in_to_dict(r, d)
    # The whole-input views equal the stream views, whatever the chunking.
    whole = [(s.index, s.raw) for s in r.segments()]
    assert [(s.index, s.raw) for s in x12kit.iter_segments(path, chunk_size=5)] == whole
    with path.open("rb") as f:
        assert [(s.index, s.raw) for s in x12kit.iter_segments(f, chunk_size=4096)] == whole
    v = x12kit.validate(data)
    assert v.to_json() == x12kit.validate_json(data)
    # Stream validation does not depend on the chunking or the source kind.
    streamed = x12kit.validate_stream(path).to_json()
    assert x12kit.validate_stream(path, chunk_size=3).to_json() == streamed
    with path.open("rb") as f:
        assert x12kit.validate_stream(f, chunk_size=1000).to_json() == streamed
    lossy = {"INVALID_UTF8"} & {dd["code"] for dd in d["diagnostics"]}
    if not r.has_errors and not lossy:
        # A clean parse writes back byte for byte (the core's own corpus rule).
        assert x12kit.write(r) == data
    x12kit.acknowledge(data, now=1_700_000_000)



def _run_without_corpus(tmp_path: Path, require: bool) -> "subprocess.CompletedProcess[str]":
    """The two corpus tests above, in a pytest of their own, with the corpus folder absent."""
    env = dict(os.environ)
    env.pop("X12KIT_REQUIRE_CORPUS", None)
    if require:
        env["X12KIT_REQUIRE_CORPUS"] = "1"
    env["X12KIT_CORPUS"] = str(tmp_path / "no-corpus-here")
    env["X12KIT_SKIP_LOG"] = str(tmp_path / "skips")
    here = Path(__file__).name
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
         f"{here}::test_the_corpus_is_there", f"{here}::test_corpus_file"],
        cwd=Path(__file__).parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_the_corpus_its_tests_are_skipped_and_named(tmp_path: Path) -> None:
    # What the root README promises: counted as skipped, named, with the reason.
    run = _run_without_corpus(tmp_path, require=False)
    assert run.returncode == 0, run.stdout + run.stderr
    last = run.stdout.strip().splitlines()[-1]
    assert re.match(r"^2 skipped in ", last), run.stdout
    reason = f"the corpus was not found at {tmp_path / 'no-corpus-here'} (set X12KIT_CORPUS)"
    assert re.search(r"^SKIPPED \[2\] .*: " + re.escape(reason) + "$", run.stdout, re.M), run.stdout
    assert (tmp_path / "skips").read_text().splitlines() == [
        f"python test_the_corpus_is_there: {reason}",
        f"python test_corpus_file: {reason}",
    ]


def test_without_the_corpus_ci_fails(tmp_path: Path) -> None:
    run = _run_without_corpus(tmp_path, require=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.count("the corpus is required (X12KIT_REQUIRE_CORPUS=1)") >= 2, run.stdout
    assert re.match(r"^2 failed in ", run.stdout.strip().splitlines()[-1]), run.stdout
    assert not (tmp_path / "skips").exists()
