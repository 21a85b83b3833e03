"""Training on long words: one word of 10^4 to 10^6 characters, 1000 merges.

    python benches/bench_long_words.py [--repeats 3]

A merge must cost what its occurrences cost, not the length of the words that
hold them (before the linked arena, 10^6 characters took minutes). Each run is
its own process; wpiece and HF's WordPieceTrainer alternate; medians of wall
time. Prints a Markdown table (results: benches/results/long_words.md).
"""

from __future__ import annotations

import argparse

from _common import ROOT, med, median_runs, run_child

WORD = "word = ''.join(chr(97 + (i * 7919) % 26) for i in range({n}))\n"

ENGINES = {
    "wpiece": WORD
    + """
import wpiece
t = time.perf_counter()
tok = wpiece.train_from_counts({{word: 1}}, 1000, special_tokens=["[UNK]"])
RESULT = {{"seconds": time.perf_counter() - t}}
""",
    "hf": WORD
    + """
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
tk = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tr = trainers.WordPieceTrainer(vocab_size=1000, special_tokens=["[UNK]"], show_progress=False)
t = time.perf_counter()
tk.train_from_iterator([word], tr)
RESULT = {{"seconds": time.perf_counter() - t}}
""",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rows = [
        "| characters | wpiece s | HF s | HF / wpiece |",
        "|---|---|---|---|",
    ]
    for n in (10**4, 10**5, 10**6):
        # HF's trainer rescans the word per merge: at 10^6 it runs for many minutes.
        engines = list(ENGINES) if n <= 10**5 else ["wpiece"]
        res = median_runs(lambda e, n=n: run_child(ENGINES[e].format(n=n)), engines, args.repeats)
        w = med(res["wpiece"], "seconds")
        if "hf" in res:
            h = med(res["hf"], "seconds")
            rows.append(f"| {n:,} | {w:.3f} | {h:.3f} | {h / w:.1f}x |")
        else:
            rows.append(f"| {n:,} | {w:.3f} | not run (minutes) | |")
        print(rows[-1], flush=True)
    text = (
        f"## Training on one long word, 1000 merges (medians of {args.repeats} runs, "
        "each in its own process)\n\n"
        + "\n".join(rows)
        + "\n\nCommand: `python benches/bench_long_words.py`\n"
    )
    out = ROOT / "benches" / "results" / "long_words.md"
    out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
