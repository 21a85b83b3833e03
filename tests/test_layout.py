"""The shape of the source tree: data flows one way between Rust modules and
between Python modules (no module uses one that uses it back, not even
through an import inside a function), each concern has one owner, no file
passes 800 lines, and a library file over 600 lines says in its head
comment why it is long."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import wpiece

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = ROOT / "python" / "wpiece"
LONG = 600
LONGEST = 800
WHY = "Why this file is long:"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def without_tests(path: Path) -> str:
    return re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", path.read_text(), flags=re.S)


def module_uses() -> dict[str, set[str]]:
    """Each Rust module and the crate modules its code (tests left out) uses."""
    files = {module_name(p): p for p in SRC.rglob("*.rs")}
    uses: dict[str, set[str]] = {}
    for name, path in files.items():
        text = without_tests(path)
        parent = name.split("::")[:-1]  # what `super` names, in mod.rs or not
        found = set()
        for kind, rest in re.findall(
            r"\b(crate|super)::([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)", text
        ):
            parts = rest.split("::") if kind == "crate" else [*parent, *rest.split("::")]
            for k in range(len(parts), 0, -1):
                candidate = "::".join(parts[:k])
                if candidate in files:
                    found.add(candidate)
                    break
        found.discard(name)
        uses[name] = found
    return uses


def python_imports() -> dict[str, set[str]]:
    """Each module of the package ("" is the package itself) and the package
    modules it imports anywhere in its body: top level, inside functions,
    under TYPE_CHECKING."""
    paths = {("" if p.stem == "__init__" else p.stem): p for p in PACKAGE.glob("*.py")}
    modules = set(paths) | {p.stem for p in PACKAGE.glob("*.pyi")}
    found: dict[str, set[str]] = {}
    for name, path in paths.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 1:  # from .x import y / from . import x
                    targets = [node.module] if node.module else [a.name for a in node.names]
                elif node.level == 0 and (node.module or "").split(".")[0] == "wpiece":
                    rest = (node.module or "").split(".")[1:]
                    targets = [rest[0]] if rest else [""]
            elif isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == "wpiece":
                        targets.append(parts[1] if len(parts) > 1 else "")
            for t in targets:
                t = t.split(".")[0]
                edges.add(t if t in modules else "")
        edges.discard(name)
        found[name] = edges
    return found


def cycles_of(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The edges a -> b from which a can be reached back."""

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            for n in graph.get(m, ()):
                if n == goal:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return False

    return sorted((a, b) for a in graph for b in graph[a] if reaches(b, a))


def is_source(path: Path) -> bool:
    """Library code (not tests, benchmarks or tools)."""
    return SRC in path.parents or PACKAGE in path.parents


def source_files() -> list[Path]:
    return [
        *SRC.rglob("*.rs"),
        *PACKAGE.glob("*.py"),
        *PACKAGE.glob("*.pyi"),
        *(ROOT / "tests").glob("*.py"),
        *(ROOT / "tests").glob("*.rs"),
        *(ROOT / "benches").glob("*.py"),
        *(ROOT / "tools").glob("*.py"),
    ]


def test_no_rust_module_uses_one_that_uses_it_back() -> None:
    uses = module_uses()
    assert "encode" in uses and "pipeline" in uses, sorted(uses)
    assert cycles_of(uses) == []


def test_no_python_module_imports_one_that_imports_it_back() -> None:
    imports = python_imports()
    assert {"tokenizer", "training", "counts", "documents"} <= set(imports)
    assert cycles_of(imports) == []


