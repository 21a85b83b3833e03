"""Every bad argument of the public API is refused with a message a user can
act on: it names the argument (or "item K of <argument>" for an item of a
list), states the accepted range where one applies, and is never one of
PyO3's conversion messages.

The cases are generated: each public callable lists its parameters with a
kind (bool, str, int in a range, list of str, paths, ids...), and each kind
lists the hostile values it must refuse: None, a str for an int, a float, a
bool for an int, negative ints, 2**64 and 10**30, bytes for str, a list
holding a non-str at index k, a dict, an object(). The CLI is tested apart
(test_cli_hostile.py).
"""

from __future__ import annotations

import inspect
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pytest
from bad_values import (
    MAX_THREADS,
    PIPELINES,
    U32_MAX,
    U64_MAX,
    Bad,
    added_tokens,
    arrays,
    bools,
    corpus,
    ids,
    ints,
    one_id,
    path,
    paths,
    str_list,
    strs,
    threads,
)

import wpiece
import wpiece.ray
import wpiece.spark

from conftest import TOKENIZER_JSON, VOCAB_TXT

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "##b"]

ALLOWED = (TypeError, ValueError, OverflowError)

# What PyO3 (and Python's own conversions behind it) say when an argument
# cannot be converted: none of it may reach a user.
PYO3_PHRASES = (
    "cannot be converted",
    "'NoneType' object cannot",
    "object cannot be interpreted as an integer",
    "PyString",
    "PyAny",
    "PyList",
    "PyBool",
    "PyTuple",
    "PyDict",
    "can't convert negative int to unsigned",
    "int too big to convert",
    "too large to convert to C",
    "Can't extract",
    "extract",
    # Python errors that surface when a bad value reaches code that assumed
    # a good one: they name no argument.
    "object is not iterable",
    "not supported between instances",
    "cannot unpack",
)
PYO3_ARGUMENT = re.compile(r"\bargument '\w+': ")  # PyO3's "argument 'x': ..." prefix


# ----- the public API ----------------------------------------------------------


def tok() -> wpiece.Tokenizer:
    return wpiece.Tokenizer(VOCAB)


def enc() -> Any:
    return tok().encode("a ab", "a")


def counts() -> wpiece.WordCounts:
    return wpiece.count_words(["a b a"])


