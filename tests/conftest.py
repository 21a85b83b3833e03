"""Shared fixtures: the bert-base-uncased files and HF reference tokenizers."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer

import wpiece

DATA = Path(__file__).parent / "data"
VOCAB_TXT = DATA / "vocab.txt"
TOKENIZER_JSON = DATA / "tokenizer.json"
EN_FIXTURE = DATA / "en_fixture.txt"

# The Ctrl-C tests send SIGINT to child processes, which inherit an ignored
# SIGINT when the test run was started in the background (`cmd &`, nohup, some
# CI runners) and then never see it: the run takes Python's own handler, as
# an interactive session has, and children start with the default.
signal.signal(signal.SIGINT, signal.default_int_handler)

# `make fuzz` multiplies every property test's examples (CI runs the base count).
FUZZ_SCALE = int(os.environ.get("WPIECE_FUZZ_SCALE", "1"))


def examples(n: int) -> int:
    """Hypothesis examples for a property test: n in CI, more under `make fuzz`."""
    return n * FUZZ_SCALE


def hf_bert(lowercase: bool = True) -> HFTokenizer:
    """HF tokenizer from the shipped tokenizer.json, truncation/padding off."""
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = lowercase
    spec["truncation"] = None
    spec["padding"] = None
    return HFTokenizer.from_str(json.dumps(spec))


def wp_bert(lowercase: bool = True) -> wpiece.Tokenizer:
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON, lowercase=lowercase)
    tok.no_truncation()
    tok.no_padding()
    return tok


@pytest.fixture(scope="session", params=[True, False], ids=["uncased", "cased"])
def pair_of_tokenizers(request: pytest.FixtureRequest) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    return hf_bert(request.param), wp_bert(request.param)


@pytest.fixture(scope="session")
def en_lines() -> list[str]:
    return EN_FIXTURE.read_text(encoding="utf-8").splitlines()
