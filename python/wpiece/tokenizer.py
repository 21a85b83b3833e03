"""The `Tokenizer`: load a WordPiece vocabulary, encode and decode text.

Why this file is long: it is the public class, one method per operation a
user calls (load, save, settings, four ways to encode, decode, stats), each
with its typed signature and a docstring that carries a runnable example;
the work itself is one call into the Rust core per method.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from . import _core, persistence, transformers_bridge, transformers_folder
from ._args import (
    _U32_MAX,
    _U64_MAX,
    Padding,
    PreTokenizer,
    UnknownMode,
    _batch_texts,
    _batch_words,
    _check_bools,
    _check_call,
    _check_files_call,
    _check_id,
    _check_int,
    _check_options,
    _check_str,
    _check_threads,
    _checked_options,
    _flag,
    _path,
    _special_tokens,
    _str_list,
    _text,
    _vocab_list,
    _words,
)
from ._core import Encoding
from .added_tokens import AddedToken, TokenLike, _from_spec, _specs, _warn_shared_patterns
from .decoding import Decoding
from .documents import Files, PathLike, path_items, require_field, resolve_files
from .quality import TextStats
from .trainer import train_through
from .transformers_bridge import per_call as _per_call

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Tokenizer", "Encoding", "BERT_SPECIAL_TOKENS"]


BERT_SPECIAL_TOKENS: tuple[str, ...] = _core.BERT_SPECIAL_TOKENS
"""BERT's special tokens in their conventional order (defined in the core)."""

_OPTION_NAMES = (
    "unk_token",
    "continuing_subword_prefix",
    "max_input_chars_per_word",
    "unknown",
    "lowercase",
    "strip_accents",
    "clean_text",
    "handle_chinese_chars",
    "pre_tokenizer",
)