def test_the_checkers_see_real_edges() -> None:
    # The parsers above must find real uses, or the tests above prove nothing.
    uses = module_uses()
    assert "pipeline" in uses["hf_json"]
    assert "encode" in uses["pipeline"]
    assert "model::trie" in uses["model::wordpiece"]  # through super::
    assert "encode::scan" in uses["encode::ascii"]
    assert cycles_of({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
    ]
    imports = python_imports()
    assert "_core" in imports["tokenizer"]
    assert "tokenizer" in imports["training"]
    assert "arrow" in imports["tokenizer"]  # imported inside a method


def test_no_file_passes_800_lines_and_long_ones_say_why() -> None:
    too_long, unexplained = [], []
    for path in source_files():
        text = path.read_text()
        lines = text.count("\n")
        where = f"{path.relative_to(ROOT)}: {lines} lines"
        if lines > LONGEST:
            too_long.append(where)
        elif lines > LONG and is_source(path) and WHY not in text[:4000]:
            unexplained.append(where)
    assert too_long == []
    assert unexplained == []


def test_stages_have_their_folders() -> None:
    stages = {
        "normalizers": ["mod.rs", "chain.rs"],
        "pre_tokenizers": ["mod.rs", "chain.rs"],
        "model": ["mod.rs", "vocab.rs", "trie.rs", "wordpiece.rs"],
        "pipeline": ["mod.rs", "post_process.rs", "truncation.rs", "padding.rs"],
        "encode": ["mod.rs"],
        "train": ["mod.rs", "counts.rs"],
        "io": ["mod.rs"],
        "python": ["mod.rs", "run.rs"],
    }
    for folder, files in stages.items():
        for f in files:
            assert (SRC / folder / f).is_file(), f"src/{folder}/{f}"
    for flat in ["normalizer", "normalizer_chain", "pre_tokenizer", "pre_tokenizer_chain", "io"]:
        assert not (SRC / f"{flat}.rs").exists(), f"src/{flat}.rs"


def test_one_splitter_serves_encoding_counting_and_the_pipeline() -> None:
    uses = module_uses()
    owner = next(m for m in uses if m.split("::")[-1] == "splitter")
    for user in ["encode", "train::counting", "pipeline"]:
        assert owner in uses[user] or any(
            owner in uses[m] for m in uses if m.startswith(user + "::")
        ), user
    # The choice between the BERT path and a tokenizer.json's chain is made
    # by the splitter alone: no other module names its two cases.
    choosing = sorted(
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.rs")
        if re.search(r"\b(Splitter|Self)::(Bert|Chain)\(", without_tests(path))
    )
    assert choosing and all(p.startswith("splitter/") for p in choosing), choosing


def test_one_cut_and_one_batch_plan() -> None:
    # Where a sequence is cut (kept part, overflowing parts) is computed in
    # one file; how a batch is encoded is chosen in one.
    cutting = sorted(
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.rs")
        if re.search(r"\(0\.\.len\)(\.rev\(\))?\.step_by", without_tests(path))
    )
    assert cutting == ["cut.rs"]
    choosing = sorted(
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.rs")
        if re.search(r"\.single_frame\(\)|\.single_is_plain\(\)", without_tests(path))
    )
    assert choosing == ["pipeline/batch.rs"]


def test_the_binding_runs_core_work_one_way() -> None:
    # Releasing the GIL and watching for Ctrl-C happen in one helper.
    for pattern in [r"allow_threads", r"check_signals"]:
        found = sorted(
            p.name for p in (SRC / "python").glob("*.rs") if re.search(pattern, p.read_text())
        )
        assert found == ["run.rs"], (pattern, found)


def test_python_holds_no_copy_of_the_core_settings() -> None:
    tok = wpiece.Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
    before = set(vars(tok))
    tok.enable_truncation(3)
    tok.enable_padding(length=4)
    # Besides the core: the training record, and transformers' own per-call
    # settings a folder or transformers tokenizer came with (the core has
    # none of them; only to_transformers reads them).
    assert set(vars(tok)) == before == {"_core", "training_record", "_transformers_settings"}
    assert tok._core.truncation == tok.truncation
    assert tok._core.padding == tok.padding
    assert tok.encode("a a a").ids == [2, 4, 3, 0]
    tok.no_padding()
    assert tok._core.padding is None
