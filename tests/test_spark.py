"""wpiece.spark on a real local Spark (local[2]): counts merged in partition
order equal local counting (and train the same vocab); encoded DataFrames
hold HF's ids per row, nulls kept."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from distributed_files import (
    Engine,
    check_counts_equal_one_process,
    check_failed_job_leaves_nothing,
    check_jsonl_counts,
    check_parquet_equals_one_process,
    check_wrong_inputs_fail_before_any_job,
    codecs,
    corpus_files,
    no_staging_left,
)

import wpiece
import wpiece.spark

from conftest import EN_FIXTURE, hf_bert, wp_bert

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:4000]
# Every seventh row null, and a few hostile strings.
ROWS = [None if i % 7 == 3 else t for i, t in enumerate(LINES + ["##a @@ 日本", "", "\x00x"])]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    # Executors run this interpreter (the one that has wpiece and pyarrow).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("wpiece-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        # Keep the four range partitions (adaptive execution would merge them).
        .config("spark.sql.adaptive.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def frame(spark: Any) -> Any:
    rows = [(i, t) for i, t in enumerate(ROWS)]
    # Range partitions in row order: partition order is row order.
    return spark.createDataFrame(rows, "id long, text string").repartition(5).orderBy("id")


def test_counts_merged_in_partition_order_equal_local_counting(frame: Any) -> None:
    assert frame.rdd.getNumPartitions() > 1
    counts = wpiece.spark.count_words(frame)
    local = wpiece.count_words([t for t in ROWS if t is not None])
    assert counts == local  # words, counts and first-appearance order
    cased = wpiece.spark.count_words(frame, lowercase=False, pre_tokenizer="whitespace")
    assert cased == wpiece.count_words(
        [t for t in ROWS if t is not None], lowercase=False, pre_tokenizer="whitespace"
    )
    whole = wpiece.train_from_iterator([t for t in ROWS if t is not None], vocab_size=500)
    assert wpiece.train_from_counts(counts, vocab_size=500).get_vocab() == whole.get_vocab()


def test_counts_through_a_tokenizers_pipeline_equal_local_counting(frame: Any) -> None:
    tok = wp_bert()  # its special tokens are cut out, never counted
    counts = wpiece.spark.count_words(frame, tokenizer=tok)
    assert counts == wpiece.count_words([t for t in ROWS if t is not None], tokenizer=tok)
    assert "pipeline" in counts.options


def test_encoded_frame_holds_hf_ids_per_row(frame: Any) -> None:
    tok = wp_bert()
    out = wpiece.spark.encode(frame, tok).orderBy("id").collect()
    hf = hf_bert()
    expected = [None if t is None else e for t, e in zip(ROWS, iter_hf(hf, ROWS))]
    assert [r["input_ids"] for r in out] == expected
    assert [r["text"] for r in out] == ROWS  # input columns kept
    tok.enable_truncation(max_length=8)
    short = wpiece.spark.encode(frame, tok, output="ids", add_special_tokens=False)
    hf.enable_truncation(max_length=8)
    got = [r["ids"] for r in short.orderBy("id").collect()]
    want = [None if t is None else hf.encode(t, add_special_tokens=False).ids for t in ROWS]
    assert got == want


def test_added_tokens_past_the_vocab_reach_the_executors(frame: Any) -> None:
    tok, hf = wp_bert(), hf_bert()
    for t in (tok, hf):
        t.add_tokens(["thi", "<ent>"])
        t.add_special_tokens(["[E]"])
    out = wpiece.spark.encode(frame, tok).orderBy("id").collect()
    expected = [None if t is None else e for t, e in zip(ROWS, iter_hf(hf, ROWS))]
    assert [r["input_ids"] for r in out] == expected
    assert any(e is not None and 30522 in e for e in expected)


def test_padding_set_on_the_tokenizer_pads_every_row_as_hf(frame: Any) -> None:
    tok, hf = wp_bert(), hf_bert()
    for t in (tok, hf):
        t.enable_truncation(max_length=24)
        t.enable_padding(length=20, pad_to_multiple_of=8, direction="left")
    out = wpiece.spark.encode(frame, tok).orderBy("id").collect()
    expected = [None if t is None else hf.encode(t).ids for t in ROWS]
    assert [r["input_ids"] for r in out] == expected
    assert {len(e) for e in expected if e is not None} == {24}


def iter_hf(hf: Any, rows: list[str | None]) -> Iterator[list[int] | None]:
    for t in rows:
        yield None if t is None else hf.encode(t).ids


def test_wrong_inputs_fail_on_the_driver(frame: Any) -> None:
    with pytest.raises(ValueError, match="no column"):
        wpiece.spark.count_words(frame, column="missing")
    with pytest.raises(TypeError, match="not strings"):
        wpiece.spark.count_words(frame, column="id")
    with pytest.raises(TypeError):
        wpiece.spark.count_words(frame, speed=2)
    with pytest.raises(ValueError):
        wpiece.spark.count_words(frame, pre_tokenizer="regex")
    with pytest.raises(ValueError, match="already has"):
        wpiece.spark.encode(frame, wp_bert(), output="text")
    with pytest.raises(TypeError):
        wpiece.spark.encode(frame, "bert-base-uncased")  # type: ignore[arg-type]


def test_a_counting_error_on_an_executor_is_raised_as_one_process_raises_it(spark: Any) -> None:
    # It came as pyspark's PythonException, where one process (and
    # encode_to_parquet on the same rows) raises ValueError.
    from pyspark.sql import functions as F

    bad = spark.createDataFrame([(bytearray(b"ok \xff\xfe"),)], "b binary")
    bad = bad.select(F.col("b").cast("string").alias("text"))
    with pytest.raises(ValueError, match="UTF-8"):
        wpiece.spark.count_words(bad)


def test_the_tokenizer_is_unpickled_once_per_process() -> None:
    from wpiece._distributed import load_shipped, ship

    tok = wpiece.train_from_iterator(LINES[:200], vocab_size=300)
    payload = ship(tok)
    first = load_shipped(payload)
    assert load_shipped(payload) is first  # cached: one unpickling per worker process
    assert first.training_record is None  # shipped without its record
    assert first.get_vocab() == tok.get_vocab()
    assert load_shipped(ship(wp_bert())) is not first


# Files, read and counted by wpiece on the executors --------------------------


def test_each_task_encodes_on_the_cores_spark_gave_it(spark: Any, monkeypatch: Any) -> None:
    """spark.task.cpus, read from the task's context: 1 in these tasks (on a
    machine of two cores or more: the encoder's default would take them
    all), and what a context of three CPUs says."""
    from pyspark import TaskContext

    from wpiece._distributed import task_threads

    tasks = spark.sparkContext.parallelize(range(4), 4)
    assert tasks.map(lambda _: task_threads()).collect() == [1] * 4

    class ThreeCpus:
        def cpus(self) -> int:
            return 3

    assert task_threads() == 1  # the driver: no task context
    monkeypatch.setattr(TaskContext, "get", classmethod(lambda cls: ThreeCpus()))
    assert task_threads() == 3


def test_count_files_equals_counting_in_one_process(spark: Any, tmp_path: Any) -> None:
    engine = Engine(wpiece.spark, spark)
    check_counts_equal_one_process(engine, corpus_files(tmp_path))
    check_jsonl_counts(engine, tmp_path)


def test_files_encoded_to_parquet_hold_hf_ids_in_order(spark: Any, tmp_path: Any) -> None:
    check_parquet_equals_one_process(Engine(wpiece.spark, spark), corpus_files(tmp_path), tmp_path)


def test_a_failed_parquet_job_leaves_the_old_folder_and_no_staging(
    spark: Any, tmp_path: Any
) -> None:
    check_failed_job_leaves_nothing(Engine(wpiece.spark, spark), tmp_path)


def test_a_frame_encoded_to_parquet_keeps_its_columns_and_rows(frame: Any, tmp_path: Any) -> None:
    out = tmp_path / "frame"
    written = wpiece.spark.encode_to_parquet(
        frame, wp_bert(), out, attention_mask=True, offsets=True
    )
    assert written == len(ROWS)
    assert codecs(out) == {"UNCOMPRESSED"}
    tables = read_parts_of_partitions(out)
    rows = sorted((r for t in tables for r in t.to_pylist()), key=lambda r: r["id"])
    # Spark itself reads the parts (their integer columns bit-packed) with
    # its default, vectorized reader, as pyarrow does.
    read_by_spark = frame.sparkSession.read.parquet(str(out)).orderBy("id").collect()
    assert [r.asDict(recursive=True) for r in read_by_spark] == rows
    assert [r["text"] for r in rows] == ROWS
    hf = hf_bert()
    expected = [None if t is None else e for t, e in zip(ROWS, iter_hf(hf, ROWS))]
    assert [r["input_ids"] for r in rows] == expected
    with pytest.raises(ValueError, match="already has a column 'input_ids'"):
        wpiece.spark.encode_to_parquet(
            wpiece.spark.encode(frame, wp_bert()), wp_bert(), tmp_path / "again"
        )
    assert not (tmp_path / "again").exists()
    no_staging_left(tmp_path)


def read_parts_of_partitions(out: Any) -> list[Any]:
    import pyarrow.parquet as pq

    names = sorted(os.listdir(out))
    assert names[0] == "_SUCCESS" and all(n.startswith("part-") for n in names[1:]), names
    return [pq.read_table(out / n) for n in names[1:]]


def test_an_empty_frame_encoded_to_parquet_keeps_its_columns(spark: Any, tmp_path: Any) -> None:
    # No partition had a row, so no part was written: the folder read back
    # as a table without a column.
    import pyarrow.parquet as pq

    empty = spark.createDataFrame([], "id long, text string")
    out = tmp_path / "empty"
    assert wpiece.spark.encode_to_parquet(empty, wp_bert(), out, attention_mask=True) == 0
    table = pq.read_table(out)
    assert table.num_rows == 0
    assert table.column_names == ["id", "text", "input_ids", "attention_mask"]
    no_staging_left(tmp_path)


def test_wrong_arguments_for_files_fail_on_the_driver(spark: Any, tmp_path: Any) -> None:
    check_wrong_inputs_fail_before_any_job(Engine(wpiece.spark, spark), tmp_path)
    with pytest.raises(TypeError, match="SparkSession"):
        wpiece.spark.count_files("not a session", corpus_files(tmp_path / "in"))
