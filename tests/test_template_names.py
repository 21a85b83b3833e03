"""A post-processor may name its special tokens otherwise than the vocab
names their ids (a template's `<cls>` for the vocab's `[CLS]`): HF shows the
post-processor's string where it inserted the token and the vocab's
elsewhere (decode included). wpiece loads such files and shows the same."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hf_compare import assert_encode_as_hf
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import processors

import wpiece

from adversarial import ADVERSARIAL
from conftest import TOKENIZER_JSON

TEXTS = ["Hello, world!", "[CLS] typed [SEP] in text", "", *ADVERSARIAL[:10]]


def both(post: Any) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    hf = HFTokenizer.from_str(json.dumps(d))
    hf.post_processor = post
    return hf, wpiece.Tokenizer.from_str(hf.to_str())


POSTS = {
    "template": lambda: processors.TemplateProcessing(
        single="<cls> $A <sep>",
        pair="<cls> $A <sep> $B:1 <sep>:1",
        special_tokens=[("<cls>", 101), ("<sep>", 102)],
    ),
    "template, a vocab token at another id": lambda: processors.TemplateProcessing(
        single="[SEP] $A [CLS]",
        pair="[SEP] $A [CLS] $B:1 [CLS]:1",
        special_tokens=[("[SEP]", 101), ("[CLS]", 102)],
    ),
    "bert": lambda: processors.BertProcessing(("<sep>", 102), ("<cls>", 101)),
    "roberta": lambda: processors.RobertaProcessing(("<sep>", 102), ("<cls>", 101)),
}


@pytest.mark.parametrize("post", sorted(POSTS))
def test_post_processor_names_show_as_in_hf(post: str) -> None:
    hf, wp = both(POSTS[post]())
    for text in TEXTS:
        for add in (True, False):
            assert_encode_as_hf(hf, wp, text, add=add)
            assert_encode_as_hf(hf, wp, text, "a pair", add=add)
        batch = wp.encode_batch([text])[0]
        assert batch.tokens == hf.encode(text).tokens, text
        ids = hf.encode(text, "a pair").ids
        for skip in (True, False):
            assert wp.decode(ids, skip) == hf.decode(ids, skip_special_tokens=skip)
    again = HFTokenizer.from_str(wp.to_json())
    assert again.encode("Hello, world!", "b").tokens == hf.encode("Hello, world!", "b").tokens


def test_one_id_with_two_names_is_refused() -> None:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    hf = HFTokenizer.from_str(json.dumps(d))
    hf.post_processor = processors.TemplateProcessing(
        single="<a> $A <b>",
        pair="<a> $A <b> $B:1 <b>:1",
        special_tokens=[("<a>", 101), ("<b>", 101)],
    )
    with pytest.raises(wpiece.UnsupportedComponentError, match="same id"):
        wpiece.Tokenizer.from_str(hf.to_str())
