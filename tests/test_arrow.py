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
    tok.encode_batch_flat(LINES * (65_536 // len("".join(LINES)) + 1))  # on a pool
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


def encoded_chunk(rows: list[list[int] | None], large: bool, offsets: bool) -> pa.Array:
    """A chunk as encode_arrow builds it, with 32- or 64-bit row bounds."""
    bounds = [0]
    for r in rows:
        bounds.append(bounds[-1] + len(r or []))
    ids = pa.array([i for r in rows for i in r or []], pa.uint32())
    mask = pa.array([r is None for r in rows])
    kind = pa.LargeListArray if large else pa.ListArray
    row_bounds = pa.array(bounds, pa.int64() if large else pa.int32())
    id_lists = kind.from_arrays(row_bounds, ids, mask=mask)
    if not offsets:
        return id_lists
    pairs = pa.FixedSizeListArray.from_arrays(
        pa.array([x for r in rows for i in r or [] for x in (i, i + 1)], pa.uint32()), 2
    )
    offset_lists = kind.from_arrays(row_bounds, pairs, mask=mask)
    return pa.StructArray.from_arrays(
        [id_lists, offset_lists], names=["input_ids", "offsets"], mask=mask
    )


@pytest.mark.parametrize("offsets", [False, True])
def test_chunks_past_2_pow_31_tokens_join_the_others(offsets: bool) -> None:
    # A chunk of 2^31 tokens or more gets 64-bit row bounds, the others
    # 32-bit ones: one ChunkedArray needs one type, with offsets too (their
    # struct once raised StopIteration here).
    from wpiece.arrow import one_chunk_type

    chunks = [
        encoded_chunk([[1, 2], None, []], large=False, offsets=offsets),
        encoded_chunk([[3], [4, 5, 6]], large=True, offsets=offsets),
        encoded_chunk([None], large=False, offsets=offsets),
    ]
    joined = pa.chunked_array(one_chunk_type(chunks))
    assert len({c.type for c in joined.chunks}) == 1
    assert joined.to_pylist() == [x for c in chunks for x in c.to_pylist()]
    ids_type = joined.type.field("input_ids").type if offsets else joined.type
    assert pa.types.is_large_list(ids_type)
    small = chunks[::2]
    assert one_chunk_type(small) == small


def test_chunked_input_goes_through_one_chunk_type(monkeypatch: pytest.MonkeyPatch) -> None:
    import wpiece.arrow

    seen: list[int] = []
    real = wpiece.arrow.one_chunk_type

    def spy(chunks: list[pa.Array]) -> list[pa.Array]:
        seen.append(len(chunks))
        return real(chunks)

    monkeypatch.setattr(wpiece.arrow, "one_chunk_type", spy)
    column = pa.chunked_array([["a b", None], ["c"]])
    out = wp_bert().encode_arrow(column, return_offsets=True)
    assert seen == [2] and out.num_chunks == 2 and out.to_pylist()[1] is None


@pytest.mark.parametrize("multiple", [None, 8])
@pytest.mark.parametrize("offsets", [False, True])
def test_padding_to_the_longest_spans_every_chunk(multiple: int | None, offsets: bool) -> None:
    # Each chunk was padded to its own longest row: the same column read
    # with other row groups gave other ids.
    texts = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:40] + [None, ""]
    hf, wp = hf_bert(), wp_bert()
    hf.enable_padding(pad_to_multiple_of=multiple)
    wp.enable_padding(pad_to_multiple_of=multiple)
    whole = wp.encode_arrow(pa.array(texts), return_offsets=offsets)
    cuts = [0, 0, 1, 7, 7, 30, len(texts)]
    chunks = [texts[a:b] for a, b in zip(cuts, cuts[1:])]
    chunked = wp.encode_arrow(pa.chunked_array(chunks, pa.string()), return_offsets=offsets)
    assert [len(c) for c in chunked.chunks] == [len(c) for c in chunks]
    assert chunked.to_pylist() == whole.to_pylist()
    ids = [r["input_ids"] if offsets else r for r in whole.to_pylist() if r is not None]
    assert ids == [e.ids for e in hf.encode_batch([t for t in texts if t is not None])]


def test_a_chunked_column_of_another_type_is_refused_when_padding() -> None:
    # Padding to the longest cast a chunked column to strings first: ints,
    # bools and binary were encoded as their text.
    wp = wp_bert()
    wp.enable_padding()
    for chunks in ([[1, 22], [333]], [[True], [False]], [[b"a"], [b"b"]]):
        with pytest.raises(TypeError, match="string"):
            wp.encode_arrow(pa.chunked_array(chunks))


class _Stream:
    """A column of another library, seen only through the Arrow PyCapsule
    stream interface (as polars and DuckDB export theirs)."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        self._column = column

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._column.__arrow_c_stream__(requested_schema)


class _Array:
    """The same through the PyCapsule array interface."""

    def __init__(self, array: pa.Array) -> None:
        self._array = array

    def __arrow_c_array__(self, requested_schema: object = None) -> object:
        return self._array.__arrow_c_array__(requested_schema)


def test_columns_of_other_libraries_through_the_pycapsule_interface() -> None:
    """pandas >= 2.2 Series, polars Series and DuckDB columns export the
    Arrow PyCapsule interface: each is encoded and counted as the pyarrow
    column it holds (it raised TypeError), chunks and nulls kept, ids as HF."""
    import pandas as pd

    tok, hf = wp_bert(), hf_bert()
    texts: list[str | None] = LINES[:300] + [None] + list(ADVERSARIAL) + [None, ""]
    kept = [t for t in texts if t is not None]
    want_ids = iter(e.ids for e in hf.encode_batch(kept))
    want = [None if t is None else next(want_ids) for t in texts]
    cuts = [0, 100, 100, 301, len(texts)]
    chunked = pa.chunked_array([texts[a:b] for a, b in zip(cuts, cuts[1:])], pa.string())
    series = pd.Series(texts, dtype="str")
    assert hasattr(series, "__arrow_c_stream__")
    views = pa.chunked_array([c.cast(pa.string_view()) for c in chunked.chunks])
    one_view = views.chunk(2)  # rows 100 to 300
    for column in (series, _Stream(chunked), _Array(pa.array(texts)), views, one_view):
        out = tok.encode_arrow(column)
        assert out.to_pylist() == (want[100:301] if column is one_view else want)
        with_offsets = tok.encode_arrow(column, return_offsets=True).to_pylist()
        assert [r and r["input_ids"] for r in with_offsets] == out.to_pylist()
    # A stream keeps its chunks; padding spans them all, as for pyarrow's.
    out = tok.encode_arrow(_Stream(chunked))
    assert [len(c) for c in out.chunks] == [len(c) for c in chunked.chunks]
    padded = wp_bert()
    padded.enable_padding()
    assert (
        padded.encode_arrow(_Stream(chunked)).to_pylist()
        == padded.encode_arrow(pa.array(texts)).to_pylist()
    )
    # Counting reads them the same way (nulls count nothing).
    counts = wpiece.count_words(kept)
    for column in (series, _Stream(chunked), _Array(pa.array(texts)), views):
        assert wpiece.count_words(column) == counts
        counter = wpiece.WordCounts()
        counter.add_arrow(column)
        assert counter == counts
    # A pandas category (a dictionary column) and an empty object Series (a
    # null column) were counted as lists of str: still counted, now by Arrow.
    category = pd.Series(["a b", "b", None, "a b"], dtype="category")
    assert wpiece.count_words(category).most_common() == [("b", 3), ("a", 2)]
    assert (
        tok.encode_arrow(category).to_pylist()
        == tok.encode_arrow(pa.array(["a b", "b", None, "a b"])).to_pylist()
    )
    assert wpiece.count_words(pd.Series([], dtype=object)).most_common() == []
    assert tok.encode_arrow(pd.Series([None, None], dtype=object)).to_pylist() == [None, None]
    # What is not a string column says so.
    for bad in (pd.Series([1, 2]), pd.Series(["a", 3], dtype=object), pa.table({"t": ["a"]})):
        with pytest.raises(TypeError, match="Arrow"):
            tok.encode_arrow(bad)
        with pytest.raises(TypeError, match="Arrow"):
            wpiece.count_words(bad)
    with pytest.raises(TypeError, match="PyCapsule"):
        tok.encode_arrow(object())
