"""What a hostile test of the HF Encoding API and the tokenizer.json
components found (issue 16), each now refused with a Python exception or
matched to HF."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models
from tokenizers import normalizers as norm
from tokenizers import pre_tokenizers as pre

import wpiece

from conftest import VOCAB_TXT


def small() -> HFTokenizer:
    hf = HFTokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "b": 2, ".": 3}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre.WhitespaceSplit()
    hf.decoder = decoders.WordPiece()
    return hf


def state_of(enc: wpiece.Encoding) -> dict:
    rebuild, (state,) = enc.__reduce__()
    assert rebuild is type(enc)._from_state
    return dict(state)


def test_forged_encoding_states_are_refused_not_crashed() -> None:
    enc = wpiece.Tokenizer.from_hf(small()).encode("a b")
    state = state_of(enc)
    deep = dict(state)
    for _ in range(20_000):  # 10,000 levels overflowed the stack (a segfault)
        deep = {**state, "overflowing": [deep]}
    with pytest.raises(ValueError, match="nest more than"):
        type(enc)._from_state(deep)
    for forged, message in [
        ({"sequence_ranges": [(2**40, 0, 1)]}, "sequences are 0 and 1"),
        ({"sequence_ranges": [(0, 0, 1), (0, 1, 2)]}, "sequences are 0 and 1"),
        ({"attention_mask": [2, 1]}, "masks hold 0 and 1"),
        ({"sequence_ranges": [(0, 1, 5)]}, "outside it"),
        ({"ids": [1]}, "differ in length"),
    ]:
        with pytest.raises(ValueError, match=message):
            type(enc)._from_state({**state, **forged})
    nested = {**state, "overflowing": [state, {**state, "overflowing": [state]}]}
    again = type(enc)._from_state(nested)
    assert [o.ids for o in again.overflowing] == [enc.ids, enc.ids]


def run_limited(code: str) -> subprocess.CompletedProcess:
    """`code` in a child under an address-space limit 1.5 GB above what it uses at start."""
    head = textwrap.dedent(
        """
        import resource
        import wpiece
        pages = int(open("/proc/self/statm").read().split()[0])
        limit = pages * resource.getpagesize() + 1_500_000_000
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", head + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_padding_past_the_address_space_limit_is_a_memory_error_not_an_abort() -> None:
    # Checked against installed memory only, encode passed and reading .ids aborted.
    out = run_limited(
        f"""
        tok = wpiece.Tokenizer.from_file({str(VOCAB_TXT)!r})
        tok.enable_padding(length=2**26)
        try:
            tok.encode("a b").ids
        except MemoryError as e:
            print("MemoryError", e)
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "MemoryError" in out.stdout and "RLIMIT_AS" in out.stdout


def test_pairs_whose_overflowing_combinations_cannot_fit_are_a_memory_error() -> None:
    # Two 2,000-word texts cut to 8 tokens: HF builds 667k combined parts (5 GB);
    # under a limit the process used to abort on a small allocation.
    out = run_limited(
        f"""
        tok = wpiece.Tokenizer.from_file({str(VOCAB_TXT)!r})
        tok.enable_truncation(8, direction="left")
        a, b = " ".join(["hello"] * 2000), " ".join(["world"] * 2000)
        try:
            tok.encode(a, b)
        except MemoryError as e:
            print("MemoryError", e)
        print("short", len(tok.encode(a[:200], b[:200]).overflowing))
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "MemoryError" in out.stdout and "combinations of overflowing parts" in out.stdout
    assert "short" in out.stdout


def test_prepend_of_nothing_spans_the_first_char_as_hf_does() -> None:
    hf = small()
    hf.normalizer = norm.Prepend("")
    tok = wpiece.Tokenizer.from_hf(hf)
    for text in ["a b", "ab .", " a", "b"]:
        assert tok.encode(text).offsets == hf.encode(text).offsets, text
        assert tok.encode(text).ids == hf.encode(text).ids, text


def test_a_punctuation_pre_tokenizer_without_behavior_isolates_as_hf() -> None:
    d = json.loads(small().to_str())
    d["pre_tokenizer"] = {"type": "Punctuation"}
    text = json.dumps(d)
    hf, tok = HFTokenizer.from_str(text), wpiece.Tokenizer.from_str(text)
    assert tok.encode("a.b..a").ids == hf.encode("a.b..a").ids


def test_padding_lengths_past_2_pow_64_are_refused_when_set() -> None:
    tok = wpiece.Tokenizer.from_hf(small())
    with pytest.raises(ValueError, match="at most"):
        tok.enable_padding(length=2**64, pad_id=0)
    with pytest.raises(ValueError, match="at most"):
        tok.enable_padding(pad_to_multiple_of=2**64, pad_id=0)
    tok.enable_padding(length=2**63, pad_id=0)
    with pytest.raises(MemoryError):
        tok.encode("a")
    assert "pre_tokenizer='whitespace'" in repr(tok)  # WhitespaceSplit alone: a fast path
    hf = small()
    hf.pre_tokenizer = pre.Punctuation()
    custom = wpiece.Tokenizer.from_hf(hf)
    assert "pipeline='custom'" in repr(custom) and custom.settings["pre_tokenizer"] is None