class Frame:
    """Passes for a Spark DataFrame or a Ray Dataset; touching it is a bug
    (every bad argument must be refused before Spark or Ray is)."""

    columns = ["text"]

    def mapInArrow(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Spark reached with a bad argument")

    def map_batches(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Ray reached with a bad argument")


class FakeSpark:
    """Passes for a SparkSession; asking it anything is a bug."""

    def parallelize(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Spark reached with a bad argument")

    @property
    def defaultParallelism(self) -> int:  # noqa: N802 - Spark's name
        raise AssertionError("Spark reached with a bad argument")


# An output folder that does not exist, in one that does (never made: every
# case fails before a job starts).
OUT = str(Path(tempfile.gettempdir()) / "wpiece-messages-never-written")
PART_BYTES = [
    Bad("str", "3"),
    Bad("float", 1.5),
    Bad("bool", True),
    Bad("0", 0, range=("at least 1",)),
    Bad("-1", -1, range=("at least 1",)),
]
FANOUT = [
    Bad("None", None),
    Bad("float", 2.0),
    Bad("bool", True),
    Bad("1", 1, range=("at least 2",)),
]
PARQUET = {
    "tokenizer": [Bad("None", None), Bad("str", "bert"), Bad("object", object())],
    "path": path(),
    "add_special_tokens": bools(),
    "attention_mask": bools(),
    "offsets": bools(),
    "overwrite": bools(),
}
FILE_JOBS = {"files": paths(), "jsonl_field": strs(optional=True), "part_bytes": PART_BYTES}

COUNTING = {
    "normalize": bools(),
    "lowercase": bools(),
    "strip_accents": bools(optional=True),
    "clean_text": bools(),
    "handle_chinese_chars": bools(),
    "pre_tokenizer": strs(),
}
COUNTED = {**COUNTING, "tokenizer": [Bad("str", "tok.json"), Bad("int", 3), Bad("dict", {})]}
TOKENIZER_OPTIONS = {
    "unk_token": strs(),
    "continuing_subword_prefix": strs(),
    "max_input_chars_per_word": ints(),
    "unknown": strs(),
    **{k: v for k, v in COUNTING.items() if k != "normalize"},
}
TRAINING = {
    "vocab_size": ints(1),
    "min_frequency": ints(),
    "special_tokens": str_list(),
    "limit_alphabet": ints(optional=True),
    "initial_alphabet": [
        *(b for b in str_list() if b.label != "str"),  # a str is its characters
        Bad("item1-two-chars", ["a", "bc"], item=1),
    ],
    "continuing_subword_prefix": strs(),
    "end_of_word_suffix": strs(),
    "unk_token": strs(),
    "max_input_chars_per_word": ints(),
    "unknown": strs(),
    **COUNTING,
    "score": strs(),
    "fit": bools(),
    "show_progress": bools(),
}
# What training through a tokenizer's pipeline still takes as options.
THROUGH = ("min_frequency", "special_tokens", "limit_alphabet", "initial_alphabet", "score")

VOCAB_DICT = [
    Bad("dict-str-id", {"[UNK]": "0"}),
    Bad("dict-float-id", {"[UNK]": 0.0}),
    Bad("dict-None-id", {"[UNK]": None}),
    Bad("dict-int-token", {3: 0}, item=0),
]

# HF takes word indices as u32; None for sequence_index means the first.
ENCODING_INDEX = {"word_index": ints(0, 2**32 - 1), "sequence_index": ints(optional=True)}

Factory = Callable[..., Any]


@dataclass(frozen=True)
class Api:
    """A public callable: ``call(**{param: value})`` runs it with one bad
    argument (every other one valid); ``params`` maps each parameter to
    the hostile values of its kind."""

    label: str
    call: Factory
    params: dict[str, list[Bad]]


def api() -> list[Api]:
    t_json = str(TOKENIZER_JSON)

    def encoding(method: str, *params: str) -> Api:
        """An Encoding method; every parameter but the bad one is 0."""
        return Api(
            f"Encoding.{method}",
            lambda **kw: getattr(enc(), method)(**{**dict.fromkeys(params, 0), **kw}),
            {p: ENCODING_INDEX.get(p, ints()) for p in params},
        )

    return [
        # Tokenizer: construction and loading
        Api(
            "Tokenizer",
            lambda **kw: wpiece.Tokenizer(**{"vocab": VOCAB, **kw}),
            {
                "vocab": [*(b for b in str_list() if b.label != "dict"), *VOCAB_DICT],
                **TOKENIZER_OPTIONS,
                "normalize": bools(),
                "special_tokens": str_list(optional=True),
                "end_of_word_suffix": strs(),
            },
        ),
        Api(
            "Tokenizer.from_file(vocab.txt)",
            lambda **kw: wpiece.Tokenizer.from_file(**{"path": VOCAB_TXT, **kw}),
            {"path": path(), **TOKENIZER_OPTIONS},
        ),
        Api(
            "Tokenizer.from_file(tokenizer.json)",
            lambda **kw: wpiece.Tokenizer.from_file(t_json, **kw),
            TOKENIZER_OPTIONS,
        ),
        Api("Tokenizer.from_str", lambda **kw: wpiece.Tokenizer.from_str(**kw), {"json": strs()}),
        Api(
            "Tokenizer.from_hf",
            lambda **kw: wpiece.Tokenizer.from_hf(**kw),
            {"tokenizer": [Bad("None", None), Bad("str", "bert"), Bad("object", object())]},
        ),
        Api(
            "Tokenizer.train_new_from_iterator",
            lambda **kw: tok().train_new_from_iterator(
                **{"texts": ["a b"], "vocab_size": 20, **kw}
            ),
            {
                "texts": corpus(),
                "vocab_size": ints(1),
                "num_threads": threads(),
                **{k: TRAINING[k] for k in THROUGH},
            },
        ),
        Api("Tokenizer.save", lambda **kw: tok().save(**kw), {"path": path()}),
        # Tokenizer: settings
        Api(
            "Tokenizer.enable_truncation",
            lambda **kw: tok().enable_truncation(**{"max_length": 8, **kw}),
            {
                "max_length": ints(),
                "stride": ints(),
                "strategy": strs(),
                "direction": strs(),
            },
        ),
        Api(
            "Tokenizer.enable_padding",
            lambda **kw: tok().enable_padding(**kw),
            {
                "length": ints(optional=True),
                "pad_to_multiple_of": ints(optional=True),
                "pad_token": strs(),
                "pad_type_id": ints(hi=U32_MAX),
                "pad_id": ints(hi=U32_MAX, optional=True),
                "direction": strs(),
            },
        ),
        Api(
            "Tokenizer.decoder_cleanup",
            lambda decoder_cleanup: setattr(tok(), "decoder_cleanup", decoder_cleanup),
            {"decoder_cleanup": bools()},
        ),
        Api(
            "Tokenizer.encode_special_tokens",
            lambda encode_special_tokens: setattr(
                tok(), "encode_special_tokens", encode_special_tokens
            ),
            {"encode_special_tokens": bools()},
        ),
        Api(
            "Tokenizer.clean_up_tokenization_spaces",
            lambda clean_up_tokenization_spaces: setattr(
                tok(), "clean_up_tokenization_spaces", clean_up_tokenization_spaces
            ),
            {"clean_up_tokenization_spaces": bools()},
        ),
        # Tokenizer: encoding
        Api(
            "Tokenizer.encode",
            lambda **kw: tok().encode(**{"text": "a", **kw}),
            {"text": strs(), "pair": strs(optional=True), "add_special_tokens": bools()},
        ),
        Api(
            "Tokenizer.encode_batch",
            lambda **kw: tok().encode_batch(**{"texts": ["a", "ab"], **kw}),
            {
                "texts": str_list(),
                "pairs": str_list(optional=True),
                "add_special_tokens": bools(),
                "padding": [Bad("None", None), Bad("int", 3), Bad("str", "most")],
                "truncation": bools(optional=True),
                "max_length": ints(optional=True),
                "num_threads": threads(),
                "pad_to_multiple_of": ints(optional=True),
            },
        ),
        Api(
            "Tokenizer.encode_batch_numpy",
            lambda **kw: tok().encode_batch_numpy(**{"texts": ["a", "ab"], **kw}),
            {
                "texts": str_list(),
                "pairs": str_list(optional=True),
                "add_special_tokens": bools(),
                "padding": [Bad("None", None), Bad("int", 3), Bad("str", "most")],
                "truncation": bools(optional=True),
                "max_length": ints(optional=True),
                "num_threads": threads(),
                "return_word_ids": bools(),
                "pad_to_multiple_of": ints(optional=True),
            },
        ),
        Api(
            "Tokenizer.encode_batch_flat",
            lambda **kw: tok().encode_batch_flat(**{"texts": ["a", "ab"], **kw}),
            {
                "texts": str_list(),
                "add_special_tokens": bools(),
                "return_offsets": bools(),
                "return_word_ids": bools(),
                "num_threads": threads(),
            },
        ),
        Api(
            "Tokenizer.encode_arrow",
            lambda **kw: tok().encode_arrow(**{"array": pa.array(["a", "ab"]), **kw}),
            {
                "array": arrays(),
                "add_special_tokens": bools(),
                "return_offsets": bools(),
                "num_threads": threads(),
            },
        ),
        Api(
            "Tokenizer.encode_files",
            lambda **kw: tok().encode_files(**{"files": VOCAB_TXT, **kw}),
            {
                "files": paths(),
                "add_special_tokens": bools(),
                "separator": strs(),
                "jsonl_field": strs(optional=True),
                "num_threads": threads(),
                "mmap": bools(),
            },
        ),
        Api(
            "Tokenizer.stats",
            lambda **kw: tok().stats(**{"texts": ["a b"], **kw}),
            {
                "texts": [b for b in corpus() if b.label != "str"],  # one str is one document
                "num_threads": threads(),
            },
        ),
        Api("Tokenizer.tokenize", lambda **kw: tok().tokenize(**kw), {"text": strs()}),
        # Tokenizer: decoding and the vocabulary
        Api(
            "Tokenizer.decode",
            lambda **kw: tok().decode(**{"ids": [5, 6], **kw}),
            {"ids": ids(), "skip_special_tokens": bools()},
        ),
        Api(
            "Tokenizer.decode_batch",
            lambda **kw: tok().decode_batch(**{"sequences": [[5, 6]], **kw}),
            {
                "sequences": [
                    Bad("None", None),
                    Bad("str", "abc"),
                    Bad("int", 3),
                    Bad("object", object()),
                ],
                "skip_special_tokens": bools(),
            },
        ),
        Api("Tokenizer.token_to_id", lambda **kw: tok().token_to_id(**kw), {"token": strs()}),
        Api("Tokenizer.id_to_token", lambda **kw: tok().id_to_token(**kw), {"id": one_id()}),
        Api(
            "Tokenizer.get_vocab",
            lambda **kw: tok().get_vocab(**kw),
            {"with_added_tokens": bools()},
        ),
        Api(
            "Tokenizer.get_vocab_size",
            lambda **kw: tok().get_vocab_size(**kw),
            {"with_added_tokens": bools()},
        ),
        Api(
            "Tokenizer.add_tokens", lambda **kw: tok().add_tokens(**kw), {"tokens": added_tokens()}
        ),
        Api(
            "Tokenizer.add_special_tokens",
            lambda **kw: tok().add_special_tokens(**kw),
            {"tokens": added_tokens()},
        ),
        Api(
            "AddedToken",
            lambda **kw: wpiece.AddedToken(**{"content": "<x>", **kw}),
            {
                "content": strs(),
                "single_word": bools(),
                "lstrip": bools(),
                "rstrip": bools(),
                "normalized": bools(optional=True),
                "special": bools(),
            },
        ),
        # Encoding (the Rust class itself)
        encoding("char_to_token", "char_pos", "sequence_index"),
        encoding("char_to_word", "char_pos", "sequence_index"),
        encoding("token_to_chars", "token_index"),
        encoding("token_to_word", "token_index"),
        encoding("token_to_sequence", "token_index"),
        encoding("word_to_tokens", "word_index", "sequence_index"),
        encoding("word_to_chars", "word_index", "sequence_index"),
        # Counting
        Api(
            "count_words",
            lambda **kw: wpiece.count_words(**{"source": ["a b"], **kw}),
            {
                "source": [
                    *(b for b in corpus() if b.label not in ("str", "bytes")),  # a str is a path
                    Bad("bytes", b"a b"),
                ],
                "num_threads": threads(),
                **COUNTED,
            },
        ),
        Api(
            "count_words(path)",
            lambda **kw: wpiece.count_words(VOCAB_TXT, **kw),
            {"jsonl_field": strs(optional=True)},
        ),
        Api(
            "WordCounts",
            lambda **kw: wpiece.WordCounts(**kw),
            {**COUNTED, "num_threads": threads()},
        ),
        Api("WordCounts.add_texts", lambda **kw: counts().add_texts(**kw), {"texts": corpus()}),
        Api(
            "WordCounts.add_files",
            lambda **kw: counts().add_files(**{"files": VOCAB_TXT, **kw}),
            {"files": paths(), "jsonl_field": strs(optional=True)},
        ),
        Api("WordCounts.add_arrow", lambda **kw: counts().add_arrow(**kw), {"array": arrays()}),
        Api(
            "WordCounts.__getitem__",
            lambda word: counts()[word],
            {"word": [Bad("None", None), Bad("bytes", b"a"), Bad("int", 3)]},
        ),
        Api(
            "WordCounts.most_common",
            lambda **kw: counts().most_common(**kw),
            {
                "n": [
                    Bad("str", "3"),
                    Bad("float", 1.5),
                    Bad("bool", True),
                    Bad("-1", -1, range=("non-negative",)),
                ]
            },
        ),
        Api(
            "WordCounts.prune",
            lambda **kw: counts().prune(**kw),
            {
                "min_count": [
                    Bad("None", None),
                    Bad("str", "3"),
                    Bad("float", 1.5),
                    Bad("bool", True),
                    Bad("-1", -1, range=("non-negative",)),
                ]
            },
        ),
        Api(
            "WordCounts.update",
            lambda **kw: counts().update(**kw),
            {"other": [Bad("None", None), Bad("dict", {"a": 1}), Bad("object", object())]},
        ),
        Api("WordCounts.save", lambda **kw: counts().save(**kw), {"path": path()}),
        Api("WordCounts.load", lambda **kw: wpiece.WordCounts.load(**kw), {"path": path()}),
        Api(
            "WordCounts.from_bytes",
            lambda **kw: wpiece.WordCounts.from_bytes(**kw),
            {"data": [Bad("None", None), Bad("str", "wpcounts"), Bad("int", 3)]},
        ),
        # Training
        Api(
            "TrainingOptions",
            lambda **kw: wpiece.TrainingOptions(**kw),
            TRAINING,
        ),
        Api(
            "train_from_iterator",
            lambda **kw: wpiece.train_from_iterator(**{"texts": ["a b"], **kw}),
            {
                "texts": corpus(),
                **TRAINING,
                "held_out": [Bad("None", None), Bad("str", "0.1"), Bad("bool", True)]
                + [Bad(str(v), v, range=("at least 0", "below 1")) for v in (1, -0.5)],
                "num_threads": threads(),
                **PIPELINES,
            },
        ),
        Api(
            "train",
            lambda **kw: wpiece.train(**{"files": VOCAB_TXT, "vocab_size": 50, **kw}),
            {
                "files": paths(),
                "vocab_size": ints(1),
                "jsonl_field": strs(optional=True),
                "num_threads": threads(),
                "special_tokens": str_list(),
                "lowercase": bools(),
                **PIPELINES,
            },
        ),
        Api(
            "train_from_counts",
            lambda **kw: wpiece.train_from_counts(**{"counts": {"a": 2}, **kw}),
            {
                "counts": [
                    Bad("None", None),
                    Bad("str", "abc"),
                    Bad("int", 3),
                    Bad("object", object()),
                    Bad("item1-int", [("a", 1), 3], item=1),
                    Bad("item0-triple", [("a", 1, 2)], item=0),
                    Bad("str-count", {"a": "3"}),
                    Bad("float-count", {"a": 1.0}),
                    Bad("bool-count", {"a": True}),
                    Bad("int-word", {3: 1}),
                    Bad("negative", {"a": -1}, range=("at least 0", f"at most {U64_MAX}")),
                    Bad("2**64", {"a": 2**64}, range=("at least 0", f"at most {U64_MAX}")),
                ],
                "vocab_size": ints(1),
                "special_tokens": str_list(),
                "score": strs(),
                **PIPELINES,
            },
        ),
        Api(
            "TrainingRecord",
            lambda **kw: wpiece.TrainingRecord.from_dict(**kw),
            {"data": [Bad("None", None), Bad("list", [1]), Bad("str", "{}")]},
        ),
        Api(
            "TrainingRecord.save",
            lambda **kw: wpiece.train_from_iterator(["a b"], 20).training_record.save(**kw),
            {"path": path()},
        ),
        Api(
            "TrainingRecord.load",
            lambda **kw: wpiece.TrainingRecord.load(**kw),
            {"path": path()},
        ),
        # Spark and Ray: every argument is checked before either is touched
        Api(
            "spark.count_words",
            lambda **kw: wpiece.spark.count_words(**{"df": Frame(), **kw}),
            {
                "df": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                "column": strs(),
                **COUNTED,
            },
        ),
        Api(
            "spark.encode",
            lambda **kw: wpiece.spark.encode(**{"df": Frame(), "tokenizer": tok(), **kw}),
            {
                "df": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                "tokenizer": [Bad("None", None), Bad("str", "bert"), Bad("object", object())],
                "column": strs(),
                "output": strs(),
                "add_special_tokens": bools(),
            },
        ),
        Api(
            "ray.count_words",
            lambda **kw: wpiece.ray.count_words(**{"dataset": Frame(), **kw}),
            {
                "dataset": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                "column": strs(),
                **COUNTED,
            },
        ),
        Api(
            "ray.encode",
            lambda **kw: wpiece.ray.encode(**{"dataset": Frame(), "tokenizer": tok(), **kw}),
            {
                "dataset": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                "tokenizer": [Bad("None", None), Bad("str", "bert"), Bad("object", object())],
                "column": strs(),
                "output": strs(),
                "add_special_tokens": bools(),
            },
        ),
        # Files on a cluster: every argument is checked before the engine is asked anything
        Api(
            "spark.count_files",
            lambda **kw: wpiece.spark.count_files(
                **{"spark": FakeSpark(), "files": VOCAB_TXT, **kw}
            ),
            {
                "spark": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                **FILE_JOBS,
                "fanout": FANOUT,
                **COUNTED,
            },
        ),
        Api(
            "ray.count_files",
            lambda **kw: wpiece.ray.count_files(**{"files": VOCAB_TXT, **kw}),
            {**FILE_JOBS, "fanout": FANOUT, **COUNTED},
        ),
        Api(
            "spark.encode_files_to_parquet",
            lambda **kw: wpiece.spark.encode_files_to_parquet(
                **{"spark": FakeSpark(), "files": VOCAB_TXT, "tokenizer": tok(), "path": OUT, **kw}
            ),
            {
                "spark": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                **FILE_JOBS,
                **PARQUET,
            },
        ),
        Api(
            "ray.encode_files_to_parquet",
            lambda **kw: wpiece.ray.encode_files_to_parquet(
                **{"files": VOCAB_TXT, "tokenizer": tok(), "path": OUT, **kw}
            ),
            {**FILE_JOBS, **PARQUET},
        ),
        Api(
            "spark.encode_to_parquet",
            lambda **kw: wpiece.spark.encode_to_parquet(
                **{"df": Frame(), "tokenizer": tok(), "path": OUT, **kw}
            ),
            {
                "df": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                "column": strs(),
                **PARQUET,
            },
        ),
        Api(
            "ray.encode_to_parquet",
            lambda **kw: wpiece.ray.encode_to_parquet(
                **{"dataset": Frame(), "tokenizer": tok(), "path": OUT, **kw}
            ),
            {
                "dataset": [Bad("None", None), Bad("list", ["a"]), Bad("object", object())],
                "column": strs(),
                **PARQUET,
            },
        ),
    ]


def cases() -> Iterator[Any]:
    for a in api():
        for param, values in a.params.items():
            for bad in values:
                yield pytest.param(a.call, param, bad, id=f"{a.label}-{param}={bad.label}")


CASES = list(cases())


def names(message: str, param: str) -> bool:
    """Whether ``message`` names ``param`` as a word ("text" is not in "texts")."""
    return re.search(rf"(?<!\w){re.escape(param)}(?!\w)", message) is not None


@pytest.mark.filterwarnings("ignore::UserWarning")  # a tiny vocab_size warns, if it runs
@pytest.mark.parametrize("call, param, bad", CASES)
def test_a_bad_argument_is_named_with_its_range(call: Factory, param: str, bad: Bad) -> None:
    try:
        result = call(**{param: bad.value})
    except ALLOWED as e:
        message = str(e)
    else:
        pytest.fail(f"{param}={bad.value!r} was accepted (returned {result!r})")
    leaked = [p for p in PYO3_PHRASES if p in message]
    assert not leaked and not PYO3_ARGUMENT.search(message), message
    assert names(message, param), f"{message!r} does not name {param!r}"
    if bad.item is not None:
        assert re.search(rf"\bitem {bad.item}\b", message), f"{message!r} has no item {bad.item}"
    for bound in bad.range:
        assert bound in message, f"{message!r} does not state {bound!r}"


# Public names with no argument to get wrong, or not called by users.
NOT_CALLED = {
    "BERT_SPECIAL_TOKENS",  # a constant
    "UnsupportedComponentError",  # an exception
    "Encoding",  # made by encode; its methods are in the table
    "Merge",  # a record that training returns
    "MergeList",  # training's record of merges (its own checks: test_train.py)
    "sample_text_path",  # no arguments
    "sample_vocab_path",
}
NO_ARGUMENTS = {
    "Tokenizer": {"to_json", "to_transformers", "no_truncation", "no_padding"}
    | {"get_added_tokens_decoder"},
    "WordCounts": {"items", "total", "copy", "to_bytes"},
    "Encoding": set(),
}


def public_members(cls: type) -> set[str]:
    """The public methods of ``cls`` and its properties that can be set."""

    def takes_arguments(member: object) -> bool:
        if isinstance(member, property):
            return member.fset is not None
        return inspect.isroutine(member) or isinstance(member, (classmethod, staticmethod))

    return {n for n, m in vars(cls).items() if not n.startswith("_") and takes_arguments(m)}


def test_the_table_covers_the_public_api() -> None:
    # Every public callable has cases: one added to the API needs a row here.
    labels = {a.label.split("(")[0] for a in api()}
    assert set(wpiece.__all__) - NOT_CALLED <= labels, sorted(set(wpiece.__all__) - labels)
    for cls in (wpiece.Tokenizer, wpiece.WordCounts, wpiece.Encoding):
        name = cls.__name__
        tested = {label.removeprefix(f"{name}.") for label in labels if label.startswith(name)}
        missing = public_members(cls) - NO_ARGUMENTS[name] - tested
        assert not missing, (name, sorted(missing))
    for module in (wpiece.spark, wpiece.ray):
        short = module.__name__.removeprefix("wpiece.")
        assert {f"{short}.{f}" for f in module.__all__} <= labels
    assert len(CASES) > 900, len(CASES)


def test_valid_unusual_values_are_still_accepted() -> None:
    # The checks refuse what is wrong, not what is unusual but right.
    t = tok()
    assert t.encode("a", add_special_tokens=np.True_).ids == t.encode("a").ids
    assert t.decode(np.array([5, 6], dtype=np.uint32)) == t.decode([5, 6])
    assert t.id_to_token(np.int64(5)) == "a"
    assert len(t.decode_batch(((5,), [6]))) == 2
    t.enable_truncation(np.int64(8), stride=0)
    t.enable_padding(length=None, pad_id=0, pad_type_id=U32_MAX)
    assert len(t.encode_batch(("a", "ab"), max_length=0, truncation=False)) == 2
    assert t.encode_batch(["a"], num_threads=MAX_THREADS)[0].ids == t.encode("a").ids
    assert t.get_vocab_size(np.False_) == len(VOCAB)
    opts = wpiece.TrainingOptions(initial_alphabet="xyz", vocab_size=np.int64(40))
    assert opts.initial_alphabet == ("x", "y", "z")
    assert wpiece.WordCounts(strip_accents=None, num_threads=1).options["strip_accents"] is None
    assert wpiece.train_from_counts([["ab", 3], ("a", 1)], 10, special_tokens=["[UNK]"])
    assert wpiece.count_words([VOCAB_TXT]).total() > 0
    assert wpiece.Tokenizer({"[UNK]": np.int64(0), "a": 1}).get_vocab() == {"[UNK]": 0, "a": 1}
