"""Sizes and ids taken from the input: refused with a Python exception before
anything is allocated for them, never an abort; every tokenizer.json field HF
reads is honoured exactly or refused."""

from __future__ import annotations

import ast
import json
import os
import resource
import subprocess
import sys
import threading
import time

import pytest
from tokenizers import Tokenizer as HFTokenizer

import wpiece

from conftest import TOKENIZER_JSON, hf_bert, wp_bert

TEXTS = ["Hello, world!", "The quick brown fox jumps.", "a"]


def spec() -> dict:
    d = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = None
    d["padding"] = None
    return d


def load(d: dict) -> wpiece.Tokenizer:
    return wpiece.Tokenizer._from_core(wpiece._core.Tokenizer.from_json(json.dumps(d)))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ----- item 1: one huge vocab id -------------------------------------------


@pytest.mark.parametrize("huge", [2**32 - 1, 10**9, 10**8, 2**32, 2**64 - 1, 30522])
def test_one_huge_vocab_id_is_refused_without_allocating(huge: int) -> None:
    d = spec()
    d["model"]["vocab"]["hello"] = huge
    before = peak_rss_mb()
    with pytest.raises(ValueError, match="without gaps"):
        load(d)
    # A table sized by the id (10^8 ids: 2.4 GB) would show in the peak.
    assert peak_rss_mb() - before < 200


def test_negative_or_fractional_vocab_id_is_refused() -> None:
    for bad in (-1, 1.5, "3", None):
        d = spec()
        d["model"]["vocab"]["hello"] = bad
        with pytest.raises(ValueError, match="hello"):
            load(d)


# ----- item 2: padding lengths memory cannot hold --------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{"length": 2**40}, {"length": 2**62}, {"pad_to_multiple_of": 2**63}],
)
def test_enable_padding_to_absurd_length_raises_memory_error(kwargs: dict) -> None:
    tok = wp_bert()
    tok.enable_padding(**kwargs)
    with pytest.raises(MemoryError):
        tok.encode("hello")
    with pytest.raises(MemoryError):
        tok.encode_batch(["hello", "world"])


def test_max_length_padding_to_absurd_length_raises_memory_error() -> None:
    tok = wp_bert()
    with pytest.raises(MemoryError):
        tok.encode_batch(["hello"], padding="max_length", max_length=2**40)
    with pytest.raises(MemoryError):
        tok.encode_batch_numpy(["hello"], padding="max_length", max_length=2**40)


def test_fixed_padding_in_tokenizer_json_to_absurd_length_raises_memory_error() -> None:
    d = spec()
    d["padding"] = {
        "strategy": {"Fixed": 2**40},
        "direction": "Right",
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
        "pad_to_multiple_of": None,
    }
    tok = load(d)
    with pytest.raises(MemoryError):
        tok.encode("hello")


def test_padding_arguments_are_type_checked() -> None:
    tok = wp_bert()
    for kwargs in ({"length": 3.5}, {"length": True}, {"pad_to_multiple_of": "8"}, {"pad_id": 1.0}):
        with pytest.raises(TypeError):
            tok.enable_padding(**kwargs)
    for kwargs in ({"length": -1}, {"pad_id": 2**32}, {"pad_type_id": -1}):
        with pytest.raises(ValueError):
            tok.enable_padding(**kwargs)


# ----- item 6: every padding field as HF reads it --------------------------


PADDINGS = [
    {"strategy": {"Fixed": 12}, "pad_id": 100, "pad_token": "[PAD]", "pad_type_id": 0},
    {"strategy": {"Fixed": 12}, "pad_id": 0, "pad_token": "[UNK]", "pad_type_id": 3},
    {"strategy": {"Fixed": 12}, "pad_id": 30521, "pad_token": "[NOT-IN-VOCAB]", "pad_type_id": 1},
    {
        "strategy": "BatchLongest",
        "pad_id": 7,
        "pad_token": "[PAD]",
        "pad_type_id": 0,
        "pad_to_multiple_of": 8,
    },
    {"strategy": {"Fixed": 3}, "pad_id": 5, "pad_token": "x", "pad_type_id": 2},
]


@pytest.mark.parametrize("padding", PADDINGS, ids=range(len(PADDINGS)))
def test_padding_fields_as_hf(padding: dict) -> None:
    d = spec()
    d["padding"] = {"direction": "Right", "pad_to_multiple_of": None, **padding}
    hf = HFTokenizer.from_str(json.dumps(d))
    ours = load(d)
    for mine, theirs in zip(ours.encode_batch(TEXTS), hf.encode_batch(TEXTS)):
        assert mine.ids == theirs.ids
        assert mine.tokens == theirs.tokens
        assert mine.type_ids == theirs.type_ids
        assert mine.attention_mask == theirs.attention_mask
        assert mine.special_tokens_mask == theirs.special_tokens_mask
    mine, theirs = ours.encode(TEXTS[1], TEXTS[0]), hf.encode(TEXTS[1], TEXTS[0])
    assert (mine.ids, mine.tokens) == (theirs.ids, theirs.tokens)
    # The settings survive a save and a load.
    again = wpiece.Tokenizer._from_core(wpiece._core.Tokenizer.from_json(ours.to_json()))
    assert [e.ids for e in again.encode_batch(TEXTS)] == [e.ids for e in hf.encode_batch(TEXTS)]


def test_enable_padding_pad_id_as_hf() -> None:
    hf, ours = hf_bert(), wp_bert()
    hf.enable_padding(pad_id=100, pad_token="[PAD]", length=10)
    ours.enable_padding(pad_id=100, pad_token="[PAD]", length=10)
    assert [e.ids for e in ours.encode_batch(TEXTS)] == [e.ids for e in hf.encode_batch(TEXTS)]
    assert ours.padding["pad_id"] == 100


