"""Ctrl-C stops every long call within about a second even inside ONE huge
document (a few hundred MB in one str, one Arrow row or one file line), and
leaves nothing written. Same harness as test_interrupt.py (interrupting.py):
a child builds its input, says "ready", gets SIGINT half a second into the
call and must exit with KeyboardInterrupt within BOUND_S.

Every input is sized so that the call, left alone, runs for several seconds
(well past DELAY_S + BOUND_S), so a call that only notices the signal when it
returns fails here."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from interrupting import BOUND_S, interrupt, interrupt_command, interrupt_each, listing

from conftest import TOKENIZER_JSON, VOCAB_TXT

MB = 1_000_000

# {call: (seconds from SIGINT to the end of the call, "interrupted" or "finished")}
Results = dict[str, tuple[float, str]]

# The repeated unit of each kind of huge document, as code (run in children).
UNITS = {
    # CJK: every character is a word of its own.
    "cjk": "unit = '東京大学日本語'",
    # Accented Latin, upper and lower case, in 823,543 distinct words (more than
    # any per-word cache holds), one 30 MB block repeated.
    "accented": (
        "import itertools\n"
        "parts = 'Ça été déjà très ÉLÉGANT über naïve'.split()\n"
        "unit = ' '.join(map(''.join, itertools.product(parts, repeat=7))) + ' '"
    ),
    # No space at all: the whole document is one word.
    "nospace": "unit = 'éàü'",
}
KINDS = list(UNITS)

# MB of UTF-8 per kind, for calls whose output is small or flat (ids only):
# about 4-10 s of work each on this machine.
SIZE = {"cjk": 500, "accented": 400, "nospace": 400}
# Counting CJK is quick (a char is a word, seven distinct ones): 900 MB there.
COUNT_SIZE = {**SIZE, "cjk": 900}
# For calls that make an Encoding (tens of bytes per token until it is read).
ENCODING_SIZE = {"cjk": 300, "accented": 300, "nospace": 300}


def doc_setup(kind: str, mb: int) -> str:
    """Child code that builds `doc`: `mb` MB of UTF-8 in one str, by repetition."""
    return f"{UNITS[kind]}\ndoc = unit * ({mb} * {MB} // len(unit.encode()))\n"


TOK = f"tok = wpiece.Tokenizer.from_file({str(VOCAB_TXT)!r})\n"


def run_interrupted(setup: str, call: str, cwd: Path) -> float:
    """Seconds the call took to stop after SIGINT; also checks that nothing
    appeared in `cwd` (the child's working folder)."""
    before = listing(cwd)
    elapsed, _ = interrupt(setup, call, cwd)
    assert listing(cwd) == before, "files left behind"
    return elapsed


@pytest.fixture
def one_line_file(tmp_path: Path) -> Iterator[Path]:
    """A file whose only line is a huge document (written by `write_one_line`),
    removed afterwards (pytest keeps old tmp folders)."""
    path = tmp_path / "huge.txt"
    yield path
    path.unlink(missing_ok=True)


def write_one_line(path: Path, kind: str, mb: int) -> None:
    """Writes a huge document of `kind` as the one line of `path`, in blocks."""
    code = f"""{UNITS[kind]}
n = {mb} * {MB} // len(unit.encode())
per = max(1, 8 * {MB} // len(unit.encode()))
with open({str(path)!r}, "w", encoding="utf-8") as f:
    block = unit * per
    for _ in range(n // per):
        f.write(block)
    f.write(unit * (n % per) + "\\n")
"""
    subprocess.run([sys.executable, "-c", code], check=True)


# ----- counting --------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kind", KINDS)
def test_count_words_of_one_huge_doc(tmp_path: Path, kind: str, threads: int) -> None:
    call = f"wpiece.count_words([doc], num_threads={threads})"
    elapsed = run_interrupted(doc_setup(kind, COUNT_SIZE[kind]), call, tmp_path)
    assert elapsed < BOUND_S


@pytest.mark.parametrize("kind", ["cjk", "accented"])
def test_count_words_of_a_file_of_one_huge_line(
    one_line_file: Path, tmp_path: Path, kind: str
) -> None:
    write_one_line(one_line_file, kind, COUNT_SIZE[kind])
    call = f"wpiece.count_words({str(one_line_file)!r}, num_threads=1)"
    assert run_interrupted("", call, tmp_path) < BOUND_S


def test_train_on_a_file_of_one_huge_line(one_line_file: Path, tmp_path: Path) -> None:
    write_one_line(one_line_file, "accented", SIZE["accented"])
    call = f"wpiece.train({str(one_line_file)!r}, vocab_size=1000, num_threads=1)"
    assert run_interrupted("", call, tmp_path) < BOUND_S


@pytest.mark.parametrize("kind", ["cjk", "accented"])
def test_train_from_iterator_of_one_huge_doc(tmp_path: Path, kind: str) -> None:
    call = "wpiece.train_from_iterator([doc], vocab_size=1000)"
    assert run_interrupted(doc_setup(kind, COUNT_SIZE[kind]), call, tmp_path) < BOUND_S


# ----- encoding --------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_encode_of_one_huge_doc(tmp_path: Path, kind: str) -> None:
    setup = doc_setup(kind, ENCODING_SIZE[kind]) + TOK
    assert run_interrupted(setup, "tok.encode(doc)", tmp_path) < BOUND_S


@pytest.mark.parametrize("kind", ["cjk", "accented"])
def test_encode_batch_of_one_huge_doc(tmp_path: Path, kind: str) -> None:
    setup = doc_setup(kind, ENCODING_SIZE[kind]) + TOK
    assert run_interrupted(setup, "tok.encode_batch([doc])", tmp_path) < BOUND_S


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kind", KINDS)
def test_encode_batch_flat_of_one_huge_doc(tmp_path: Path, kind: str, threads: int) -> None:
    setup = doc_setup(kind, SIZE[kind]) + TOK
    call = f"tok.encode_batch_flat([doc], num_threads={threads})"
    assert run_interrupted(setup, call, tmp_path) < BOUND_S


@pytest.mark.parametrize("kind", ["cjk", "accented"])
def test_encode_batch_numpy_of_one_huge_doc(tmp_path: Path, kind: str) -> None:
    # int64 arrays: 150 MB of text already makes a few GB of them.
    setup = doc_setup(kind, 150) + TOK
    assert run_interrupted(setup, "tok.encode_batch_numpy([doc])", tmp_path) < BOUND_S


@pytest.mark.parametrize("kind", ["cjk", "accented"])
def test_encode_arrow_of_one_huge_row(tmp_path: Path, kind: str) -> None:
    arrow = "import pyarrow as pa\nrow = pa.array([doc])\ndel doc\n"
    setup = doc_setup(kind, SIZE[kind]) + TOK + arrow
    assert run_interrupted(setup, "tok.encode_arrow(row)", tmp_path) < BOUND_S


@pytest.mark.parametrize("kind", ["cjk", "accented"])
def test_encode_files_of_one_huge_line(one_line_file: Path, tmp_path: Path, kind: str) -> None:
    write_one_line(one_line_file, kind, SIZE[kind])
    call = f"tok.encode_files({str(one_line_file)!r}, num_threads=1)"
    assert run_interrupted(TOK, call, tmp_path) < BOUND_S


# ----- word counts with many types ---------------------------------------------

# 24M distinct words of 12 random Cyrillic letters, counted from 1M-word documents
# on two threads (about 10 s, so once for all the calls below; left alone each
# call takes 4-11 s). With the ~8M types of a big real corpus these calls take
# about a second here: too short to tell a call that stops from one that runs
# to its end.
MANY_TYPES = """
import numpy as np
size = (24_000_000, 13)
letters = np.random.default_rng(0).integers(0x430, 0x450, size=size, dtype=np.uint16)
letters[:, 12] = ord(" ")
text = letters.tobytes().decode("utf-16-le")
del letters
step = 13 * 1_000_000
counts = wpiece.count_words([text[i : i + step] for i in range(0, len(text), step)], num_threads=2)
del text
before = (len(counts), counts.total())
"""

# The save comes first: the folder must still be empty when the child is done.
MANY_TYPES_CALLS = {
    "save": "counts.save('saved/counts.wpc')",
    "items": "counts.items()",
    "iteration": "for _ in counts: pass",
    "most_common": "counts.most_common()",
    "merge": "counts + counts",
    # In place: stopped while copying or while adding, it must undo what it did.
    "update": "counts += counts",
}
# Run after the calls above, and not stopped by its signal (it is quick).
UNCHANGED = "assert (len(counts), counts.total()) == before, 'counts changed'"


@pytest.fixture(scope="module")
def many_types(tmp_path_factory: pytest.TempPathFactory) -> tuple[Results, Path]:
    folder = tmp_path_factory.mktemp("many_types")
    (folder / "saved").mkdir()
    calls = [*MANY_TYPES_CALLS.values(), UNCHANGED]
    results = interrupt_each(MANY_TYPES, calls, folder)
    return results, folder


@pytest.mark.parametrize("name", list(MANY_TYPES_CALLS))
def test_word_counts_with_many_types(many_types: tuple[Results, Path], name: str) -> None:
    results, folder = many_types
    elapsed, outcome = results[MANY_TYPES_CALLS[name]]
    assert outcome == "interrupted", f"{name} ran to its end ({elapsed:.1f} s after SIGINT)"
    assert elapsed < BOUND_S
    if name == "save":
        assert listing(folder / "saved") == [], "the save left a file behind"


def test_interrupted_word_counts_calls_change_nothing(many_types: tuple[Results, Path]) -> None:
    results, _ = many_types
    assert results[UNCHANGED][1] == "finished"


# 8M types of 16 random hex digits (the load alone takes several seconds).
SAVED_COUNTS = """
import numpy as np
rng = np.random.default_rng(0)
chars = np.frombuffer(b"0123456789abcdef", np.uint8)[rng.integers(0, 16, size=(8_000_000, 17))]
chars[:, 16] = ord(" ")
counts = wpiece.count_words([chars.tobytes().decode("ascii")], num_threads=2)
del chars
counts.save("counts.wpc")
data = counts.to_bytes()
"""

SAVED_COUNTS_CALLS = {
    "load": "wpiece.WordCounts.load('counts.wpc')",
    "from_bytes": "wpiece.WordCounts.from_bytes(data)",
    "train_from_counts": "wpiece.train_from_counts(counts, vocab_size=1000)",
}


@pytest.fixture(scope="module")
def saved_counts(tmp_path_factory: pytest.TempPathFactory) -> Results:
    folder = tmp_path_factory.mktemp("saved_counts")
    results = interrupt_each(SAVED_COUNTS, list(SAVED_COUNTS_CALLS.values()), folder)
    assert listing(folder) == ["counts.wpc"]
    return results


@pytest.mark.parametrize("name", list(SAVED_COUNTS_CALLS))
def test_word_counts_loading_and_training(saved_counts: Results, name: str) -> None:
    elapsed, outcome = saved_counts[SAVED_COUNTS_CALLS[name]]
    assert outcome == "interrupted", f"{name} ran to its end ({elapsed:.1f} s after SIGINT)"
    assert elapsed < BOUND_S


# ----- loading a huge tokenizer --------------------------------------------------

# 3M random tokens of 40 letters after the BERT vocabulary (120 MB): building
# the model of these takes several seconds and a few GB. (A 1 GiB vocab.txt of
# long tokens would need tens of GB.)
EXTRA_TOKENS = """
import numpy as np
n, width = 3_000_000, 40
letters = np.random.default_rng(0).integers(ord("a"), ord("z") + 1, size=(n, width), dtype=np.uint8)
"""

HUGE_VOCAB_TXT = (
    EXTRA_TOKENS
    + f"""
lines = np.full((n, width + 1), ord("\\n"), np.uint8)
lines[:, :width] = letters
with open(huge_path, "wb") as f:
    f.write(open({str(VOCAB_TXT)!r}, "rb").read())
    f.write(lines.tobytes())
del letters, lines
"""
)

# The tokens go at the end of model.vocab, the last member of the file; each
# entry is `,"<token>":<id>`, the id right-aligned in 8 characters.
HUGE_TOKENIZER_JSON = (
    EXTRA_TOKENS
    + f"""
import json
head = json.dumps(json.loads(open({str(TOKENIZER_JSON)!r}, encoding="utf-8").read()))
assert head.endswith("}}}}}}")
ids = len(json.loads(head)["model"]["vocab"]) + np.arange(n)
entries = np.full((n, width + 12), ord(" "), np.uint8)
entries[:, 0:2] = np.frombuffer(b',"', np.uint8)
entries[:, 2 : 2 + width] = letters
entries[:, 2 + width : 4 + width] = np.frombuffer(b'":', np.uint8)
for k in range(8):
    power = 10 ** (7 - k)
    digit = (ids // power % 10 + ord("0")).astype(np.uint8)
    entries[:, 4 + width + k] = np.where((ids >= power) | (k == 7), digit, ord(" "))
with open(huge_path, "wb") as f:
    f.write(head[:-3].encode())
    f.write(entries.tobytes())
    f.write(b"}}}}}}")
del letters, entries, ids
"""
)


@pytest.mark.parametrize(
    ("name", "setup"),
    [("vocab.txt", HUGE_VOCAB_TXT), ("tokenizer.json", HUGE_TOKENIZER_JSON)],
)
def test_loading_a_huge_tokenizer(tmp_path: Path, name: str, setup: str) -> None:
    # Written by the child's setup beside its (empty) working folder.
    path, work = tmp_path / name, tmp_path / "work"
    work.mkdir()
    try:
        setup = f"huge_path = {str(path)!r}\n{setup}"
        call = "wpiece.Tokenizer.from_file(huge_path)"
        assert run_interrupted(setup, call, work) < BOUND_S
    finally:
        path.unlink(missing_ok=True)


# ----- command line -----------------------------------------------------------


def test_cli_train_on_one_huge_line_stops_and_writes_nothing(
    one_line_file: Path, tmp_path: Path
) -> None:
    write_one_line(one_line_file, "accented", SIZE["accented"])
    out = tmp_path / "tok"
    args = ["train", str(one_line_file), "--vocab-size", "1000", "--threads", "1"]
    elapsed, code, err = interrupt_command(
        [sys.executable, "-m", "wpiece", *args, "--no-progress", "-o", str(out)], tmp_path
    )
    assert code == 130, (code, err)
    assert elapsed < BOUND_S
    assert "Traceback" not in err
    assert listing(tmp_path) == ["huge.txt"]


def test_cli_encode_of_one_huge_line_stops_and_writes_nothing(
    one_line_file: Path, tmp_path: Path
) -> None:
    write_one_line(one_line_file, "accented", SIZE["accented"])
    args = ["encode", str(one_line_file), "--tokenizer", str(VOCAB_TXT)]
    elapsed, code, err = interrupt_command(
        [sys.executable, "-m", "wpiece", *args, "--no-progress", "-o", "ids.jsonl"], tmp_path
    )
    assert code == 130, (code, err)
    assert elapsed < BOUND_S
    assert "Traceback" not in err
    assert listing(tmp_path) == ["huge.txt"]
