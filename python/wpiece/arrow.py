"""Arrow string columns handed to the core without a Python ``str`` per row.

:func:`string_chunks` turns a pyarrow ``StringArray``, ``LargeStringArray``
or ``ChunkedArray`` of them into the buffers of each chunk, as zero-copy
numpy views; the core checks them (offsets in order and inside the data,
UTF-8) before reading a row; :func:`encode_arrow` assembles the ids
the core gives for them into Arrow list arrays.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Optional

# numpy is imported by the functions that use it: `import wpiece` (which
# imports this module) stays without it (see src/python/numpy_api.rs).
if TYPE_CHECKING:
    import numpy as np

__all__ = ["ArrowChunk", "arrow_column", "encode_arrow", "one_chunk_type", "string_chunks"]

ArrowChunk = tuple["np.ndarray", "np.ndarray", Optional["np.ndarray"], int, int]
"""``(offsets, data, validity, offset, length)`` of one string array chunk."""


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError("Arrow input needs pyarrow: pip install 'wpiece[arrow]'") from e
    return pyarrow


def is_arrow_column(obj: object) -> bool:
    """Whether ``obj`` is a pyarrow array or exports the Arrow PyCapsule
    interface (``__arrow_c_stream__`` or ``__arrow_c_array__``).

    >>> import pyarrow as pa
    >>> is_arrow_column(pa.array(["a"])), is_arrow_column(["a"])
    (True, False)
    """
    if type(obj).__module__.startswith("pyarrow"):
        return True
    return hasattr(obj, "__arrow_c_stream__") or hasattr(obj, "__arrow_c_array__")


def arrow_column(array: Any, name: str = "array") -> Any:
    """``array`` as a pyarrow ``Array`` or ``ChunkedArray`` of strings.

    Columns of other libraries come through the Arrow PyCapsule interface
    (a pandas >= 2.2 ``Series``, a polars ``Series``, a DuckDB or nanoarrow
    array): one exporting a stream (``__arrow_c_stream__``) becomes a
    ``ChunkedArray``, one exporting an array (``__arrow_c_array__``) an
    ``Array``, without copying the text. ``string_view`` columns (polars'
    own layout) and dictionaries of strings (a pandas category) are cast to
    strings, one copy of the text; a column of nulls (an empty pandas
    ``Series``) is read as strings.

    >>> import pandas as pd
    >>> arrow_column(pd.Series(["a", None])).to_pylist()
    ['a', None]
    """
    pa = _pyarrow()
    if not isinstance(array, (pa.Array, pa.ChunkedArray)):
        if hasattr(array, "__arrow_c_stream__"):
            convert: Any = pa.chunked_array
        elif hasattr(array, "__arrow_c_array__"):
            convert = pa.array
        else:
            kind_name = type(array).__name__
            raise TypeError(
                f"{name} must be a pyarrow Array or ChunkedArray, or a column with the Arrow "
                f"PyCapsule interface (pandas, polars, DuckDB), got {kind_name}"
            )
        try:
            array = convert(array)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
            raise TypeError(f"{name} could not be read as an Arrow column: {e}") from e
    kind = array.type
    # A pandas category of strings is a dictionary column; an empty object
    # Series has no type (null): both are strings to read.
    if pa.types.is_dictionary(kind) and _is_text(pa, kind.value_type):
        array = array.cast(kind.value_type)
    if pa.types.is_string_view(array.type) or pa.types.is_null(array.type):
        array = array.cast(pa.large_string())
    return array


def _is_text(pa: Any, kind: Any) -> bool:
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
    )


def string_chunks(array: Any, name: str = "array") -> Iterator[ArrowChunk]:
    """The buffers of each chunk of a string column (``name``: the
    argument it was given as, for errors).

    >>> import pyarrow as pa
    >>> chunks = string_chunks(pa.array(["ab", "c"]))
    >>> [(o.tolist(), bytes(d), v, off, n) for o, d, v, off, n in chunks]
    [([0, 2, 3], b'abc', None, 0, 2)]
    """
    import numpy as np

    pa = _pyarrow()
    array = arrow_column(array, name)
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    kind = array.type
    if pa.types.is_string(kind):
        offset_type: Any = np.int32
    elif pa.types.is_large_string(kind):
        offset_type = np.int64
    else:
        raise TypeError(
            f"{name} must be an Arrow string, large_string or string_view column, got {kind}"
        )
    for chunk in chunks:
        validity, offsets, data = chunk.buffers()[:3]
        n = len(chunk)
        offsets_np = (
            np.frombuffer(offsets, dtype=offset_type)
            if offsets is not None
            else np.zeros(chunk.offset + n + 1, dtype=offset_type)
        )
        data_np = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        bits = (
            np.frombuffer(validity, dtype=np.uint8)
            if validity is not None and chunk.null_count > 0
            else None
        )
        yield offsets_np, data_np, bits, chunk.offset, n


def one_chunk_type(chunks: list[Any]) -> list[Any]:
    """Encoded chunks cast to one type, for one ``ChunkedArray``: a chunk of
    2^31 tokens or more has 64-bit row bounds (a large list, or a struct of
    large lists with offsets), the others 32-bit ones.

    >>> import pyarrow as pa
    >>> small = pa.array([[1, 2]], pa.list_(pa.uint32()))
    >>> large = pa.array([[3]], pa.large_list(pa.uint32()))
    >>> [str(c.type) for c in one_chunk_type([small, large])]
    ['large_list<item: uint32>', 'large_list<item: uint32>']
    """
    pa = _pyarrow()

    def is_large(kind: Any) -> bool:
        if pa.types.is_struct(kind):
            return any(is_large(kind.field(i).type) for i in range(kind.num_fields))
        return bool(pa.types.is_large_list(kind))

    large = next((c.type for c in chunks if is_large(c.type)), None)
    if large is None:
        return chunks
    return [c if c.type == large else c.cast(large) for c in chunks]


def flat_lists(ids: Any, rows: Any, char_offsets: Any, mask: Any = None) -> Any:
    """Flat ids (uint32), row bounds (int64, one more than the rows) and,
    if given (a list of one (n, 2) uint32 array), char offsets, as the
    Arrow array :meth:`wpiece.Tokenizer.encode_arrow` returns: lists of ids
    (large lists past 2^31 ids), or with offsets a struct of the two lists;
    ``mask`` marks null rows.

    >>> import numpy as np
    >>> rows = np.array([0, 2, 3])
    >>> flat_lists(np.array([5, 6, 7], np.uint32), rows, []).to_pylist()
    [[5, 6], [7]]
    """
    pa = _pyarrow()
    large = bool(rows[-1] >= 2**31)  # row bounds past int32
    list_type = pa.LargeListArray if large else pa.ListArray
    row_bounds = pa.array(rows, pa.int64() if large else pa.int32())
    id_lists = list_type.from_arrays(row_bounds, pa.array(ids), mask=mask)
    if not char_offsets:
        return id_lists
    pairs = pa.FixedSizeListArray.from_arrays(pa.array(char_offsets[0].reshape(-1)), 2)
    offset_lists = list_type.from_arrays(row_bounds, pairs, mask=mask)
    return pa.StructArray.from_arrays(
        [id_lists, offset_lists], names=["input_ids", "offsets"], mask=mask
    )


def encode_arrow(
    core: Any,
    array: Any,
    add_special_tokens: bool,
    return_offsets: bool,
    num_threads: Optional[int],
) -> Any:
    """:meth:`wpiece.Tokenizer.encode_arrow` on ``core``, a ``_core.Tokenizer``
    (arguments checked by the caller): each chunk's rows encoded from its
    buffers, assembled into Arrow list (or struct) arrays.

    >>> import pyarrow as pa, wpiece
    >>> tok = wpiece.Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
    >>> encode_arrow(tok._core, pa.array(["a", None]), True, False, None).to_pylist()
    [[2, 4, 3], None]
    """
    import numpy as np

    pa = _pyarrow()
    array = arrow_column(array)
    padding = core.padding
    if (
        isinstance(array, pa.ChunkedArray)
        and array.num_chunks > 1
        and padding is not None
        and padding["length"] is None
        and (pa.types.is_string(array.type) or pa.types.is_large_string(array.type))
    ):
        # Padding to the longest row means the column's longest, whatever
        # its chunks: encode it whole, then cut the result at its chunks.
        whole = array.cast(pa.large_string()).combine_chunks()
        encoded = encode_arrow(core, whole, add_special_tokens, return_offsets, num_threads)
        starts = np.cumsum([0, *(len(c) for c in array.chunks)])
        return pa.chunked_array(
            [encoded.slice(a, b - a) for a, b in zip(starts[:-1], starts[1:])], encoded.type
        )
    results = []
    for chunk, (offsets, data, bits, offset, length) in zip(
        array.chunks if isinstance(array, pa.ChunkedArray) else [array],
        string_chunks(array),
    ):
        ids, rows, *char_offsets = core.encode_arrow_flat(
            offsets,
            data,
            bits,
            offset,
            length,
            add_special_tokens,
            num_threads,
            return_offsets,
        )
        mask = chunk.is_null() if chunk.null_count else None
        results.append(flat_lists(ids, rows, char_offsets, mask))
    if isinstance(array, pa.ChunkedArray):
        if not results:
            kind = pa.list_(pa.uint32())
            if return_offsets:
                pairs_type = pa.list_(pa.list_(pa.uint32(), 2))
                kind = pa.struct([("input_ids", kind), ("offsets", pairs_type)])
            return pa.chunked_array([], type=kind)
        return pa.chunked_array(one_chunk_type(results))
    return results[0]
