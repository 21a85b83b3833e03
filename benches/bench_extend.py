"""Extending bert-base-uncased to another domain: held-out tokens per word
before and after, wpiece's extension (``initial=``) against the usual recipe
(train a new vocabulary with HF's WordPieceTrainer, then ``add_tokens`` its
strings that BERT lacks), at the same number of added ids.

    python benches/bench_extend.py            # 20 MB of the English corpus
    python benches/bench_extend.py --quick    # 5 MB

The domain: the English corpus of ../shared/corpus/make_corpus.sh (Debian
manuals and documentation), far from BERT's books and Wikipedia. Held-out
text: the corpus's last 2 MB (whole lines), never trained on; training takes
the first lines. Every tokenizer is measured by the same code, through HF
`tokenizers` (wpiece's files loaded there): tokens per word (no special
tokens) over the words of BERT's own pre-tokenization, and the share of
those words encoded as one token (a word is whole when exactly one token
lies inside its span). The recipe adds the new strings in the order HF's
trainer made them; "whole words only" leaves out its ``##`` strings, which
as added tokens only match that literal text, and "single_word=True" adds
those as tokens matched only as whole words (the kindest form of it). Each training runs in its own
process; times are whole calls. Writes benches/results/extend.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, ensure_corpus, run_child, split_held_out  # noqa: E402

ADDED = [1000, 4478, 10000]  # 4478: bert-base-uncased grown to 35,000 ids
RESULTS = ROOT / "benches" / "results"
BERT_JSON = ROOT / "tests" / "data" / "tokenizer.json"

MEASURE = """
import bisect
from tokenizers import Tokenizer as HF
def raw(hf):
    hf.no_truncation(); hf.no_padding()
    return hf
def measure(hf, held_path):
    lines = open(held_path, encoding='utf-8').read().splitlines()
    base = raw(HF.from_file(BERT_JSON))
    words = whole = tokens = 0
    spans_of = base.encode_batch(lines, add_special_tokens=False)
    encoded = hf.encode_batch(lines, add_special_tokens=False)
    for b, e in zip(spans_of, encoded):
        spans = {}
        for w, (s, t) in zip(b.word_ids, b.offsets):
            lo, hi = spans.get(w, (s, t))
            spans[w] = (min(lo, s), max(hi, t))
        starts = sorted(e.offsets)
        for lo, hi in spans.values():
            k = bisect.bisect_left(starts, (lo, -1))
            n = 0
            while k < len(starts) and starts[k][0] < hi:
                n += starts[k][1] <= hi
                k += 1
            whole += n == 1
        words += len(spans)
        tokens += len(e.ids)
    return [tokens / words, whole / words]
"""

BERT_CHILD = (
    MEASURE
    + """
RESULT = {'stats': measure(raw(HF.from_file(BERT_JSON)), HELD)}
"""
)

WPIECE_CHILD = (
    MEASURE
    + """
import wpiece, warnings
warnings.simplefilter('ignore')
bert = wpiece.Tokenizer.from_file(BERT_JSON)
t = time.perf_counter()
tok = wpiece.train(TRAIN, vocab_size=len(bert) + N, initial=bert)
seconds = time.perf_counter() - t
assert tok.training_record.added_ids == N
RESULT = {'seconds': seconds, 'stats': measure(raw(HF.from_str(tok.to_json())), HELD)}
"""
)

HF_TRAIN_CHILD = """
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
hf = Tokenizer(models.WordPiece(unk_token='[UNK]'))
hf.normalizer = normalizers.BertNormalizer(lowercase=True)
hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
trainer = trainers.WordPieceTrainer(vocab_size=30522, show_progress=False,
    special_tokens=['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'])
t = time.perf_counter()
hf.train([TRAIN], trainer)
seconds = time.perf_counter() - t
bert = Tokenizer.from_file(BERT_JSON).get_vocab()
new = [w for w, _ in sorted(hf.get_vocab().items(), key=lambda x: x[1]) if w not in bert]
RESULT = {'seconds': seconds, 'new': new}
"""

RECIPE_CHILD = (
    MEASURE
    + """