@pytest.mark.parametrize(
    "path,value",
    [
        (("padding", "pad_id"), 2**32),
        (("padding", "pad_type_id"), 2**32 + 5),
        (("post_processor", "sep", 1), 2**32 + 102),
        (("post_processor", "cls", 1), -1),
        (("added_tokens", 0, "id"), 2**32),
    ],
)
def test_ids_past_u32_are_refused(path: tuple, value: int) -> None:
    d = spec()
    d["padding"] = {
        "strategy": "BatchLongest",
        "direction": "Right",
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
        "pad_to_multiple_of": None,
    }
    if path[0] == "post_processor":
        d["post_processor"] = {
            "type": "BertProcessing",
            "sep": ["[SEP]", 102],
            "cls": ["[CLS]", 101],
        }
    node = d
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(ValueError):
        load(d)


def test_post_processor_tokens_named_otherwise_than_the_vocab_show_as_in_hf() -> None:
    # HF shows the post-processor's string for the ids it inserts, whatever
    # the vocab calls them; so does wpiece.
    bert = spec()
    bert["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", 5], "cls": ["[CLS]", 101]}
    template = spec()
    assert template["post_processor"]["type"] == "TemplateProcessing"
    template["post_processor"]["special_tokens"]["[CLS]"]["tokens"] = ["[XYZ]"]
    for d in (bert, template):
        hf, wp = HFTokenizer.from_str(json.dumps(d)), load(d)
        for text, pair in (("hello world", None), ("hello", "world")):
            h, w = hf.encode(text, pair), wp.encode(text, pair)
            assert (w.ids, w.tokens) == (h.ids, h.tokens)


@pytest.mark.parametrize("field", ["truncation", "padding"])
def test_truncation_and_padding_of_the_wrong_type_are_refused(field: str) -> None:
    d = spec()
    d[field] = "yes"
    with pytest.raises(ValueError, match=field):
        load(d)


# ----- item 14: thread pools are bounded -----------------------------------


def live_threads() -> int:
    return len(os.listdir("/proc/self/task"))


# Past the size and count of small batches, which run inline (64 KiB, 64
# inputs): these run on pools.
POOLED = TEXTS * 1700


def test_many_thread_counts_do_not_pile_up_threads() -> None:
    tok = wp_bert()
    before = live_threads()
    for n in range(1, 41):
        tok.encode_batch(POOLED, num_threads=n)
        tok.encode_batch_flat(POOLED, num_threads=n)
    # At most four pools are kept; the others' workers exit when dropped.
    deadline = time.monotonic() + 10
    while live_threads() - before > 4 * 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_threads() - before <= 4 * 40
    # And a one-thread pool still works afterwards.
    assert tok.encode_batch(POOLED, num_threads=1)[0].ids == tok.encode(TEXTS[0]).ids


@pytest.mark.parametrize("n", [0, 10**6, 1025])
def test_absurd_thread_counts_are_refused(n: int) -> None:
    tok = wp_bert()
    started = time.monotonic()
    with pytest.raises(ValueError, match="num_threads"):
        tok.encode_batch(TEXTS, num_threads=n)
    with pytest.raises(ValueError, match="num_threads"):
        tok.encode_batch_flat(TEXTS, num_threads=n)
    with pytest.raises(ValueError, match="num_threads"):
        wpiece.train_from_iterator(["a b c"], 10, num_threads=n)
    assert time.monotonic() - started < 5


def test_threads_of_concurrent_callers_share_pools() -> None:
    tok = wp_bert()
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for _ in range(20):
                tok.encode_batch(POOLED, num_threads=n)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(1 + i % 6,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_small_batches_run_on_the_calling_thread_and_match_pooled_ones() -> None:
    """Handing a small batch to a pool worker cost more than encoding it:
    batches of at most 64 inputs under 64 KiB run on the caller's thread,
    so a fresh process that encodes only those in every batch form starts
    no thread, while 65 inputs go to a pool; and they give what the same
    texts give on a pool."""
    code = f"""
import os, wpiece, pyarrow as pa
tok = wpiece.Tokenizer.from_file({str(TOKENIZER_JSON)!r})
tok.no_truncation()
tok.no_padding()
texts = {TEXTS!r}
before = len(os.listdir("/proc/self/task"))
small = (
    tok.encode_batch_flat(texts, num_threads=2)[0].tolist(),
    [e.ids for e in tok.encode_batch(texts, num_threads=2)],
    [e.ids for e in tok.encode_batch([t.split() for t in texts], is_pretokenized=True)],
    tok.encode_arrow(pa.array(texts)).values.to_numpy().tolist(),
)
after = len(os.listdir("/proc/self/task"))
tok.encode_batch(["a"] * 65, num_threads=2)
pooled = len(os.listdir("/proc/self/task"))
print(repr((before, after, pooled, small)))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after, pooled, small = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    assert after == before, "a small batch started threads"
    assert pooled >= before + 2, "65 inputs did not go to a pool of two"
    tok = wp_bert()
    pooled = POOLED + TEXTS  # the same texts at the end of a pooled batch
    flat = tok.encode_batch_flat(pooled, num_threads=2)
    ids, rows = flat[0].tolist(), flat[1].tolist()
    tail = [ids[rows[i] : rows[i + 1]] for i in range(len(POOLED), len(pooled))]
    assert small[0] == [t for row in tail for t in row]
    assert small[1] == tail
    assert small[3] == small[0]
    words = tok.encode_batch([t.split() for t in pooled], is_pretokenized=True, num_threads=2)
    assert small[2] == [e.ids for e in words[len(POOLED) :]]
