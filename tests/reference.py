"""Plain reference implementations, written for clarity, not speed."""

from __future__ import annotations

import unicodedata


def wordpiece_word(
    word: str,
    vocab: set[str],
    unk: str = "[UNK]",
    prefix: str = "##",
    max_chars: int = 100,
    per_char_unk: bool = False,
) -> list[str]:
    """Greedy longest-match-first over one word, by trying every length."""
    if len(word) > max_chars:
        return [unk]
    out: list[str] = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while end > start:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            if not per_char_unk:
                return [unk]
            out.append(unk)
            start += 1
            continue
        out.append(found)
        start = end
    return out


def _is_punct(c: str) -> bool:
    return (c.isascii() and not c.isalnum() and c.isprintable() and not c.isspace()) or (
        unicodedata.category(c).startswith("P")
    )


def _is_cjk(c: str) -> bool:
    cp = ord(c)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B920 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def bert_words(text: str, lowercase: bool = True) -> list[str]:
    """BERT's basic tokenizer: clean, pad CJK, strip accents, lowercase, split."""
    cleaned = []
    for c in text:
        if c in "\t\n\r":
            cleaned.append(" ")
        elif c in "\x00\ufffd" or unicodedata.category(c) in ("Cc", "Cf", "Co"):
            continue
        elif c.isspace():
            cleaned.append(" ")
        elif _is_cjk(c):
            cleaned.append(f" {c} ")
        else:
            cleaned.append(c)
    s = "".join(cleaned)
    if lowercase:
        s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
        s = s.lower()
    words: list[str] = []
    for chunk in s.split():
        current = ""
        for c in chunk:
            if _is_punct(c):
                if current:
                    words.append(current)
                words.append(c)
                current = ""
            else:
                current += c
        if current:
            words.append(current)
    return words


def bert_tokenize(text: str, vocab: set[str], lowercase: bool = True) -> list[str]:
    return [p for w in bert_words(text, lowercase) for p in wordpiece_word(w, vocab)]