class Tokenizer(Decoding):
    """A BERT-compatible WordPiece tokenizer with a Rust core.

    Build it from tokens (index = id), or load a ``vocab.txt`` or HF
    ``tokenizer.json`` with :meth:`from_file`. Loading a bare vocab behaves like
    HF's ``BertWordPieceTokenizer``: the BERT special tokens present in the vocab
    are split out of raw text and skipped by :meth:`decode`, and inputs are
    framed as ``[CLS] A [SEP]`` / ``[CLS] A [SEP] B [SEP]``.

    >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hug", "##ging", "!"])
    >>> tok.encode("Hugging!").tokens
    ['[CLS]', 'hug', '##ging', '!', '[SEP]']
    >>> tok.decode(tok.encode("Hugging!").ids)
    'hugging!'
    """

    def __init__(
        self,
        vocab: Union[Sequence[str], Mapping[str, int]],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
        unknown: UnknownMode = "word",
        normalize: bool = True,
        lowercase: bool = True,
        strip_accents: Optional[bool] = None,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        pre_tokenizer: PreTokenizer = "bert",
        special_tokens: Optional[Sequence[str]] = None,
        end_of_word_suffix: str = "",
    ) -> None:
        core = _core.Tokenizer(
            _vocab_list(vocab),
            special_tokens=_special_tokens(special_tokens),
            **_checked_options(
                unk_token=unk_token,
                continuing_subword_prefix=continuing_subword_prefix,
                max_input_chars_per_word=max_input_chars_per_word,
                unknown=unknown,
                normalize=normalize,
                lowercase=lowercase,
                strip_accents=strip_accents,
                clean_text=clean_text,
                handle_chinese_chars=handle_chinese_chars,
                pre_tokenizer=pre_tokenizer,
                end_of_word_suffix=end_of_word_suffix,
            ),
        )
        self._init_from_core(core)

    def _init_from_core(self, core: _core.Tokenizer) -> None:
        self._core = core
        self.training_record: Optional[Any] = None
        self._transformers_settings: dict[str, Any] = {}  # see to_transformers
        _warn_shared_patterns(core, known=[])

    @classmethod
    def _from_core(cls, core: _core.Tokenizer) -> Tokenizer:
        tok = cls.__new__(cls)
        tok._init_from_core(core)
        return tok

    @classmethod
    def from_file(cls, path: PathLike, **options: Any) -> Tokenizer:
        """Loads ``vocab.txt``, an HF ``tokenizer.json``, or a folder holding either
        (or a folder :meth:`save` wrote with ``wpiece_tokenizer.json``); a
        folder's ``tokenizer_config.json`` is read as transformers reads it
        (see :mod:`wpiece.transformers_folder`).

        Keyword options override what the file says: ``lowercase``,
        ``strip_accents``, ``clean_text``, ``handle_chinese_chars``,
        ``unk_token``, ``continuing_subword_prefix``, ``max_input_chars_per_word``,
        ``unknown`` (``"word"`` or ``"char"``), ``pre_tokenizer``
        (``"bert"`` or ``"whitespace"``).

        >>> import wpiece
        >>> tok = Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> tok.tokenize("Tokenizers are fun.")
        ['token', '##izer', '##s', 'are', 'fun', '.']
        """
        unknown_options = set(options) - set(_OPTION_NAMES)
        if unknown_options:
            raise TypeError(f"unknown options: {sorted(unknown_options)}")
        _check_options(options)
        where = _path(path)
        (found, paired), folder = persistence.load(where, options), where.is_dir()
        implied: dict[str, Any] = {}  # by its tokenizer.json: see own_settings
        if not isinstance(found, Path):
            found = transformers_folder.over_tokenizer_json(where, paired, found)
            implied = transformers_folder.own_settings(where, paired, found)
            tok = cls._from_core(found)
            flags = transformers_folder.call_flags(where, paired) if folder else None
            if flags is not None:
                tok.encode_special_tokens, tok.clean_up_tokenization_spaces = flags
        else:
            config = transformers_folder.folder_config(found, given_folder=folder)
            tok = cls(config.vocab, **{**config.options, **options})
            tok._core.add_tokens(config.added)
            _warn_shared_patterns(tok._core, known=[])
            tok.clean_up_tokenization_spaces = config.clean_up
            tok.encode_special_tokens = config.split_special_tokens
        if folder:
            tok._transformers_settings = transformers_folder.call_settings(where, paired, implied)
        return tok

    @classmethod
    def from_str(cls, json: str) -> Tokenizer:
        """A tokenizer from the text of an HF ``tokenizer.json`` (as
        ``tokenizers.Tokenizer.from_str``); components wpiece cannot honour
        exactly raise ``UnsupportedComponentError`` naming them.

        >>> import wpiece
        >>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> Tokenizer.from_str(tok.to_json()).encode("Hi!").ids == tok.encode("Hi!").ids
        True
        """
        _check_str(json, "json")
        return cls._from_core(_core.Tokenizer.from_json(json))

    @classmethod
    def from_hf(cls, tokenizer: Any) -> Tokenizer:
        """The same tokenizer, from a ``tokenizers.Tokenizer`` or a transformers
        fast tokenizer (e.g. ``BertTokenizerFast``) with a WordPiece model, read
        through its ``tokenizer.json`` form (a component wpiece cannot honour
        exactly raises ``UnsupportedComponentError`` naming it). A
        ``tokenizers.Tokenizer`` gives its truncation and padding; a
        transformers one, which truncates and pads per call, none (whatever
        its last call left on its backend) but what :meth:`to_transformers`
        kept in its config, and its sides, ``model_max_length`` and
        ``model_input_names`` for :meth:`to_transformers`. Special tokens
        typed in a text stay text if they did (:attr:`encode_special_tokens`).

        >>> from tokenizers import BertWordPieceTokenizer
        >>> import wpiece
        >>> hf = BertWordPieceTokenizer(str(wpiece.sample_vocab_path()))._tokenizer
        >>> tok = Tokenizer.from_hf(hf)
        >>> tok.encode("Hello, WordPiece!").ids == hf.encode("Hello, WordPiece!").ids
        True
        """
        tok = cls._from_core(transformers_bridge.core_from_hf(tokenizer))
        tok.clean_up_tokenization_spaces = transformers_bridge.cleans_up_spaces(tokenizer)
        tok._transformers_settings = transformers_bridge.call_settings_of(tokenizer)
        return tok

    def train_new_from_iterator(
        self,
        texts: Iterable[str],
        vocab_size: int = 30522,
        *,
        num_threads: Optional[int] = None,
        **options: Any,
    ) -> Tokenizer:
        """A tokenizer with this one's pipeline (normalizers, pre-tokenizers,
        special tokens, post-processor, decoder, truncation and padding) and a
        vocabulary trained on ``texts``, whose words are counted through that
        same pipeline, as transformers' method of this name does. ``options``
        are the training options of :func:`wpiece.train_from_iterator` other
        than the ones the pipeline fixes (normalizer, pre-tokenizer, unknown
        token, prefix); ``special_tokens`` defaults to this tokenizer's.

        >>> from tokenizers import Tokenizer as HF, decoders, models, normalizers, pre_tokenizers
        >>> hf = HF(models.WordPiece({"[UNK]": 0}, unk_token="[UNK]"))
        >>> hf.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()])
        >>> hf.pre_tokenizer = pre_tokenizers.Whitespace()
        >>> hf.decoder = decoders.WordPiece()
        >>> tok = Tokenizer.from_hf(hf).train_new_from_iterator(["Café au lait, café!"], 40)
        >>> tok.tokenize("Café, cafe!")  # accents stripped, case kept, as the pipeline says
        ['Cafe', ',', 'cafe', '!']
        """
        core, record = train_through(self._core, texts, vocab_size, num_threads, options)
        new = type(self)._from_core(core)
        new.training_record = record
        new.clean_up_tokenization_spaces = self.clean_up_tokenization_spaces
        new._transformers_settings = dict(self._transformers_settings)
        return new

    # ----- persistence -------------------------------------------------

    def save(self, path: PathLike) -> None:
        """Saves as HF ``tokenizer.json`` (path ending in ``.json``), as ``vocab.txt`` (any
        other file name with a suffix), or both into a folder (an existing folder or a path
        without suffix), with ``training_record.json`` when the tokenizer was trained and the
        ``tokenizer_config.json`` that makes ``AutoTokenizer.from_pretrained(folder)``
        :meth:`to_transformers`'s tokenizer (read back by :meth:`from_file`).

        Each file is written to a temporary name and renamed (a replaced file keeps its mode; a
        symlink's target is replaced). A folder is a set: every new file is written first (a
        full disk leaves the old set), then renamed into place, ``tokenizer.json`` last, and the
        old set's files the new one lacks (a training report, a ``special_tokens_map.json``) are
        removed (an old config's chat template, the model's, is kept): the folder loads as the
        old tokenizer or the new one (the config names its tokenizer.json's digest:
        :meth:`from_file` waits out a save between the two renames, warns of one cut off there).
        A tokenizer ``tokenizer.json`` cannot express (per-character unknowns, an end-of-word
        suffix) is saved whole as ``wpiece_tokenizer.json`` (and a ``vocab.txt``), which
        :meth:`from_file` reads back. A token no ``vocab.txt`` line can hold (a line break,
        trailing whitespace) leaves ``vocab.txt`` out of a folder, and saving as a ``vocab.txt``
        file is then a ``ValueError``.

        >>> import tempfile, os
        >>> tok = Tokenizer(["[UNK]", "a", "##b"])
        >>> d = tempfile.mkdtemp()
        >>> tok.save(os.path.join(d, "tokenizer.json"))
        >>> Tokenizer.from_file(os.path.join(d, "tokenizer.json")).tokenize("ab")
        ['a', '##b']
        """
        persistence.save_tokenizer(self, _path(path))

    def to_json(self) -> str:
        """The HF ``tokenizer.json`` text of this tokenizer (raises
        ``UnsupportedComponentError`` for per-character unknowns or an
        end-of-word suffix, which that format cannot express)."""
        return self._core.to_json()

    def to_transformers(self, **options: Any) -> Any:
        """A ``transformers.PreTrainedTokenizerFast`` that tokenizes exactly like
        this tokenizer (needs ``transformers``). It declares this tokenizer's
        special tokens (``cls_token`` and ``sep_token`` as its post-processor
        frames an input), its truncation as ``model_max_length`` and its
        sides, unless set since it came from a transformers folder or
        tokenizer that said otherwise (then those, and ``model_input_names``);
        ``options`` over all, e.g. ``model_input_names`` (DistilBERT's take
        no ``token_type_ids``), as a model's ``tokenizer_config.json`` gives.

        >>> import wpiece
        >>> tok = Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> tok.to_transformers()("Hello, world!")["input_ids"]
        [101, 7592, 1010, 2088, 999, 102]
        >>> sorted(tok.to_transformers(model_input_names=["input_ids", "attention_mask"])("Hi"))
        ['attention_mask', 'input_ids']
        """
        return transformers_bridge.to_transformers(self, options)

    def __getstate__(self) -> dict[str, Any]:
        calls, record = self._transformers_settings, self.training_record
        state = {"training_record": record, "clean_up": self.clean_up_tokenization_spaces}
        return {**persistence.state(self._core), **state, "transformers_settings": calls}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._init_from_core(persistence.core_from_state(state))
        self.training_record = state["training_record"]
        self.clean_up_tokenization_spaces = state.get("clean_up", False)
        self._transformers_settings = dict(state.get("transformers_settings", {}))

    # ----- settings ----------------------------------------------------

    def enable_truncation(
        self,
        max_length: int,
        stride: int = 0,
        strategy: str = "longest_first",
        direction: str = "right",
    ) -> None:
        """Truncate encodings to ``max_length`` tokens (special tokens included),
        as HF ``tokenizers`` does: ``strategy`` (``longest_first``,
        ``only_first``, ``only_second``) says which of a pair is cut,
        ``direction`` (``right`` or ``left``) which end. What is cut comes
        back as ``Encoding.overflowing`` parts that repeat ``stride`` tokens
        of the part before them.

        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "c"])
        >>> tok.enable_truncation(4, stride=1)
        >>> enc = tok.encode("a b c a")
        >>> enc.tokens, [o.tokens for o in enc.overflowing]
        (['[CLS]', 'a', 'b', '[SEP]'], [['[CLS]', 'b', 'c', '[SEP]'], ['[CLS]', 'c', 'a', '[SEP]']])
        """
        _check_int(max_length, "max_length", upper=_U64_MAX)
        _check_int(stride, "stride", upper=_U64_MAX)
        _check_str(strategy, "strategy")
        _check_str(direction, "direction")
        _core.check_names(truncation_strategy=strategy, truncation_direction=direction)
        self._core.set_truncation(
            {
                "max_length": int(max_length),
                "stride": int(stride),
                "strategy": strategy,
                "direction": direction,
            },
            check_stride=True,
        )
        self._forget_transformers("model_max_length", "truncation_side")

    def no_truncation(self) -> None:
        """Turn truncation off."""
        self._core.set_truncation(None)
        self._forget_transformers("model_max_length", "truncation_side")

    def _forget_transformers(self, *keys: str) -> None:
        """Settings set here since replace those of the folder it came from."""
        kept = self._transformers_settings
        self._transformers_settings = {k: v for k, v in kept.items() if k not in keys}

    @property
    def truncation(self) -> Optional[dict[str, Any]]:
        """The truncation settings, or None."""
        t = self._core.truncation
        return None if t is None else dict(t)

    def enable_padding(
        self,
        length: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
        pad_token: str = "[PAD]",
        pad_type_id: int = 0,
        pad_id: Optional[int] = 0,
        direction: str = "right",
    ) -> None:
        """Pad batches to the longest encoding, or to ``length``, on the
        ``direction`` side (``right`` or ``left``).

        Padding tokens get ``pad_id`` and the string ``pad_token``. As in HF
        ``tokenizers``, ``pad_id`` is 0 unless given, whatever ``pad_token``
        is: pass both (or ``pad_id=None``, the id of ``pad_token`` in this
        vocabulary). A length that memory cannot hold raises ``MemoryError``
        when encoding, never an abort.

        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
        >>> tok.enable_padding(length=5)
        >>> tok.encode("a").ids
        [2, 4, 3, 0, 0]
        """
        _check_int(length, "length", optional=True, upper=_U64_MAX)
        _check_int(pad_to_multiple_of, "pad_to_multiple_of", optional=True, upper=_U64_MAX)
        _check_int(pad_type_id, "pad_type_id", upper=_U32_MAX)
        _check_int(pad_id, "pad_id", optional=True, upper=_U32_MAX)
        _check_str(pad_token, "pad_token")
        _core.check_names(padding_direction=_text(direction, "direction"))
        self._core.set_padding(
            {
                "length": length,
                "pad_to_multiple_of": pad_to_multiple_of,
                "pad_id": pad_id,
                "pad_token": pad_token,
                "pad_type_id": pad_type_id,
                "direction": direction,
            }
        )
        self._forget_transformers("padding_side", "pad_token")

    def no_padding(self) -> None:
        """Turn padding off."""
        self._core.set_padding(None)
        self._forget_transformers("padding_side", "pad_token")

    @property
    def padding(self) -> Optional[dict[str, Any]]:
        """The padding settings (``pad_id`` resolved), or None."""
        p = self._core.padding
        return None if p is None else dict(p)

    @property
    def settings(self) -> dict[str, Any]:
        """Model, normalizer and pre-tokenizer settings."""
        return dict(self._core.settings())

    # ----- encoding ----------------------------------------------------

    def encode(
        self,
        text: Union[str, Sequence[str]],
        pair: Optional[Union[str, Sequence[str]]] = None,
        add_special_tokens: bool = True,
        is_pretokenized: bool = False,
    ) -> Encoding:
        """Encodes one text (or a pair) into an :class:`Encoding`. With
        ``is_pretokenized`` (HF's; transformers' ``is_split_into_words``),
        ``text`` and ``pair`` are lists of words, each encoded on its own:
        word ids are the list's indices, offsets count from each word's start.

        >>> import wpiece
        >>> tok = Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> enc = tok.encode("Hello, world!")
        >>> enc.tokens
        ['[CLS]', 'hello', ',', 'world', '!', '[SEP]']
        >>> enc.offsets[1:3]
        [(0, 5), (5, 6)]
        >>> tok.encode(["Hello,", "world"], is_pretokenized=True).word_ids
        [None, 0, 0, 1, None]
        """
        add = _flag(add_special_tokens, "add_special_tokens")
        if _flag(is_pretokenized, "is_pretokenized"):
            pair_words = None if pair is None else _words(pair, "pair")
            return self._core.encode_words(_words(text, "text"), pair_words, add)
        _check_str(text, "text")
        _check_str(pair, "pair", optional=True)
        return self._core.encode(cast(str, text), cast(Optional[str], pair), add)

    def encode_batch(
        self,
        texts: Sequence[Any],
        pairs: Optional[Sequence[Any]] = None,
        add_special_tokens: bool = True,
        *,
        padding: Padding = False,
        truncation: Optional[bool] = None,
        max_length: Optional[int] = None,
        num_threads: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
        is_pretokenized: bool = False,
    ) -> list[Encoding]:
        """Encodes many texts in parallel (the GIL is released).

        ``padding`` (``True``/``"longest"`` or ``"max_length"``), ``truncation``,
        ``max_length`` and ``pad_to_multiple_of`` (0: none) apply to this call
        only; what a call does not give comes from the tokenizer's own settings
        (:meth:`enable_padding`, :meth:`enable_truncation`); one read from
        transformers pads and cuts such a call as transformers does. Every batch form
        (these objects, :meth:`encode_batch_numpy`, :meth:`encode_batch_flat`,
        :meth:`encode_arrow`, :meth:`encode_files`, Spark and Ray) pads by that
        one rule, as HF pads its ``Encoding`` objects.
        ``num_threads`` caps the worker threads (default: ``RAYON_NUM_THREADS``,
        else one per core); results never depend on it. With
        ``is_pretokenized``, each text and pair is a list of words, as in
        :meth:`encode`.

        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
        >>> [e.ids for e in tok.encode_batch(["a", "a a"], padding=True)]
        [[2, 4, 3, 0], [2, 4, 4, 3]]
        """
        _check_call(truncation, max_length, num_threads, pad_to_multiple_of)
        add = _flag(add_special_tokens, "add_special_tokens")
        asked = (padding, truncation, max_length, pad_to_multiple_of)
        carried, padding, truncation, pad_to_multiple_of = _per_call(self, *asked)
        settings = (padding, truncation, max_length, num_threads, pad_to_multiple_of)
        if _flag(is_pretokenized, "is_pretokenized"):
            words, pair_words = _batch_words(texts, pairs)
            return self._core.encode_batch(words, pair_words, add, *settings, True, carried)
        text_list, pair_list = _batch_texts(texts, pairs)
        return self._core.encode_batch(text_list, pair_list, add, *settings, False, carried)

    def encode_batch_numpy(
        self,
        texts: Sequence[str],
        pairs: Optional[Sequence[str]] = None,
        add_special_tokens: bool = True,
        *,
        padding: Padding = False,
        truncation: Optional[bool] = None,
        max_length: Optional[int] = None,
        num_threads: Optional[int] = None,
        return_word_ids: bool = False,
        pad_to_multiple_of: Optional[int] = None,
    ) -> dict[str, np.ndarray]:
        """Encodes a batch into padded 2-D int64 numpy arrays: ``input_ids``,
        ``attention_mask``, ``token_type_ids`` and ``special_tokens_mask``
        (and ``word_ids``, -1 where a token has no word, with
        ``return_word_ids``). Padded as :meth:`encode_batch` pads, and to the
        longest row when no padding is set or asked for (an array needs it).

        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
        >>> out = tok.encode_batch_numpy(["a", "a a a"], max_length=4, truncation=True)
        >>> out["input_ids"].tolist()
        [[2, 4, 3, 0], [2, 4, 4, 3]]
        >>> out["attention_mask"].tolist()
        [[1, 1, 1, 0], [1, 1, 1, 1]]
        """
        text_list, pair_list = _batch_texts(texts, pairs)
        _check_call(truncation, max_length, num_threads, pad_to_multiple_of)
        add = _flag(add_special_tokens, "add_special_tokens")
        words = _flag(return_word_ids, "return_word_ids")
        asked = (padding, truncation, max_length, pad_to_multiple_of)
        carried, padding, truncation, pad_to_multiple_of = _per_call(self, *asked)
        settings = (padding, truncation, max_length, num_threads, words, pad_to_multiple_of)
        return self._core.encode_batch_numpy(text_list, pair_list, add, *settings, carried)

    def encode_batch_flat(
        self,
        texts: Sequence[str],
        add_special_tokens: bool = True,
        *,
        return_offsets: bool = False,
        return_word_ids: bool = False,
        num_threads: Optional[int] = None,
    ) -> tuple[np.ndarray, ...]:
        """All ids of a batch as one flat ``uint32`` array plus ``row_offsets``
        (length ``len(texts) + 1``); no Python object per token. With
        ``return_offsets`` a ``(n_tokens, 2)`` array of char offsets follows,
        with ``return_word_ids`` an ``int64`` array of each token's word in
        its row (-1 for special tokens), as ``Encoding.word_ids`` gives them.
        Padding set by :meth:`enable_padding` pads the rows (pad ids, offsets
        ``(0, 0)``, word -1), as :meth:`encode_batch` pads.

        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
        >>> ids, rows = tok.encode_batch_flat(["a", "a a"], add_special_tokens=False)
        >>> ids.tolist(), rows.tolist()
        ([4, 4, 4], [0, 1, 3])
        >>> tok.encode_batch_flat(["a a"], return_offsets=True)[2].tolist()
        [[0, 0], [0, 1], [2, 3], [0, 0]]
        """
        texts = _str_list(texts, "texts")
        _check_threads(num_threads)
        return tuple(
            self._core.encode_batch_flat(
                texts,
                _flag(add_special_tokens, "add_special_tokens"),
                num_threads,
                _flag(return_offsets, "return_offsets"),
                _flag(return_word_ids, "return_word_ids"),
            )
        )

    def encode_arrow(
        self,
        array: Any,
        add_special_tokens: bool = True,
        *,
        return_offsets: bool = False,
        num_threads: Optional[int] = None,
    ) -> Any:
        """Encodes a pyarrow string column, read from its buffers (no Python
        ``str`` per row), to a ``list<uint32>`` array of ids per row, a null
        row staying null; a ``ChunkedArray`` gives a ``ChunkedArray`` of the
        same chunks. With ``return_offsets``, each row is a struct of
        ``input_ids`` and ``offsets`` (``list<fixed_size_list<uint32, 2>>``,
        char offsets as :meth:`encode_batch_flat` gives them). Ids are those
        of :meth:`encode_batch_flat` on the same texts; truncation and padding
        as set (padding applies to the rows that are not null, to the longest
        of the whole column, however chunked). A column of another library
        with the Arrow PyCapsule interface (a pandas >= 2.2 or polars
        ``Series``, a DuckDB result column) is read through pyarrow without a
        copy: one exporting a stream gives a ``ChunkedArray``.

        >>> import pyarrow as pa
        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
        >>> tok.encode_arrow(pa.array(["a a", None, ""])).to_pylist()
        [[2, 4, 4, 3], None, [2, 3]]
        >>> tok.encode_arrow(pa.array(["a"]), False, return_offsets=True).to_pylist()
        [{'input_ids': [4], 'offsets': [[0, 1]]}]
        >>> import pandas as pd
        >>> tok.encode_arrow(pd.Series(["a", None])).to_pylist()
        [[2, 4, 3], None]
        """
        from .arrow import encode_arrow

        _check_threads(num_threads)
        _check_bools(add_special_tokens=add_special_tokens, return_offsets=return_offsets)
        return encode_arrow(self._core, array, add_special_tokens, return_offsets, num_threads)

    def encode_files(
        self,
        files: Files,
        add_special_tokens: bool = True,
        *,
        separator: str = "\n",
        jsonl_field: Optional[str] = None,
        num_threads: Optional[int] = None,
        mmap: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Encodes whole files read in Rust, with no Python string per document:
        flat ``uint32`` ids and row offsets, as :meth:`encode_batch_flat`.

        ``files`` is a path or a glob, or a list of them, as :func:`wpiece.train`
        takes them. Documents are the lines (or the parts between ``separator``)
        of plain or ``.gz`` files, or the string field ``jsonl_field`` of JSON Lines files.
        Plain files are memory-mapped unless ``mmap=False``: no copy of the
        text, but a file that another process truncates while it is encoded
        kills the interpreter (SIGBUS), as with any memory map. Pass
        ``mmap=False`` for files that may change meanwhile (they are then read).

        >>> import wpiece
        >>> tok = Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> ids, rows = tok.encode_files(wpiece.sample_text_path())
        >>> len(rows) - 1, tok.decode(ids[rows[0] : rows[1]].tolist())
        (400, 'in the beginning god created the heaven and the earth.')
        """
        items = path_items(files, "files")
        # Globs expanded and paths checked as train and count_words do them.
        paths: list[PathLike] = list(resolve_files(items)) if items else []
        _check_files_call(separator, jsonl_field, num_threads, add_special_tokens, mmap)
        require_field(paths, jsonl_field)
        ids, rows = self._core.encode_files(
            paths, separator, jsonl_field, add_special_tokens, num_threads, mmap
        )
        return ids, rows

    def stats(
        self, texts: Union[str, Iterable[str]], *, num_threads: Optional[int] = None
    ) -> TextStats:
        """How this tokenizer encodes ``texts`` (an iterable of documents, or
        one string): tokens per word, characters per token, the share of words
        kept whole and of unknown words. Judge a vocabulary by this on text it
        was not trained on. Words are split as :meth:`encode` splits them
        (added tokens in the text count as plain text). Words that need the
        unknown token count as unknown even when it is missing from the
        vocabulary (encoding them raises): what the stats are for.

        >>> tok = Tokenizer(["[UNK]", "the", "cat", "sat", "s", "##at"])
        >>> s = tok.stats(["the cat sat", "the sat hat"])
        >>> s.words, s.tokens, round(s.tokens_per_word, 3), s.unknown_words
        (6, 6, 1.0, 1)
        """
        from .counts import feed_texts

        _check_threads(num_threads)
        counter = _core.WordCounter.like(self._core, num_threads)
        feed_texts(counter, [texts] if isinstance(texts, str) else texts, name="texts")
        return TextStats(**counter.measure(self._core)[0])

    def tokenize(self, text: str) -> list[str]:
        """The token strings of ``text``, without special tokens.

        >>> Tokenizer(["[UNK]", "un", "##aff", "##able"]).tokenize("unaffable")
        ['un', '##aff', '##able']
        """
        _check_str(text, "text")
        return self._core.tokenize(text)

    @property
    def encode_special_tokens(self) -> bool:
        """Whether special tokens typed in a text are encoded as the text they
        are (HF's ``encode_special_tokens``, transformers'
        ``split_special_tokens``) instead of matched as special tokens; added
        tokens that are not special are still matched. False by default; a
        ``tokenizer.json`` does not hold it (HF does not save it), pickles do.

        >>> import wpiece
        >>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> tok.encode("[SEP] hi", add_special_tokens=False).tokens
        ['[SEP]', 'hi']
        >>> tok.encode_special_tokens = True
        >>> tok.encode("[SEP] hi", add_special_tokens=False).tokens
        ['[', 'sep', ']', 'hi']
        """
        return self._core.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        self._core.encode_special_tokens = _flag(value, "encode_special_tokens")

    # ----- vocabulary --------------------------------------------------

    def token_to_id(self, token: str) -> Optional[int]:
        """The id of ``token``, or None."""
        return self._core.token_to_id(_text(token, "token"))

    def id_to_token(self, id: int) -> Optional[str]:
        """The token of ``id``, or None if no token has it. As in HF: an id
        that is not an int raises ``TypeError``, one outside 0..2^32-1
        ``OverflowError`` (the same rule as :meth:`decode`).

        >>> Tokenizer(["[UNK]", "a"]).id_to_token(1), Tokenizer(["[UNK]"]).id_to_token(7)
        ('a', None)
        """
        return self._core.id_to_token(_check_id(id))

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """The vocabulary as a dict token -> id, with the added tokens (as HF).

        >>> tok = Tokenizer(["[UNK]", "a"])
        >>> tok.add_tokens(["<new>"])
        1
        >>> tok.get_vocab(), tok.get_vocab(with_added_tokens=False)
        ({'[UNK]': 0, 'a': 1, '<new>': 2}, {'[UNK]': 0, 'a': 1})
        """
        vocab = {t: i for i, t in enumerate(self._core.get_vocab())}
        if _flag(with_added_tokens, "with_added_tokens"):
            for id, (content, *_) in self._core.added_tokens():
                vocab[content] = id
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """The number of ids: the vocabulary's, and added tokens outside it
        (``with_added_tokens``, HF's default)."""
        return self._core.get_vocab_size(_flag(with_added_tokens, "with_added_tokens"))

    def __len__(self) -> int:
        return self._core.get_vocab_size(True)

    # ----- added tokens ------------------------------------------------

    def add_tokens(self, tokens: Iterable[TokenLike]) -> int:
        """Adds tokens matched whole in texts (HF's ``add_tokens``): strings
        (matched in normalized text) or :class:`AddedToken` with their flags.
        A token in the vocabulary keeps its id; a new one takes the next id
        after the vocabulary and the tokens added before it. Returns how many
        were added (empty ones, and ones already there with the same flags,
        are ignored). Grow a model's embeddings by ``len(tokenizer)``.

        >>> import wpiece
        >>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> tok.add_tokens(["Covid19", wpiece.AddedToken("<ent>", single_word=True)])
        2
        >>> tok.encode("covid19 <ent>x <ent>").ids
        [101, 30522, 1026, 4372, 2102, 1028, 1060, 30523, 102]
        """
        return self._add(tokens, special=False)

    def add_special_tokens(self, tokens: Iterable[TokenLike]) -> int:
        """Adds special tokens (HF's ``add_special_tokens``): as
        :meth:`add_tokens`, marked special (skipped by ``decode``) and, unless
        an :class:`AddedToken` says otherwise, matched in raw text.

        >>> import wpiece
        >>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
        >>> tok.add_special_tokens(["<ent>"])
        1
        >>> ids = tok.encode("a <ent> b").ids
        >>> ids, tok.decode(ids)
        ([101, 1037, 30522, 1038, 102], 'a b')
        """
        return self._add(tokens, special=True)

    def _add(self, tokens: Iterable[TokenLike], special: bool) -> int:
        known = self._core.shared_added_patterns()
        added = self._core.add_tokens(_specs(tokens, special))
        _warn_shared_patterns(self._core, known)
        return added

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        """The added tokens by id, with their flags (HF's
        ``get_added_tokens_decoder``).

        >>> tok = Tokenizer(["[UNK]", "a"])
        >>> tok.get_added_tokens_decoder()[0]
        AddedToken(content='[UNK]', single_word=False, lstrip=False, rstrip=False, \
normalized=False, special=True)
        """
        return {id: _from_spec(spec) for id, spec in self._core.added_tokens()}

    def __repr__(self) -> str:
        s = self._core.settings()
        if s["pipeline"] == "custom":  # a tokenizer.json's own components
            unk = s["unk_token"]
            return f"Tokenizer(vocab_size={len(self)}, pipeline='custom', unk_token={unk!r})"
        return (
            f"Tokenizer(vocab_size={len(self)}, lowercase={s.get('lowercase')}, "
            f"pre_tokenizer={s['pre_tokenizer']!r}, unk_token={s['unk_token']!r})"
        )
