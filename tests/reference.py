"""Plain reference implementations, written for clarity, not speed."""

from __future__ import annotations

import math
import unicodedata
from fractions import Fraction


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


def initial_split(word: str, vocab: set[str], prefix: str, kept: set[str]) -> list[str | None]:
    """The units a word starts as when extending `vocab`: longest match first
    by trying every length; where nothing matches, the character there
    (None if `kept` leaves it out of the alphabet), and matching goes on."""
    out: list[str | None] = []
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                out.append(piece)
                start = end
                break
        else:
            ch = word[start]
            out.append((ch if start == 0 else prefix + ch) if ch in kept else None)
            start += 1
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


def dh(c: int, delta: int) -> float:
    """h(c + delta) - h(c) for h(t) = t ln t, in the cancellation-free form
    documented in src/train/gain.rs (same operations, so the same bits)."""
    if delta == 0:
        return 0.0
    m = abs(delta)
    mf, cf = float(m), float(c)
    if delta < 0:
        t = c - m
        ln_c = math.log(cf)
        if t == 0:
            return -mf * ln_c
        ratio = math.log1p(-mf / cf) if m <= c // 2 else math.log(float(t)) - ln_c
        return -mf * ln_c + float(t) * ratio
    if c == 0:
        return mf * math.log(mf)
    return mf * math.log(float(c + m)) + cf * math.log1p(mf / cf)


def merge_gain(k: int, x: tuple[str, int], y: tuple[str, int], z: tuple[str, int], n: int) -> float:
    """ΔL of replacing k occurrences of (x, y) by z; units given as (string,
    count now), coinciding strings add their changes (x, y, z order)."""
    units: list[list] = []
    for name, count, delta in ((x[0], x[1], -k), (y[0], y[1], -k), (z[0], z[1], k)):
        for u in units:
            if u[0] == name:
                u[2] += delta
                break
        else:
            units.append([name, count, delta])
    total = 0.0
    for _, count, delta in units:
        total += dh(count, delta)
    return total - dh(n, -k)


def replaced(word_counts, splits, a: str, b: str) -> int:
    """How many occurrences of (a, b) a merge replaces: left to right, without overlap."""
    k = 0
    for (_, c), split in zip(word_counts, splits):
        i = 0
        while i < len(split) - 1:
            if split[i] == a and split[i + 1] == b:
                k += c
                i += 2
            else:
                i += 1
    return k


def train_reference(
    word_counts: list[tuple[str, int]],
    vocab_size: int,
    special_tokens: list[str],
    prefix: str = "##",
    score: str = "wordpiece",
    min_frequency: int = 0,
    limit_alphabet: int | None = None,
    initial_alphabet: tuple[str, ...] = (),
    suffix: str = "",
    initial_vocab: list[str] | None = None,
) -> list[str]:
    """WordPiece training by the book: recompute every statistic at every step.
    Words counted 0 are left out; `suffix` is appended to every word. With
    `initial_vocab` (extending it): words start as its longest-match pieces,
    a character where none matches, and its tokens come first; every character
    of the words alone, as it stands, is in the alphabet."""
    word_counts = [(w + suffix, c) for w, c in word_counts if c > 0]
    char_freq: dict[str, int] = {}
    for w, c in word_counts:
        for ch in w:
            char_freq[ch] = char_freq.get(ch, 0) + c
    initial = set(initial_alphabet)
    if limit_alphabet is None:
        kept = set(char_freq) | initial
    else:
        ranked = sorted(
            (ch for ch in char_freq if ch not in initial), key=lambda ch: (-char_freq[ch], ch)
        )
        kept = set(ranked[: max(0, limit_alphabet - len(initial))]) | initial
    if initial_vocab is None:
        splits = [
            [(ch if k == 0 else prefix + ch) if ch in kept else None for k, ch in enumerate(w)]
            for w, _ in word_counts
        ]
    else:
        known = set(initial_vocab)
        splits = [initial_split(w, known, prefix, kept) for w, _ in word_counts]
    symbols = {s for split in splits for s in split if s is not None}
    if initial_vocab is not None:
        # Each character alone too, as it stands, so that longest match finds
        # a token at every position of a training word whatever is merged.
        for w, _ in word_counts:
            symbols |= {ch if k == 0 else prefix + ch for k, ch in enumerate(w) if ch in kept}
    for ch in initial_alphabet:
        symbols.add(ch)
        if prefix:
            symbols.add(prefix + ch)
    first = list(special_tokens) if initial_vocab is None else list(initial_vocab)
    vocab: list[str] = []
    for t in first + sorted(symbols - set(first)):
        if t not in vocab:
            vocab.append(t)
    while len(vocab) < vocab_size:
        unit: dict[str, int] = {}
        pair: dict[tuple[str, str], int] = {}
        for (_, c), split in zip(word_counts, splits):
            for s in split:
                if s is not None:
                    unit[s] = unit.get(s, 0) + c
            for a, b in zip(split, split[1:]):
                if a is not None and b is not None:
                    pair[(a, b)] = pair.get((a, b), 0) + c
        best, best_score = None, None
        n = sum(unit.values())
        for (a, b), p in pair.items():
            if p == 0 or p < min_frequency:
                continue
            if score == "likelihood":
                k = replaced(word_counts, splits, a, b)
                z = a + (b[len(prefix) :] if b.startswith(prefix) else b)
                s = merge_gain(k, (a, unit[a]), (b, unit[b]), (z, unit.get(z, 0)), n)
            elif score == "wordpiece":
                s = Fraction(p, unit[a] * unit[b])
            else:
                s = Fraction(p)
            if best_score is None or s > best_score:
                best, best_score = (a, b), s
        if best is None:
            break
        a, b = best
        merged = a + (b[len(prefix) :] if b.startswith(prefix) else b)
        for split in splits:
            i = 0
            while i < len(split) - 1:
                if split[i] == a and split[i + 1] == b:
                    split[i : i + 2] = [merged]
                i += 1
        if merged not in vocab:
            vocab.append(merged)
    return vocab


