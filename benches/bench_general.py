r"""The general path (any tokenizer.json pipeline) against the BERT fast path
and against HF `tokenizers` on the same pipelines.

    python benches/bench_general.py [--repeats 3] [--mb 10]

Pipelines, each on the bert-base-uncased vocab:
- `bert`: BertNormalizer + BertPreTokenizer, which wpiece serves on its fast paths;
- `bert, general`: the same components wrapped in `Sequence`s, which wpiece
  serves on the general path (same ids: what the general path costs);
- `docs`: the `tokenizers` docs' `Sequence([NFD, Lowercase, StripAccents])`
  with `Whitespace`;
- `bert, added tokens`: `bert` with three tokens added by `add_tokens`
  (normalized, as HF adds them): "covid", "<url>", "e-mail";
- `regex`: a regex `Replace` (`\s+` to a space) and `Lowercase`, then a
  regex `Split` isolating digit runs before `BertPreTokenizer`.

Every measurement runs in its own process on text it has never seen (one
pass, `encode_batch_flat` for wpiece, `encode_batch_fast` for HF, one
thread each); engines alternate run by run; medians, and ratios as medians
of the ratios within a round. Ids are compared with HF's per document.
Writes benches/results/general.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, med, median_runs, paired_ratio, run_child

VOCAB = ROOT / "tests" / "data" / "vocab.txt"

BUILD = r"""
from tokenizers import Regex, Tokenizer, decoders, models, processors
from tokenizers import normalizers as n, pre_tokenizers as p
vocab = {{t: i for i, t in enumerate(open({vocab!r}, encoding="utf-8").read().splitlines())}}
hf = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
pipeline = {pipeline!r}
if pipeline == "bert":
    hf.normalizer, hf.pre_tokenizer = n.BertNormalizer(), p.BertPreTokenizer()
elif pipeline == "bert, general":
    hf.normalizer = n.Sequence([n.BertNormalizer()])
    hf.pre_tokenizer = p.Sequence([p.BertPreTokenizer()])
elif pipeline == "docs":
    hf.normalizer = n.Sequence([n.NFD(), n.Lowercase(), n.StripAccents()])
    hf.pre_tokenizer = p.Whitespace()
elif pipeline == "bert, added tokens":
    hf.normalizer, hf.pre_tokenizer = n.BertNormalizer(), p.BertPreTokenizer()
    hf.add_tokens(["covid", "<url>", "e-mail"])
else:
    hf.normalizer = n.Sequence([n.Replace(Regex(r"\s+"), " "), n.Lowercase()])
    hf.pre_tokenizer = p.Sequence([p.Split(Regex(r"[0-9]+"), "isolated"), p.BertPreTokenizer()])
hf.post_processor = processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101))
hf.decoder = decoders.WordPiece()
hf.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
lines = open({path!r}, encoding="utf-8").read().splitlines()
nbytes = sum(len(x.encode()) for x in lines)
"""

ENGINES = {
    "wpiece": """
import wpiece
tok = wpiece.Tokenizer.from_hf(hf)
run = lambda texts: tok.encode_batch_flat(texts, num_threads=1)[0].size
""",
    "hf": """
enc = getattr(hf, "encode_batch_fast", hf.encode_batch)
run = lambda texts: sum(len(e.ids) for e in enc(texts))
""",
}

TIMED = """
run(["warm up the pools"] * 64)
t = time.perf_counter()
n_tokens = run(lines)
seconds = time.perf_counter() - t
RESULT = {"seconds": seconds, "mb_s": nbytes / seconds / 1e6, "tokens": n_tokens}
"""

PARITY = """
import wpiece
wp = wpiece.Tokenizer.from_hf(hf)
ids, rows = wp.encode_batch_flat(lines)
same = sum(ids[rows[i]:rows[i + 1]].tolist() == e.ids for i, e in enumerate(hf.encode_batch(lines)))
RESULT = {"documents": len(lines), "identical": same}
"""

PIPELINES = ["bert", "bert, general", "docs", "bert, added tokens", "regex"]


def code(pipeline: str, path: Path, body: str) -> str:
    return BUILD.format(vocab=str(VOCAB), pipeline=pipeline, path=str(path)) + body


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mb", type=int, default=10)
    args = ap.parse_args()
    corpus = ensure_corpus()
    path = head_bytes(corpus / "en.txt", corpus / f"en_{args.mb}mb.txt", args.mb * 1_000_000)
    env = {"RAYON_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    keys = [(p, e) for p in PIPELINES for e in ENGINES]
    runs = median_runs(
        lambda k: run_child(code(k[0], path, ENGINES[k[1]] + TIMED), env),
        keys,
        args.repeats,
    )
    fast = runs[("bert", "wpiece")]
    lines = [
        f"en, first {args.mb} MB, one thread, one pass over unseen text, "
        f"median of {args.repeats} runs in fresh processes, engines alternating; "
        "ratios are medians of the ratios within a round.",
        "",
        "| pipeline | wpiece MB/s (min-max) | HF MB/s | wpiece / HF "
        "| wpiece / BERT fast path (min-max) | identical ids |",
        "|---|---|---|---|---|---|",
    ]
    for p in PIPELINES:
        w, h = runs[(p, "wpiece")], runs[(p, "hf")]
        parity = run_child(code(p, path, PARITY), env)
        speeds = [r["mb_s"] for r in w]
        ratios = [x["mb_s"] / y["mb_s"] for x, y in zip(w, fast)]
        lines.append(
            f"| {p} | {med(w, 'mb_s'):.1f} ({min(speeds):.1f}-{max(speeds):.1f}) "
            f"| {med(h, 'mb_s'):.1f} | {paired_ratio(w, h):.2f}x "
            f"| {paired_ratio(w, fast):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) "
            f"| {parity['identical']:,} / {parity['documents']:,} |"
        )
    command = " ".join(["python", "benches/bench_general.py", *sys.argv[1:]])
    lines += ["", f"Command: `{command}`"]
    out = ROOT / "benches" / "results" / "general.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
