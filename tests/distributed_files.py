"""Checks of counting and encoding files on a cluster, shared by the local
engines (test_spark, test_ray) and the real clusters (test_cluster): each
takes an `Engine`, the module's calls with the engine bound."""

from __future__ import annotations

import gzip
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import wpiece
import wpiece._file_parts

from conftest import EN_FIXTURE, hf_bert, wp_bert

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()


class Engine:
    """``wpiece.spark`` (with its session) or ``wpiece.ray``, called alike."""

    def __init__(self, module: Any, session: Any = None) -> None:
        self.module, self.session = module, session

    def _call(self, name: str, *args: Any, **kw: Any) -> Any:
        fn = getattr(self.module, name)
        if self.session is not None:
            return fn(self.session, *args, **kw)
        return fn(*args, **kw)

    def count_files(self, files: Any, **kw: Any) -> wpiece.WordCounts:
        return self._call("count_files", files, **kw)

    def encode_files_to_parquet(self, files: Any, tok: Any, path: Any, **kw: Any) -> int:
        return self._call("encode_files_to_parquet", files, tok, path, **kw)


def corpus_files(folder: Path) -> list[Path]:
    """Three files: lines with CRLF ends, accents, CJK and blank lines (a
    part may be cut inside any of them), a .gz one, and one without a last
    newline."""
    folder.mkdir(parents=True, exist_ok=True)
    a = folder / "a.txt"
    lines = LINES[:1200] + ["naïve café 日本語の文", "", "  ", "##ing ##"]
    a.write_bytes(
        "".join(t + ("\r\n" if i % 5 == 0 else "\n") for i, t in enumerate(lines)).encode()
    )
    b = folder / "b.txt.gz"
    b.write_bytes(gzip.compress("\n".join(LINES[1200:2000]).encode() + b"\n"))
    c = folder / "c.txt"
    c.write_text("\n".join(LINES[2000:3500]), encoding="utf-8")
    return [a, b, c]


def documents(files: list[Path]) -> list[str]:
    """The documents of the files, read here in plain Python: lines, a
    "\\r" before a newline dropped, no document after a last newline."""
    docs: list[str] = []
    for f in files:
        data = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        lines = data.decode("utf-8").split("\n")
        docs.extend(t[:-1] if t.endswith("\r") else t for t in lines[:-1])
        docs.extend([lines[-1]] if lines[-1] else [])
    return docs


def check_counts_equal_one_process(engine: Engine, files: list[Path]) -> None:
    local = wpiece.count_words(files)
    # Small parts, cut inside lines, and a merge tree of four levels (each
    # task costs Spark about 0.15 s here: the parts are cut everywhere in
    # test_file_parts.py, outside any engine).
    assert len(wpiece._file_parts.plan_parts(files, 2, 30_000)) == 12
    for part_bytes, fanout in [(30_000, 2), (None, 8)]:
        counts = engine.count_files(files, part_bytes=part_bytes, fanout=fanout)
        assert counts == local  # words, counts and first-appearance order
    tok = wp_bert()
    through = engine.count_files([str(f) for f in files], tokenizer=tok)
    assert through == wpiece.count_words(files, tokenizer=tok)


def check_jsonl_counts(engine: Engine, folder: Path) -> None:
    import json

    path = folder / "d.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(LINES[:800]))
    )
    counts = engine.count_files(path, jsonl_field="text", part_bytes=3000)
    assert counts == wpiece.count_words(LINES[:800])
    out = folder / "jsonl-ids"
    assert (
        engine.encode_files_to_parquet(path, wp_bert(), out, jsonl_field="text", part_bytes=20_000)
        == 800
    )
    ids = [r for t in read_parts(out) for r in t.column("input_ids").to_pylist()]
    assert ids == [e.ids for e in hf_bert().encode_batch(LINES[:800])]


def read_parts(out: Path) -> list[Any]:
    names = sorted(os.listdir(out))
    parts = [n for n in names if n.startswith("part-")]
    assert names == ["_SUCCESS", *parts], names  # nothing else left in it
    assert parts == [f"part-{k:05d}.parquet" for k in range(len(parts))]
    return [pq.read_table(out / n) for n in parts]


def codecs(out: Path) -> set[str]:
    """The codecs of every column chunk of every part in ``out``."""
    found = set()
    for name in os.listdir(out):
        if name.startswith("part-"):
            meta = pq.ParquetFile(out / name).metadata
            for g in range(meta.num_row_groups):
                row_group = meta.row_group(g)
                found |= {row_group.column(c).compression for c in range(row_group.num_columns)}
    return found


def no_staging_left(folder: Path) -> None:
    left = [n for n in os.listdir(folder) if n.startswith(".") and "wpiece" in n]
    assert left == []