def fit_reference(
    word_counts: list[tuple[str, int]],
    tokens: list[str],
    keep: int,
    target: int,
    prefix: str = "##",
    max_chars: int = 100,
) -> list[str]:
    """Fitting to longest match by the book (src/train/fit.rs): pruning (each
    round, the cost of every removable token is the tokens its loss adds to
    the count-weighted longest-match encoding of the training words; the
    cheapest fifth of the surplus goes, at least a 32nd of the first
    surplus, equal costs the later token first), then one growth round: the
    ceil(target / 20) most frequent adjacent pairs of the pruned vocabulary's
    encodings (ties to the lower ids) joined, neither tokens nor pruned, and the
    pruning again (at least a quarter of its surplus a round), kept if its
    objective is lower."""
    words = [(w, c) for w, c in word_counts if c > 0 and len(w) <= max_chars]
    encoded = _longest_match(prefix)

    def objective(alive: list[str]) -> int:
        vocab = set(alive)
        return sum(c * len(encoded(w, vocab) or []) for w, c in words)

    first = _prune_reference(words, tokens, keep, target, encoded, least_share=32)
    pruned = set(tokens) - set(first)
    pairs: dict[tuple[int, int], int] = {}
    ids = {t: i for i, t in enumerate(first)}
    for w, c in words:
        pieces = encoded(w, set(first)) or []
        for a, b in zip(pieces, pieces[1:]):
            pairs[(ids[a], ids[b])] = pairs.get((ids[a], ids[b]), 0) + c
    offered: list[str] = []
    for (a, b), _ in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(offered) >= -(-target // 20):
            break
        right = first[b][len(prefix) :] if first[b].startswith(prefix) else first[b]
        joined = first[a] + right
        if joined not in ids and joined not in pruned and joined not in offered:
            offered.append(joined)
    if not offered:
        return first
    second = _prune_reference(words, first + offered, keep, target, encoded, least_share=4)
    if len(second) == len(first) and objective(second) < objective(first):
        return second
    return first


def _prune_reference(words, tokens, keep, target, encoded, least_share) -> list[str]:
    alive = list(tokens)
    first_surplus = max(0, len(alive) - max(target, keep))

    while len(alive) > max(target, keep):
        vocab = set(alive)
        now = {w: encoded(w, vocab) for w, _ in words}
        costs = []
        for k in range(keep, len(alive)):
            u = alive[k]
            total = 0
            for w, c in words:
                if now[w] is not None and u in now[w]:
                    without = encoded(w, vocab - {u})
                    if without is None:
                        total = float("inf")
                        break
                    total += c * (len(without) - len(now[w]))
            costs.append((total, -tokens.index(u), u))
        surplus = len(alive) - max(target, keep)
        step = min(max(-(-surplus // 5), -(-first_surplus // least_share)), surplus)
        gone = {u for _, _, u in sorted(costs)[:step]}
        alive = [t for t in alive if t not in gone]
    return alive


def prune_reference(
    word_counts: list[tuple[str, int]],
    tokens: list[str],
    keep: int,
    target: int,
    prefix: str = "##",
) -> list[str]:
    """The pruning of :func:`fit_reference` alone, without its growth round."""
    words = [(w, c) for w, c in word_counts if c > 0]
    return _prune_reference(words, tokens, keep, target, _longest_match(prefix), least_share=32)


def _longest_match(prefix: str):
    """A word's longest-match tokens by a vocabulary, None where some
    position has no token."""

    def encoded(word: str, vocab: set[str]) -> list[str] | None:
        pieces = wordpiece_word(word, vocab, unk="\0", prefix=prefix, max_chars=10**9)
        return None if pieces == ["\0"] and word != "\0" else pieces

    return encoded
