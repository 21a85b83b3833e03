"""One padding rule on every output form.

A batch is padded as HF pads its ``Encoding`` objects: to the longest row or a
fixed length, rounded up to ``pad_to_multiple_of``, on the set side, with the
set pad id and type id. The tokenizer's padding (``enable_padding``) holds for
objects, numpy, flat arrays, Arrow and files alike; a call's ``padding=``,
``max_length=`` and ``pad_to_multiple_of=`` change only what they name. Each
form is compared with ``tokenizers`` configured the same way, on real text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EN_FIXTURE, examples, hf_bert, wp_bert

TEXTS = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:40] + ["x", "日本 ##a", "Ünïcode!"]
PAIRS = list(reversed(TEXTS))

# The tokenizer's padding: none, and enable_padding's arguments.
SETTINGS: list[Optional[dict[str, Any]]] = [
    None,
    {},
    {"length": 96},
    {"pad_to_multiple_of": 8},
    {"length": 11, "pad_to_multiple_of": 8},
    {"direction": "left", "pad_to_multiple_of": 5, "pad_id": 1, "pad_token": "[UNK]"},
    {"length": 70, "direction": "left", "pad_type_id": 1},
]


def pair(setting: Optional[dict[str, Any]]) -> tuple[Any, Any]:
    """HF and wpiece tokenizers with this padding, truncation off."""
    hf, tok = hf_bert(), wp_bert()
    if setting is not None:
        hf.enable_padding(**setting)
        tok.enable_padding(**setting)
    return hf, tok


def rows(ids: Any, bounds: Any) -> list[list[int]]:
    return [ids[bounds[i] : bounds[i + 1]].tolist() for i in range(len(bounds) - 1)]


@pytest.mark.parametrize("setting", SETTINGS, ids=repr)
def test_every_form_pads_as_hf_encodings(setting: Optional[dict[str, Any]], tmp_path: Path) -> None:
    hf, tok = pair(setting)
    want = hf.encode_batch(TEXTS)
    ids = [e.ids for e in want]
    got = tok.encode_batch(TEXTS)
    fields = ("ids", "attention_mask", "type_ids", "special_tokens_mask", "offsets", "word_ids")
    for field in fields:
        assert [getattr(e, field) for e in got] == [getattr(e, field) for e in want], field
    flat, bounds, offsets, words = tok.encode_batch_flat(
        TEXTS, return_offsets=True, return_word_ids=True
    )
    assert rows(flat, bounds) == ids
    assert [tuple(o) for o in offsets.tolist()] == [o for e in want for o in e.offsets]
    assert words.tolist() == [-1 if w is None else w for e in want for w in e.word_ids]
    assert tok.encode_arrow(pa.array(TEXTS)).to_pylist() == ids
    with_offsets = tok.encode_arrow(pa.array(TEXTS), return_offsets=True).to_pylist()
    assert [r["offsets"] for r in with_offsets] == [[list(o) for o in e.offsets] for e in want]
    path = tmp_path / "texts.txt"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    assert rows(*tok.encode_files(path)) == ids
    # An array is always rectangular: with no padding set, to the longest.
    if setting is None:
        hf.enable_padding()
        want = hf.encode_batch(TEXTS)
    if len({len(e.ids) for e in want}) > 1:
        # Rows past a fixed length stay longer (as in HF): no array holds them.
        with pytest.raises(ValueError, match="different lengths"):
            tok.encode_batch_numpy(TEXTS)
        return
    arrays = tok.encode_batch_numpy(TEXTS)
    assert arrays["input_ids"].tolist() == [e.ids for e in want]
    assert arrays["attention_mask"].tolist() == [e.attention_mask for e in want]
    assert arrays["token_type_ids"].tolist() == [e.type_ids for e in want]
    assert arrays["special_tokens_mask"].tolist() == [e.special_tokens_mask for e in want]


# A call's own padding: (encode_batch keywords, enable_padding arguments HF
# needs on top of the tokenizer's setting for the same result).
CALLS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"padding": True}, {"length": None}),
    ({"padding": "longest", "pad_to_multiple_of": 16}, {"length": None, "pad_to_multiple_of": 16}),
    ({"padding": True, "pad_to_multiple_of": 0}, {"length": None, "pad_to_multiple_of": None}),
    ({"padding": "max_length", "max_length": 90}, {"length": 90}),
    (
        {"padding": "max_length", "max_length": 90, "pad_to_multiple_of": 7},
        {"length": 90, "pad_to_multiple_of": 7},
    ),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=repr)
@pytest.mark.parametrize("call, as_hf", CALLS, ids=lambda c: repr(c))
def test_a_call_changes_only_what_it_names(
    setting: Optional[dict[str, Any]], call: dict[str, Any], as_hf: dict[str, Any]
) -> None:
    hf, tok = pair(setting)
    hf.enable_padding(**{**(setting or {}), **as_hf})
    for pairs in (None, PAIRS):
        want = hf.encode_batch(TEXTS if pairs is None else list(zip(TEXTS, pairs)))
        got = tok.encode_batch(TEXTS, pairs, **call)
        assert [e.ids for e in got] == [e.ids for e in want]
        assert [e.type_ids for e in got] == [e.type_ids for e in want]
        assert [e.attention_mask for e in got] == [e.attention_mask for e in want]
        if len({len(e.ids) for e in want}) > 1:
            with pytest.raises(ValueError, match="different lengths"):
                tok.encode_batch_numpy(TEXTS, pairs, **call)
            continue
        arrays = tok.encode_batch_numpy(TEXTS, pairs, **call)
        assert arrays["input_ids"].tolist() == [e.ids for e in want]
        assert arrays["token_type_ids"].tolist() == [e.type_ids for e in want]
    # The call changed nothing of the tokenizer's own padding.
    assert (tok.padding is None) == (setting is None)


def test_a_multiple_without_padding_is_refused_by_name() -> None:
    _, tok = pair(None)
    with pytest.raises(ValueError, match="pad_to_multiple_of needs padding"):
        tok.encode_batch(TEXTS, pad_to_multiple_of=8)
    # An array pads anyway: to the longest, rounded up.
    assert tok.encode_batch_numpy(TEXTS, pad_to_multiple_of=8)["input_ids"].shape[1] % 8 == 0
    for bad in (-1, 1.5, "8", True):
        with pytest.raises((ValueError, TypeError), match="pad_to_multiple_of"):
            tok.encode_batch(TEXTS, padding=True, pad_to_multiple_of=bad)


padding_settings = st.fixed_dictionaries(
    {},
    optional={
        "length": st.integers(0, 40),
        "pad_to_multiple_of": st.integers(1, 9),
        "direction": st.sampled_from(["left", "right"]),
        "pad_type_id": st.integers(0, 3),
    },
)
texts = st.lists(
    st.lists(st.sampled_from([*"ab ,Z東é\n", "[SEP]", "xyz"]), max_size=30).map("".join),
    max_size=6,
)


@settings(max_examples=examples(40), deadline=None)
@given(setting=padding_settings, batch=texts)
def test_every_form_pads_as_hf_on_random_settings(
    setting: dict[str, Any], batch: list[str]
) -> None:
    hf, tok = pair(setting)
    want = [e.ids for e in hf.encode_batch(batch)]
    assert [e.ids for e in tok.encode_batch(batch)] == want
    assert rows(*tok.encode_batch_flat(batch)) == want
    assert tok.encode_arrow(pa.array(batch, pa.string())).to_pylist() == want
    if batch and len({len(r) for r in want}) == 1:
        assert tok.encode_batch_numpy(batch)["input_ids"].tolist() == want
