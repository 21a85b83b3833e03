"""The `wpiece` command line."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Optional

from . import Tokenizer, sample_text_path, sample_vocab_path


def _demo(args: argparse.Namespace) -> int:
    """Loads the bundled vocab, encodes the bundled sample, prints a summary."""
    tok = Tokenizer.from_file(args.vocab or sample_vocab_path())
    path = args.corpus or sample_text_path()
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    first = tok.encode(lines[0])
    print(f"tokenizer: {tok!r}")
    print(f"text:   {lines[0]}")
    print(f"tokens: {first.tokens}")
    print(f"ids:    {first.ids}")
    start = time.perf_counter()
    encodings = tok.encode_batch(lines, add_special_tokens=False)
    seconds = time.perf_counter() - start
    n_tokens = sum(len(e) for e in encodings)
    n_chars = sum(len(line) for line in lines)
    n_words = sum(len(line.split()) for line in lines)
    unk = tok.token_to_id(tok.settings["unk_token"])
    n_unk = sum(e.ids.count(unk) for e in encodings)
    counts: Counter[int] = Counter(i for e in encodings for i in e.ids)
    print(f"documents: {len(lines)}, characters: {n_chars}, tokens: {n_tokens}")
    print(f"chars/token: {n_chars / n_tokens:.2f}, tokens/word: {n_tokens / n_words:.3f}")
    print(f"unk rate: {n_unk / n_tokens:.4%}, vocab used: {len(counts) / len(tok):.1%}")
    top = ", ".join(f"{tok.id_to_token(i)}:{c}" for i, c in counts.most_common(8))
    print(f"most frequent: {top}")
    print(f"encode time: {seconds * 1000:.1f} ms")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wpiece",
        description="WordPiece tokenizer: train vocabularies, encode and decode text.",
        epilog="example: wpiece demo",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="encode the bundled sample corpus and print stats")
    demo.add_argument("--vocab", help="vocab.txt or tokenizer.json (default: bundled BERT vocab)")
    demo.add_argument("--corpus", help="text file, one document per line (default: bundled)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (OSError, ValueError) as e:
        print(f"wpiece: error: {e}", file=sys.stderr)
        return 2
