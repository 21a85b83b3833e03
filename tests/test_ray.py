"""wpiece.ray on a real local Ray (ray.init(num_cpus=2)): counts merged in
the Dataset's order equal local counting; encoded Datasets hold HF's ids per
row, nulls kept."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
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
    read_parts,
)

import wpiece
import wpiece.ray

from conftest import EN_FIXTURE, hf_bert, wp_bert

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:4000]
ROWS = [None if i % 7 == 3 else t for i, t in enumerate(LINES + ["##a @@ 日本", "", "\x00x"])]


@pytest.fixture(scope="module")
def dataset() -> Iterator[Any]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    table = pa.table({"id": list(range(len(ROWS))), "text": pa.array(ROWS, pa.string())})
    yield ray.data.from_arrow(table).repartition(5)
    # Refs of this session left in cycles would be freed in a later one (a
    # cluster test's), whose objects take the same ids, and drop those.
    gc.collect()
    ray.shutdown()


def test_counts_merged_in_order_equal_local_counting(dataset: Any) -> None:
    counts = wpiece.ray.count_words(dataset)
    local = wpiece.count_words([t for t in ROWS if t is not None])
    assert counts == local
    cased = wpiece.ray.count_words(dataset, lowercase=False)
    assert cased == wpiece.count_words([t for t in ROWS if t is not None], lowercase=False)


def test_counts_through_a_tokenizers_pipeline_equal_local_counting(dataset: Any) -> None:
    tok = wp_bert()
    counts = wpiece.ray.count_words(dataset, tokenizer=tok)
    assert counts == wpiece.count_words([t for t in ROWS if t is not None], tokenizer=tok)


def test_encoded_dataset_holds_hf_ids_per_row(dataset: Any) -> None:
    import ray

    tok, hf = wp_bert(), hf_bert()
    encoded = wpiece.ray.encode(dataset, tok, concurrency=2, num_cpus=0.5, batch_size=500)
    table = pa.concat_tables(ray.get(encoded.to_arrow_refs())).sort_by("id")
    expected = [None if t is None else hf.encode(t).ids for t in ROWS]
    assert table.column("input_ids").to_pylist() == expected
    assert table.column("text").to_pylist() == ROWS


def test_padding_set_on_the_tokenizer_pads_every_row_as_hf(dataset: Any) -> None:
    import ray

    tok, hf = wp_bert(), hf_bert()
    for t in (tok, hf):
        t.enable_truncation(max_length=24)
        t.enable_padding(length=20, pad_to_multiple_of=8, direction="left")
    encoded = wpiece.ray.encode(dataset, tok, concurrency=2, num_cpus=0.5, batch_size=500)
    table = pa.concat_tables(ray.get(encoded.to_arrow_refs())).sort_by("id")
    expected = [None if t is None else hf.encode(t).ids for t in ROWS]
    assert table.column("input_ids").to_pylist() == expected
    assert {len(e) for e in expected if e is not None} == {24}


def test_added_tokens_past_the_vocab_reach_the_workers(dataset: Any) -> None:
    import ray

    tok, hf = wp_bert(), hf_bert()
    for t in (tok, hf):
        t.add_tokens(["thi", "<ent>"])
        t.add_special_tokens(["[E]"])
    encoded = wpiece.ray.encode(dataset, tok, concurrency=2, num_cpus=0.5, batch_size=500)
    table = pa.concat_tables(ray.get(encoded.to_arrow_refs())).sort_by("id")
    expected = [None if t is None else hf.encode(t).ids for t in ROWS]
    assert table.column("input_ids").to_pylist() == expected
    assert any(e is not None and 30522 in e for e in expected)


def test_wrong_inputs_fail_on_the_driver(dataset: Any) -> None:
    with pytest.raises(ValueError, match="no column"):
        wpiece.ray.count_words(dataset, column="missing")
    with pytest.raises(TypeError, match="not strings"):
        wpiece.ray.count_words(dataset, column="id")
    with pytest.raises(TypeError):
        wpiece.ray.count_words(dataset, speed=2)
    with pytest.raises(ValueError, match="already has"):
        wpiece.ray.encode(dataset, wp_bert(), output="text")
    with pytest.raises(TypeError):
        wpiece.ray.encode(dataset, "bert")  # type: ignore[arg-type]


def test_each_task_encodes_on_the_cpus_ray_assigned_it(dataset: Any) -> None:
    import ray

    from wpiece._distributed import task_threads

    assert task_threads() == 1  # the driver, with Ray up: no task of its own
    threads = ray.remote(task_threads)
    assert ray.get(threads.options(num_cpus=2).remote()) == 2
    assert ray.get(threads.options(num_cpus=1).remote()) == 1
    assert ray.get(threads.options(num_cpus=0.5).remote()) == 1


# Files, read and counted by wpiece in Ray tasks -----------------------------


def test_count_files_equals_counting_in_one_process(dataset: Any, tmp_path: Any) -> None:
    engine = Engine(wpiece.ray)
    check_counts_equal_one_process(engine, corpus_files(tmp_path))
    check_jsonl_counts(engine, tmp_path)


def test_files_encoded_to_parquet_hold_hf_ids_in_order(dataset: Any, tmp_path: Any) -> None:
    check_parquet_equals_one_process(Engine(wpiece.ray), corpus_files(tmp_path), tmp_path)


def test_a_failed_parquet_job_leaves_the_old_folder_and_no_staging(
    dataset: Any, tmp_path: Any
) -> None:
    check_failed_job_leaves_nothing(Engine(wpiece.ray), tmp_path)


def test_a_dataset_encoded_to_parquet_keeps_its_columns_and_order(
    dataset: Any, tmp_path: Any
) -> None:
    out = tmp_path / "ds"
    rows = wpiece.ray.encode_to_parquet(
        dataset, wp_bert(), out, attention_mask=True, compression="zstd"
    )
    assert rows == len(ROWS)
    assert codecs(out) == {"ZSTD"}
    tables = read_parts(out)
    assert len(tables) == 5  # one per block, in the Dataset's order
    got = [r for t in tables for r in t.to_pylist()]
    assert [r["id"] for r in got] == list(range(len(ROWS)))
    hf = hf_bert()
    expected = [None if t is None else hf.encode(t).ids for t in ROWS]
    assert [r["input_ids"] for r in got] == expected
    assert [r["attention_mask"] for r in got] == [
        None if e is None else [1] * len(e) for e in expected
    ]
    with pytest.raises(ValueError, match="already has a column 'input_ids'"):
        wpiece.ray.encode_to_parquet(
            wpiece.ray.encode(dataset, wp_bert()), wp_bert(), tmp_path / "x"
        )
    assert not (tmp_path / "x").exists()
    no_staging_left(tmp_path)


def test_blocks_a_filter_emptied_are_written_empty_with_the_columns(
    dataset: Any, tmp_path: Any
) -> None:
    # A filter that empties a block leaves a table without columns: the
    # task failed with KeyError, and the whole job with it.
    import pyarrow.parquet as pq
    import ray

    base = ray.data.from_arrow(
        [
            pa.table({"id": [0, 1], "text": ["a", "b"]}),
            pa.table({"id": [2, 3], "text": ["c d", "e"]}),
        ]
    )
    filtered = base.filter(lambda r: r["id"] >= 2)
    out = tmp_path / "filtered"
    assert wpiece.ray.encode_to_parquet(filtered, wp_bert(), out) == 2
    table = pq.read_table(out)
    assert table.column_names == ["id", "text", "input_ids"]
    hf = hf_bert()
    assert table.to_pylist() == [
        {"id": i, "text": t, "input_ids": hf.encode(t).ids} for i, t in [(2, "c d"), (3, "e")]
    ]
    no_staging_left(tmp_path)


def test_a_counting_error_in_a_task_is_raised_as_one_process_raises_it(dataset: Any) -> None:
    # It came as RayTaskError(UserCodeException).
    import ray

    text = pa.array([b"ok \xff\xfe"], pa.binary()).view(pa.string())
    with pytest.raises(ValueError, match="UTF-8"):
        wpiece.count_words(text)
    with pytest.raises(ValueError, match="UTF-8"):
        wpiece.ray.count_words(ray.data.from_arrow(pa.table({"text": text})))


def test_wrong_arguments_for_files_fail_on_the_driver(dataset: Any, tmp_path: Any) -> None:
    check_wrong_inputs_fail_before_any_job(Engine(wpiece.ray), tmp_path)