from tokenizers import AddedToken
hf = raw(HF.from_file(BERT_JSON))
hf.add_tokens([AddedToken(t, single_word=True) for t in NEW] if SINGLE_WORD else NEW)
RESULT = {'stats': measure(hf, HELD)}
"""
)

# (label, which new strings, added with single_word=True)
RECIPES = [
    ("recipe", "all", False),
    ("recipe, whole words only", "whole", False),
    ("recipe, whole words, single_word=True", "whole", True),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="5 MB of training text")
    args = ap.parse_args()
    work = ensure_corpus() / "quality"
    work.mkdir(exist_ok=True)
    train_bytes = 5_000_000 if args.quick else 20_000_000
    name = f"extend{train_bytes // 1_000_000}"
    train, held = split_held_out(ensure_corpus() / "en.txt", work, name, train_bytes)
    head = f"TRAIN={str(train)!r}\nHELD={str(held)!r}\nBERT_JSON={str(BERT_JSON)!r}\n"
    results: dict = {"train_bytes": train.stat().st_size, "added": ADDED}
    results["bert"] = run_child(head + BERT_CHILD)["stats"]
    print("bert-base-uncased", results["bert"], flush=True)
    hf = run_child(head + HF_TRAIN_CHILD)
    results["hf_seconds"] = hf["seconds"]
    results["hf_new"] = len(hf["new"])
    rows: dict = {"wpiece": {}, **{label: {} for label, _, _ in RECIPES}}
    strings = {"all": hf["new"], "whole": [w for w in hf["new"] if not w.startswith("##")]}
    for n in ADDED:
        r = run_child(head + f"N={n}\n" + WPIECE_CHILD)
        rows["wpiece"][n] = {"stats": r["stats"], "seconds": r["seconds"]}
        for label, which, single_word in RECIPES:
            new = strings[which]
            if len(new) >= n:
                code = f"NEW={new[:n]!r}\nSINGLE_WORD={single_word}\n" + RECIPE_CHILD
                rows[label][n] = {"stats": run_child(head + code)["stats"]}
        print(n, {k: v.get(n) for k, v in rows.items()}, flush=True)
    results["rows"] = rows
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "extend.json").write_text(json.dumps(results, indent=1))
    write_markdown(results)


def write_markdown(results: dict) -> None:
    bert = results["bert"]
    lines = [
        "# Extending bert-base-uncased to another domain",
        "",
        "`python benches/bench_extend.py`: bert-base-uncased extended on the first "
        f"{results['train_bytes'] / 1e6:.0f} MB of the English corpus (Debian manuals and",
        "documentation); held out: the corpus's last 2 MB. Tokens per held-out word (lower is",
        "better) and words kept whole, all measured through HF `tokenizers`. The recipe: HF's",
        f"WordPieceTrainer at 30,522 on the same text ({results['hf_seconds']:.1f} s; "
        f"{results['hf_new']:,} of its strings are new",
        "to BERT), then `add_tokens` of the first n new strings.",
        "",
        f"Before: bert-base-uncased gives {bert[0]:.3f} tokens/word, {100 * bert[1]:.1f}% "
        "of words whole.",
        "",
        "| ids added | wpiece `initial=` | "
        + " | ".join(label for label, _, _ in RECIPES)
        + " | wpiece time |",
        "|---" * (len(RECIPES) + 3) + "|",
    ]
    for n in results["added"]:
        cells = []
        for label in ("wpiece", *(label for label, _, _ in RECIPES)):
            row = results["rows"][label].get(str(n)) or results["rows"][label].get(n)
            if row is None:
                cells.append("(too few new strings)")
                continue
            tpw, whole = row["stats"]
            cells.append(f"{tpw:.3f} ({tpw / bert[0]:.3f}x), {100 * whole:.1f}% whole")
        secs = (results["rows"]["wpiece"].get(str(n)) or results["rows"]["wpiece"][n])["seconds"]
        lines.append(f"| {n:,} | " + " | ".join(cells) + f" | {secs:.1f} s |")
    lines.append("")
    (RESULTS / "extend.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
