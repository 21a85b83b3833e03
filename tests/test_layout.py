"""The shape of the source tree: data flows one way between Rust modules (no
module uses one that uses it back), and a file over 600 lines says in its
head comment why it is long."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
LONG = 600
WHY = "Why this file is long:"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def module_uses() -> dict[str, set[str]]:
    """Each Rust module and the crate modules its code (tests left out) uses."""
    files = {module_name(p): p for p in SRC.rglob("*.rs")}
    uses: dict[str, set[str]] = {}
    for name, path in files.items():
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", path.read_text(), flags=re.S)
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


def test_no_rust_module_uses_one_that_uses_it_back() -> None:
    uses = module_uses()
    assert "encode" in uses and "pipeline" in uses, sorted(uses)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            for n in uses.get(m, ()):
                if n == goal:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return False

    cycles = sorted((a, b) for a in uses for b in uses[a] if reaches(b, a))
    assert cycles == []


def test_the_checker_sees_real_edges() -> None:
    # The parser above must find real uses, or the test above proves nothing.
    uses = module_uses()
    assert "pipeline" in uses["hf_json"]
    assert "encode" in uses["pipeline"]
    assert "model::trie" in uses["model::wordpiece"]  # through super::
    assert "encode::scan" in uses["encode::chunks"]


def test_long_files_say_why() -> None:
    unexplained = []
    for path in [*SRC.rglob("*.rs"), *(ROOT / "python" / "wpiece").glob("*.py")]:
        text = path.read_text()
        if text.count("\n") > LONG:
            head = text[:4000]
            if WHY not in head:
                unexplained.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert unexplained == []