def check_parquet_equals_one_process(engine: Engine, files: list[Path], folder: Path) -> None:
    tok, hf = wp_bert(), hf_bert()
    docs = documents(files)
    out = folder / "ids"
    rows = engine.encode_files_to_parquet(
        files, tok, out, part_bytes=20_000, attention_mask=True, offsets=True
    )
    assert rows == len(docs)
    tables = read_parts(out)
    assert len(tables) > 10
    ids = [r for t in tables for r in t.column("input_ids").to_pylist()]
    assert ids == [e.ids for e in hf.encode_batch(docs)]
    offsets = [r for t in tables for r in t.column("offsets").to_pylist()]
    assert offsets == [[list(o) for o in e.offsets] for e in tok.encode_batch(docs)]
    masks = [r for t in tables for r in t.column("attention_mask").to_pylist()]
    assert masks == [[1] * len(r) for r in ids]
    assert codecs(out) == {"UNCOMPRESSED"}  # the default (ids bit-packed)
    no_staging_left(folder)
    # An existing folder is refused, unless overwritten as a whole.
    stale = out / "part-99999.parquet"
    stale.write_bytes(b"old")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        engine.encode_files_to_parquet(files, tok, out)
    tok.enable_truncation(max_length=16)
    tok.enable_padding(length=32)  # ignored: rows are written unpadded
    rewritten = engine.encode_files_to_parquet(
        files[:1], tok, out, overwrite=True, compression="zstd"
    )
    assert rewritten > 0
    assert not stale.exists()
    assert codecs(out) == {"ZSTD"}
    short = [r for t in read_parts(out) for r in t.column("input_ids").to_pylist()]
    hf.enable_truncation(max_length=16)
    assert short == [e.ids for e in hf.encode_batch(documents(files[:1]))]
    assert set(tables[0].column_names) == {"input_ids", "attention_mask", "offsets"}
    no_staging_left(folder)


def check_failed_job_leaves_nothing(engine: Engine, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    bad = folder / "bad.txt"
    bad.write_bytes(("fine line\n" * 500).encode() + b"bad \xff byte\n" + b"more\n" * 100)
    out = folder / "ids"
    out.mkdir()
    (out / "part-00000.parquet").write_bytes(b"the old set")
    # The error one process raises (not the engine's wrapper of it).
    with pytest.raises(ValueError, match="invalid UTF-8 at byte offset 5004"):
        engine.encode_files_to_parquet(bad, wp_bert(), out, part_bytes=1000, overwrite=True)
    assert sorted(os.listdir(out)) == ["part-00000.parquet"]
    assert (out / "part-00000.parquet").read_bytes() == b"the old set"
    no_staging_left(folder)
    with pytest.raises(ValueError, match="invalid UTF-8 at byte offset 5004"):
        engine.count_files(bad, part_bytes=1000)


def run_killing_a_worker(
    job: Callable[[], Any], started: Callable[[], bool], kill: Callable[[], int]
) -> Any:
    """Runs ``job`` on a thread; once ``started()`` holds, ``kill()`` kills a
    worker (its pid; 0 when the worker it looked for was gone by then, and
    it is tried again) while the job still runs; returns the job's result."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = job()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    pid = 0
    while not pid:
        assert thread.is_alive(), f"the job ended before a worker could be killed: {result}"
        assert time.monotonic() < deadline, "the job never started"
        if started():
            pid = kill()
        if not pid:
            time.sleep(0.02)
    assert thread.is_alive(), "the job ended before the kill: nothing was shown"
    thread.join(300)
    assert not thread.is_alive(), "the job did not end after a worker was killed"
    if "error" in result:
        raise result["error"]
    return result["value"]


def staged_parts(folder: Path) -> int:
    """Parts written so far to the staging folders in ``folder``."""
    return (
        sum(
            1
            for staging in folder.glob(".*.wpiece-*.tmp")
            for n in os.listdir(staging)
            if n.startswith("part-")
        )
        if folder.exists()
        else 0
    )


def check_wrong_inputs_fail_before_any_job(engine: Engine, folder: Path) -> None:
    """Bad arguments are refused on the driver, and nothing is written."""
    files = corpus_files(folder / "in")
    tok = wp_bert()
    cases: list[tuple[type[BaseException], str, Callable[[], Any]]] = [
        (ValueError, "part_bytes", lambda: engine.count_files(files, part_bytes=0)),
        (TypeError, "part_bytes", lambda: engine.count_files(files, part_bytes=1.5)),
        (ValueError, "fanout", lambda: engine.count_files(files, fanout=1)),
        (TypeError, "fanout", lambda: engine.count_files(files, fanout=True)),
        (TypeError, "jsonl_field", lambda: engine.count_files(files, jsonl_field=3)),
        (FileNotFoundError, "no file matches", lambda: engine.count_files(str(folder / "*.nope"))),
        (TypeError, "lowercas", lambda: engine.count_files(files, lowercas=True)),
        (
            TypeError,
            "tokenizer",
            lambda: engine.encode_files_to_parquet(files, "bert", folder / "o"),
        ),
        (
            FileNotFoundError,
            "no folder",
            lambda: engine.encode_files_to_parquet(files, tok, folder / "no" / "o"),
        ),
        (
            FileExistsError,
            "not a folder",
            lambda: engine.encode_files_to_parquet(files, tok, files[0]),
        ),
        (
            TypeError,
            "offsets",
            lambda: engine.encode_files_to_parquet(files, tok, folder / "o", offsets="yes"),
        ),
        (
            ValueError,
            "compression must be one of",
            lambda: engine.encode_files_to_parquet(files, tok, folder / "o", compression="lzo"),
        ),
        (
            TypeError,
            "compression",
            lambda: engine.encode_files_to_parquet(files, tok, folder / "o", compression=1),
        ),
    ]
    for kind, words, call in cases:
        with pytest.raises(kind, match=words):
            call()
    assert sorted(os.listdir(folder)) == ["in"]
