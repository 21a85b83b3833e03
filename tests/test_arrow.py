"""Tokenizer.encode_arrow: Arrow string columns in, list<uint32> out, with the
ids HF gives each row, nulls kept, chunks kept, offsets as the flat path."""

from __future__ import annotations

import signal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from adversarial import ADVERSARIAL
from conftest import EN_FIXTURE, examples, hf_bert, wp_bert

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:2000]


def flat_rows(tok: wpiece.Tokenizer, texts: list[str], **kw: object) -> list[list[int]]:
    ids, rows = tok.encode_batch_flat(texts, **kw)[:2]
    return [ids[a:b].tolist() for a, b in zip(rows[:-1], rows[1:])]


def test_real_and_adversarial_text_as_hf() -> None:
    tok, hf = wp_bert(), hf_bert()
    texts = LINES + list(ADVERSARIAL)
    for kind in (pa.string(), pa.large_string()):
        out = tok.encode_arrow(pa.array(texts, type=kind))
        assert out.type == pa.list_(pa.uint32())
        assert out.to_pylist() == [e.ids for e in hf.encode_batch(texts)]
    without = tok.encode_arrow(pa.array(texts), add_special_tokens=False).to_pylist()
    assert without == [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]


TEXTS = st.lists(
    st.one_of(
        st.none(),
        st.text(max_size=30),
        st.sampled_from(LINES[:50] + list(ADVERSARIAL)[:50]),
    ),
    max_size=25,
)


@settings(max_examples=examples(80), deadline=None)
@given(TEXTS, st.integers(0, 5), st.integers(0, 25), st.booleans(), st.booleans())
def test_hypothesis_rows_nulls_slices_and_chunks(
    texts: list[str | None], start: int, length: int, large: bool, offsets: bool
) -> None:
    tok = wp_bert()
    kind = pa.large_string() if large else pa.string()
    array = pa.array(texts, type=kind).slice(start, length)
    rows = texts[start : start + length]
    valid = [t for t in rows if t is not None]
    ids = iter(flat_rows(tok, valid) if valid else [])
    expected = [None if t is None else next(ids) for t in rows]
    out = tok.encode_arrow(array, return_offsets=offsets)
    if not offsets:
        assert out.to_pylist() == expected
    else:
        got = out.to_pylist()
        assert [None if r is None else r["input_ids"] for r in got] == expected
        if valid:
            flat_ids, bounds, flat_offsets = tok.encode_batch_flat(valid, return_offsets=True)
            pairs = iter([flat_offsets[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])])
            assert [r["offsets"] for r in got if r is not None] == list(pairs)
    half = len(array) // 2
    chunked = pa.chunked_array([array.slice(0, half), array.slice(half)], type=kind)
    out_chunked = tok.encode_arrow(chunked)
    assert isinstance(out_chunked, pa.ChunkedArray) and out_chunked.num_chunks == 2
    assert out_chunked.to_pylist() == expected


def test_truncation_applies_as_set() -> None:
    tok, hf = wp_bert(), hf_bert()
    tok.enable_truncation(max_length=12)
    hf.enable_truncation(max_length=12)
    out = tok.encode_arrow(pa.array(LINES[:300])).to_pylist()
    assert out == [e.ids for e in hf.encode_batch(LINES[:300])]


def test_empty_inputs_and_wrong_types() -> None:
    tok = wp_bert()
    assert tok.encode_arrow(pa.array([], type=pa.string())).to_pylist() == []
    assert tok.encode_arrow(pa.chunked_array([], type=pa.string())).to_pylist() == []
    empty_struct = tok.encode_arrow(pa.chunked_array([], type=pa.string()), return_offsets=True)
    assert pa.types.is_struct(empty_struct.type)
    assert tok.encode_arrow(pa.array([None], type=pa.string())).to_pylist() == [None]
    with pytest.raises(TypeError):
        tok.encode_arrow(pa.array([1, 2]))
    with pytest.raises(TypeError):
        tok.encode_arrow(["a list"])
    with pytest.raises(ValueError):
        tok.encode_arrow(pa.array(["x"]), num_threads=0)


def test_ids_are_not_copied_per_row() -> None:
    tok = wp_bert()
    out = tok.encode_arrow(pa.array(LINES))
    # One values buffer for the whole column, the ids as encode_batch_flat's.
    values = out.values.to_numpy()
    assert np.array_equal(values, tok.encode_batch_flat(LINES)[0])


@pytest.mark.parametrize("num_proc", [None, 2])
def test_the_readme_recipe_for_hf_datasets(num_proc: int | None) -> None:
    """Batches arrive as Arrow tables (no Python list per batch). With
    ``num_proc`` the workers are forked from a process whose thread pool
    already ran: they must build their own, not wait on the parent's."""
    import datasets

    tok, hf = wp_bert(), hf_bert()
    tok.encode_batch_flat(LINES[:100])
    rows = [*LINES[:500], None, "", "##a 日本"]
    ds = datasets.Dataset.from_dict({"text": rows})

    def encode(batch: pa.Table) -> pa.Table:
        assert isinstance(batch, pa.Table)
        return batch.append_column("input_ids", tok.encode_arrow(batch["text"]))

    def hung(*_: object) -> None:
        raise TimeoutError("the forked workers hung")

    # A worker waiting on the parent's threads would hang, not fail.
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        out = ds.with_format("arrow").map(encode, batched=True, batch_size=64, num_proc=num_proc)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    got = out.with_format(None)["input_ids"]
    assert list(got) == [None if t is None else hf.encode(t).ids for t in rows]
