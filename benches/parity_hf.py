"""Every document of the benchmark corpora encoded by wpiece and by HF
`tokenizers` (bert-base-uncased's vocab, BERT's pipeline): ids, char
offsets and word ids compared document by document.

    python benches/parity_hf.py [--corpora en,multi] [--mb 0]

Writes benches/results/parity.md. `bench_encode.py` runs the same check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, run_child

VOCAB = ROOT / "tests" / "data" / "vocab.txt"

# HF's Encoding objects for a whole corpus take gigabytes: a chunk at a time.
CHECK = """
import wpiece
from tokenizers import BertWordPieceTokenizer
lines = open({path!r}, encoding="utf-8").read().splitlines()
hf = BertWordPieceTokenizer({vocab!r})
wp = wpiece.Tokenizer.from_file({vocab!r})
counts = {{"documents": len(lines), "ids": 0, "offsets": 0, "word_ids": 0, "all": 0}}
first_difference = None
for lo in range(0, len(lines), 20000):
    chunk = lines[lo:lo + 20000]
    ids, rows, offsets, words = wp.encode_batch_flat(
        chunk, return_offsets=True, return_word_ids=True
    )
    for i, e in enumerate(hf.encode_batch(chunk)):
        a, b = rows[i], rows[i + 1]
        same_ids = ids[a:b].tolist() == e.ids
        same_offsets = [tuple(o) for o in offsets[a:b].tolist()] == e.offsets
        same_words = words[a:b].tolist() == [-1 if w is None else w for w in e.word_ids]
        counts["ids"] += same_ids
        counts["offsets"] += same_offsets
        counts["word_ids"] += same_words
        counts["all"] += same_ids and same_offsets and same_words
        if first_difference is None and not (same_ids and same_offsets and same_words):
            first_difference = chunk[i][:200]
RESULT = {{**counts, "first_difference": first_difference}}
"""


def check(path: Path) -> dict:
    """Counts of documents whose ids, offsets, word ids (and all three) are HF's."""
    return run_child(CHECK.format(path=str(path), vocab=str(VOCAB)))


def line(name: str, p: dict) -> str:
    n = p["documents"]
    text = (
        f"- {name}: {p['all']:,} of {n:,} documents identical to HF in ids, offsets and "
        f"word ids (ids {p['ids']:,}, offsets {p['offsets']:,}, word ids {p['word_ids']:,})"
    )
    if p["first_difference"] is not None:
        text += f"; first difference: {p['first_difference']!r}"
    return text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", default="en,multi")
    ap.add_argument("--mb", type=int, default=0, help="use the first N MB of each corpus (0: all)")
    args = ap.parse_args()
    corpus = ensure_corpus()
    lines = []
    for name in args.corpora.split(","):
        path = corpus / f"{name}.txt"
        if args.mb:
            path = head_bytes(path, corpus / f"{name}_{args.mb}mb.txt", args.mb * 1_000_000)
        lines.append(line(name, check(path)))
        print(lines[-1], flush=True)
    command = " ".join(["python", "benches/parity_hf.py", *sys.argv[1:]])
    out = ROOT / "benches" / "results" / "parity.md"
    text = "## Parity with HF on every document\n\n" + "\n".join(lines)
    out.write_text(text + f"\n\nCommand: `{command}`\n", encoding="utf-8")


if __name__ == "__main__":
    main()
