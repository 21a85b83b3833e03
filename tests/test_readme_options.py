"""README.md and the real signatures agree.

Every option README.md names is read from README.md itself (never from a copy
kept here) and checked against what the code accepts:

- the "Options (on `Tokenizer(...)`, ...)" paragraph, both ways: each option it
  lists is accepted by each function it lists it for, and each public keyword
  of those functions is listed;
- the keyword arguments of every call in the ```python blocks, bound to the
  real signature (positional arguments too);
- the calls written inline in prose and tables (`get_vocab(with_added_tokens=)`,
  `prune(min_count)`) and the `name` (`option`, ...) lists after a function;
- every `--flag` of a `wpiece <command>` line in the ```bash blocks (and in
  inline code), against that command's `--help`.

Each part asserts a floor on what it found, so a README section that is
renamed or removed fails here instead of passing with nothing checked.
"""

from __future__ import annotations

import ast
import inspect
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

import wpiece
import wpiece.ray
import wpiece.spark
from wpiece.quality import TextStats
from wpiece.training_options import TrainingOptions

from conftest import VOCAB_TXT

README = Path(__file__).resolve().parent.parent / "README.md"
TEXT = README.read_text(encoding="utf-8")

# Public keywords intentionally left out of the README's options paragraph,
# by function (qualified name), each with the reason. Keep it small: a public
# option a user cannot read about is a README bug.
UNDOCUMENTED: dict[str, set[str]] = {}

# Where a bare name in README prose (`prune(...)`, `encode_batch_flat`) is looked up.
PUBLIC_MODULES = (wpiece, wpiece.spark, wpiece.ray)
PUBLIC_CLASSES = (
    wpiece.Tokenizer,
    wpiece.Encoding,
    wpiece.AddedToken,
    wpiece.WordCounts,
    TrainingOptions,
    wpiece.TrainingRecord,
    TextStats,
)
# The training functions the README's prose calls "the training functions".
TRAINING_FUNCTIONS = [getattr(wpiece, n) for n in wpiece.__all__ if n.startswith("train")]

OPTION = re.compile(r"(?P<name>[a-z][a-z0-9_]*)(?:=.+)?")
# The messages of a keyword a function does not take: Python's and PyO3's
# "unexpected keyword argument", and `Tokenizer.from_file`'s "unknown options".
REFUSED_KEYWORD = re.compile(r"unexpected keyword argument|unknown options?\b")


# ----- reading README.md ---------------------------------------------------------


def fenced_blocks(language: str) -> list[str]:
    """The bodies of the ```language blocks, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", TEXT, flags=re.M | re.S)


def paragraph_starting(prefix: str) -> str:
    """The one paragraph (blank-line separated) of README.md that starts with
    `prefix`, joined into one line."""
    found = [p for p in re.split(r"\n\s*\n", TEXT) if p.startswith(prefix)]
    assert len(found) == 1, f"README.md: expected one paragraph starting {prefix!r}, {len(found)}"
    return " ".join(found[0].split())


def drop_asides(text: str) -> str:
    """`text` without its parenthesized asides (nested ones too); parentheses
    inside `code` (`Tokenizer(...)`) are code, not asides, and are kept."""
    out: list[str] = []
    depth = 0
    in_code = False
    for ch in text:
        if ch == "`":
            in_code = not in_code
        elif not in_code and ch == "(":
            depth += 1
            continue
        elif not in_code and ch == ")":
            assert depth > 0, f"README.md: unbalanced ')' in {text!r}"
            depth -= 1
            continue
        if depth == 0:
            out.append(ch)
    assert depth == 0 and not in_code, f"README.md: unbalanced '(' or '`' in {text!r}"
    return "".join(out)


def split_clauses(text: str) -> list[str]:
    """`text` cut at each '. ' or '; ' (or a final '.') outside `code`."""
    clauses: list[str] = []
    start = 0
    in_code = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif not in_code and ch in ".;" and (i + 1 == len(text) or text[i + 1] == " "):
            clauses.append(text[start:i].strip())
            start = i + 1
    clauses.append(text[start:].strip())
    return [c for c in clauses if c]


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


# ----- the real callables ----------------------------------------------------------


def qualname(func: Any) -> str:
    """`Tokenizer.from_file`, or `wpiece.spark.encode` for another module's."""
    name = str(getattr(func, "__qualname__", func))
    module = getattr(func, "__module__", "")
    other = module not in ("wpiece", "wpiece._core") and not hasattr(wpiece, name.split(".")[0])
    return f"{module}.{name}" if other and module else name


def resolve_dotted(name: str) -> Any:
    """`Tokenizer.from_file`, `train` or `wpiece.spark.encode` as an object of
    the package, or None."""
    parts = name.split(".")
    if parts[0] == "wpiece":
        parts = parts[1:]
    obj: Any = wpiece
    for part in parts:
        if not hasattr(obj, part):
            return None
        obj = getattr(obj, part)
    return obj


def resolve_bare(name: str) -> list[Any]:
    """Every public callable of the package named `name`: module functions and
    classes, and methods of the public classes."""
    if "." in name:
        found = resolve_dotted(name)
        return [found] if callable(found) else []
    hits: list[Any] = []
    for module in PUBLIC_MODULES:
        obj = getattr(module, name, None)
        exported = name in getattr(module, "__all__", ())
        defined = getattr(obj, "__module__", None) == module.__name__
        if callable(obj) and (exported or defined) and not name.startswith("_"):
            hits.append(obj)
    for cls in PUBLIC_CLASSES:
        static = inspect.getattr_static(cls, name, None)
        if static is not None and not isinstance(static, property) and callable(getattr(cls, name)):
            hits.append(getattr(cls, name))
    unique: list[Any] = []
    for h in hits:  # a class re-exported by two modules is one callable
        if all(h is not u for u in unique):
            unique.append(h)
    return unique


def signature(func: Any, *, drop_self: bool = False) -> inspect.Signature:
    """The signature a caller sees: Python's, or for the extension's methods
    the one PyO3 records in `__text_signature__`."""
    try:
        sig = inspect.signature(func)
    except ValueError:  # pragma: no cover - every _core callable has one today
        pytest.fail(f"{qualname(func)} has no signature to check README.md against")
    if drop_self:
        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    return sig


def is_instance_method(cls: type, name: str) -> bool:
    static = inspect.getattr_static(cls, name)
    return not isinstance(static, (staticmethod, classmethod))


def named_keywords(sig: inspect.Signature) -> set[str]:
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {n for n, p in sig.parameters.items() if p.kind in kinds}


def option_keywords(sig: inspect.Signature) -> set[str]:
    """The options of a signature: keywords with a default (the ones without
    are its data, `vocab`, `files`, `texts`)."""
    return {
        n
        for n in named_keywords(sig)
        if sig.parameters[n].default is not inspect.Parameter.empty and not n.startswith("_")
    }


def takes_var_keywords(sig: inspect.Signature) -> bool:
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> dict[Any, Callable[[str], bool]]:
    """For the functions that take their options as `**options` (so their
    signature cannot say), whether they take a name: a call with it."""
    json_path = tmp_path_factory.mktemp("readme") / "tokenizer.json"
    wpiece.Tokenizer.from_file(VOCAB_TXT).save(json_path)
    defaults = {
        **{f.name: f.default for f in fields(TrainingOptions)},
        **{
            n: p.default
            for n, p in signature(wpiece.Tokenizer).parameters.items()
            if p.default is not inspect.Parameter.empty
        },
    }

    def from_file(name: str) -> bool:
        # Taken only if both kinds of file take it.
        taken = []
        for path in (VOCAB_TXT, json_path):
            try:
                wpiece.Tokenizer.from_file(path, **{name: defaults.get(name)})
            except TypeError as e:
                if not REFUSED_KEYWORD.search(str(e)):
                    raise
                taken.append(False)
            else:
                taken.append(True)
        return all(taken)

    return {wpiece.Tokenizer.from_file: from_file}


def accepts(func: Any, name: str, probes: dict[Any, Callable[[str], bool]]) -> bool:
    sig = signature(func)
    if name in named_keywords(sig):
        return True
    if func in probes:
        return probes[func](name)
    assert not takes_var_keywords(sig), (
        f"{qualname(func)} takes **options: add a probe for it to check {name!r}"
    )
    return False


# ----- 1. the options paragraph ------------------------------------------------------


@dataclass
class Clause:
    text: str
    targets: list[Any]
    options: list[str]


def targets_in(lead: str) -> list[Any]:
    """The functions a clause's lead-in names: `code` spans, and the training
    functions when it says so."""
    found: list[Any] = []
    for span in code_spans(lead):
        name = re.sub(r"\(.*\)$", "", span)
        obj = resolve_dotted(name)
        assert callable(obj), f"README.md options paragraph: {span!r} is not in wpiece"
        found.append(obj)
    if re.search(r"\btraining functions\b|^Training\b", lead):
        found.extend(TRAINING_FUNCTIONS)
    assert found, f"README.md options paragraph: no function named in {lead!r}"
    return found


def options_in(text: str) -> list[str]:
    spans = code_spans(text)
    for span in spans:
        assert OPTION.fullmatch(span), f"README.md options paragraph: {span!r} is not an option"
    return [m.group("name") for m in map(OPTION.fullmatch, spans) if m]


def options_paragraph() -> list[Clause]:
    """The options paragraph under the tour: a header naming the functions of
    its first list, then clauses '<functions> also take(s)|adds <options>'."""
    paragraph = paragraph_starting("Options (on ")
    m = re.fullmatch(r"Options \((?P<header>.*?)\): (?P<rest>.*)", paragraph)
    assert m, f"README.md: the options paragraph lost its header: {paragraph[:120]!r}"
    clauses: list[Clause] = []
    for i, text in enumerate(split_clauses(drop_asides(m["rest"]))):
        verb = re.match(r"(?P<lead>.*?)\b(?:also takes?|adds)\b(?P<options>.*)", text)
        if verb is None:
            assert i == 0, f"README.md options paragraph: whose options are these? {text!r}"
            lead, options = m["header"], text
        else:
            lead, options = verb["lead"], verb["options"]
        clauses.append(Clause(text, targets_in(lead), options_in(options)))
    return clauses


def documented_options() -> dict[Any, set[str]]:
    by_function: dict[Any, set[str]] = {}
    for clause in options_paragraph():
        assert clause.options, f"README.md options paragraph: no option in {clause.text!r}"
        for func in clause.targets:
            by_function.setdefault(func, set()).update(clause.options)
    return by_function


# What the paragraph must at least list per function: a floor, so a cut-down
# or reworded paragraph fails rather than checking less.
MIN_DOCUMENTED = {
    wpiece.Tokenizer: 12,
    wpiece.Tokenizer.from_file: 9,
    wpiece.train: 21,
    wpiece.train_from_iterator: 20,
    wpiece.train_from_counts: 18,
}


def test_options_paragraph_is_read() -> None:
    documented = documented_options()
    assert set(documented) == set(MIN_DOCUMENTED), sorted(map(qualname, documented))
    for func, floor in MIN_DOCUMENTED.items():
        assert len(documented[func]) >= floor, (qualname(func), sorted(documented[func]))


def test_every_listed_option_is_taken(probes: dict[Any, Callable[[str], bool]]) -> None:
    missing = {
        qualname(func): sorted(n for n in names if not accepts(func, n, probes))
        for func, names in documented_options().items()
    }
    assert not {f: n for f, n in missing.items() if n}, (
        "README.md lists options these functions do not take"
    )


def test_every_option_is_listed(probes: dict[Any, Callable[[str], bool]]) -> None:
    """The reverse: the paragraph claims to give the options of these
    functions, so none of their public keywords may be missing from it."""
    documented = documented_options()
    candidates = {f.name for f in fields(TrainingOptions)} | option_keywords(
        signature(wpiece.Tokenizer)
    )
    unlisted = {}
    for func, names in documented.items():
        sig = signature(func)
        if func in probes:  # **options: whatever a call takes
            taken = {n for n in candidates | names if probes[func](n)}
        else:
            assert not takes_var_keywords(sig), qualname(func)
            taken = option_keywords(sig)
        left_out = taken - names - UNDOCUMENTED.get(qualname(func), set())
        if left_out:
            unlisted[qualname(func)] = sorted(left_out)
    assert not unlisted, "public options missing from README.md's options paragraph"


def test_probe_tells_taken_from_refused(probes: dict[Any, Callable[[str], bool]]) -> None:
    """The probe of `from_file` can say no (else the reverse check is vacuous)."""
    probe = probes[wpiece.Tokenizer.from_file]
    assert probe("lowercase") and not probe("no_such_option") and not probe("vocab_size")


# ----- 2. keyword arguments in the ```python blocks --------------------------------------

FOREIGN = "foreign"  # a value of another library (transformers, Ray, pyarrow, ...)


@dataclass(frozen=True)
class Value:
    # "module"; "class" (the class itself) or "instance" (of the class `obj`);
    # "function" (a callable) or "method" (one taking the instance first); FOREIGN.
    kind: str
    obj: Any = None


# Instances for the attributes an instance sets itself (`tok.training_record`),
# which its class cannot show.
SAMPLES: dict[type, object] = {wpiece.Tokenizer: wpiece.Tokenizer(["[UNK]"])}


@dataclass
class CallSite:
    source: str
    func: Any
    sig: inspect.Signature
    node: ast.Call


def returned(func: Any) -> Value:
    """What calling `func` gives, from its return annotation: an instance of a
    class of the package, or a foreign value."""
    if isinstance(func, type):
        return Value("instance", func)
    annotation = inspect.signature(func).return_annotation
    if isinstance(annotation, str):
        namespace = getattr(func, "__globals__", {})
        annotation = namespace.get(annotation, getattr(wpiece, annotation, None))
    if isinstance(annotation, type) and annotation.__module__.startswith("wpiece"):
        return Value("instance", annotation)
    return Value(FOREIGN)


def evaluate(node: ast.expr, names: dict[str, Value]) -> Optional[Value]:
    """The value an expression of a README example stands for, as far as
    checking its calls needs; None when README never says what it is."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = evaluate(node.value, names)
        if owner is None or owner.kind == FOREIGN:
            return owner
        where = f"README.md: `{ast.unparse(node)}`"
        if owner.kind == "module":
            assert hasattr(owner.obj, node.attr), f"{where}: {owner.obj.__name__} has no such name"
            attr = getattr(owner.obj, node.attr)
            if isinstance(attr, type(wpiece)):
                return Value("module", attr)
            return Value("class", attr) if isinstance(attr, type) else Value("function", attr)
        cls = owner.obj
        static = inspect.getattr_static(cls, node.attr, None)
        if static is None:  # set on each instance (`tok.training_record`), or a typo
            sample = SAMPLES.get(cls)
            assert owner.kind == "instance" and hasattr(sample, node.attr), (
                f"{where}: {cls.__qualname__} has no such attribute"
            )
            return None
        if not inspect.isroutine(getattr(cls, node.attr)):
            return None  # a property, `enc.overflowing`: its value is not checked
        if owner.kind == "class" or not is_instance_method(cls, node.attr):
            return Value("function", getattr(cls, node.attr))
        return Value("method", getattr(cls, node.attr))
    if isinstance(node, ast.Call):
        callee = evaluate(node.func, names)
        if callee is None or callee.kind == FOREIGN:
            return callee
        if callee.kind in ("function", "method", "class"):
            return returned(callee.obj)
        return None
    return None


def bind_call(site: CallSite) -> None:
    """Binds the call's arguments to the signature (placeholders for values)."""
    node = site.node
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        args: list[object] = []  # *args or **kwargs in the call: check the names only
    else:
        args = [object()] * len(node.args)
    kwargs = {k.arg: object() for k in node.keywords if k.arg is not None}
    try:
        site.sig.bind_partial(*args, **kwargs)
        error = None
    except TypeError as e:
        error = str(e)
    assert error is None, (
        f"README.md: {site.source!r} does not fit {qualname(site.func)}{site.sig}: {error}"
    )


def python_calls() -> Iterator[CallSite]:
    """Every call in the ```python blocks to a callable of the package. Names
    keep what the blocks assign them, block after block (`tok` stays a
    Tokenizer)."""
    names: dict[str, Value] = {"wpiece": Value("module", wpiece)}
    blocks = fenced_blocks("python")
    assert len(blocks) >= 6, "README.md lost its ```python examples"
    for block in blocks:
        tree = ast.parse(block)
        for stmt in tree.body:
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call):
                    continue
                callee = evaluate(node.func, names)
                source = ast.get_source_segment(block, node) or ""
                if callee is None:
                    assert not node.keywords, (
                        f"README.md: cannot tell what {source!r} calls: import its "
                        "receiver or assign it from a call in the example"
                    )
                    continue
                if callee.kind == FOREIGN:
                    continue
                assert callee.kind in ("function", "method", "class"), source
                sig = signature(callee.obj, drop_self=callee.kind == "method")
                yield CallSite(source, callee.obj, sig, node)
            bind_names(stmt, names)


def bind_names(stmt: ast.stmt, names: dict[str, Value]) -> None:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            full = alias.name if isinstance(stmt, ast.Import) else f"{stmt.module}.{alias.name}"
            top = full.split(".")[0]
            if alias.asname is None and top == "wpiece":
                names["wpiece"] = Value("module", wpiece)
            else:
                names[alias.asname or top] = (
                    Value("module", resolve_dotted(full)) if top == "wpiece" else Value(FOREIGN)
                )
    elif isinstance(stmt, ast.Assign):
        value = evaluate(stmt.value, names)
        for target in stmt.targets:
            for name in ast.walk(target):
                if not isinstance(name, ast.Name):
                    continue
                if not isinstance(target, ast.Name):  # unpacked: numpy arrays and the like
                    names[name.id] = Value(FOREIGN)
                elif value is None:  # unknown: a call with keywords on it fails
                    names.pop(name.id, None)
                else:
                    names[name.id] = value


def test_python_example_calls_fit_their_signatures() -> None:
    keywords: dict[str, set[str]] = {}
    for site in python_calls():
        bind_call(site)
        given = {k.arg for k in site.node.keywords if k.arg is not None}
        # A keyword that only **options would take: its signature cannot tell.
        hidden = given - named_keywords(site.sig)
        assert not hidden, f"{site.source!r}: {qualname(site.func)} has no parameter {hidden}"
        if given:
            keywords.setdefault(qualname(site.func), set()).update(given)
    # Floors: the tour, the three styles and the Spark/Ray examples pass keywords
    # to at least these many functions, these many keywords in all.
    assert len(keywords) >= 10, sorted(keywords)
    assert sum(map(len, keywords.values())) >= 25, keywords
    assert {"train", "train_from_iterator", "train_from_counts"} <= set(keywords), keywords


# ----- 3. calls and option lists written inline ---------------------------------------------


def inline_calls() -> Iterator[tuple[str, Any, list[str]]]:
    """`name(param, kw=)` in prose and tables: the callable of the package and
    the parameter names it mentions (literals and `...` mention none)."""
    for span in re.findall(r"`([A-Za-z_][\w.]*\([^`]*\))`", TEXT):
        try:  # `get_vocab(with_added_tokens=)` is a call missing its value
            expr = ast.parse(re.sub(r"=\s*(?=[,)])", "=...", span), mode="eval").body
        except SyntaxError:
            continue  # a formula, `p(x,y) / (f(x)·f(y))`
        if not isinstance(expr, ast.Call):
            continue
        mentioned = [a.id for a in expr.args if isinstance(a, ast.Name)]
        mentioned += [k.arg for k in expr.keywords if k.arg is not None]
        if not mentioned:
            continue
        hits = resolve_bare(ast.unparse(expr.func))
        if not hits:
            continue  # another library's (`ray.init(num_cpus=2)`)
        assert len(hits) == 1, f"README.md: `{span}` could be any of {[qualname(h) for h in hits]}"
        yield span, hits[0], mentioned


def inline_option_lists() -> Iterator[tuple[str, Any, list[str]]]:
    """`function` (`option`, `option`): a callable of the package followed by
    nothing but option names in parentheses."""
    pattern = r"`([A-Za-z_][\w.]*)` \(((?:`[a-z_][a-z0-9_]*`(?:, )?)+)\)"
    for name, listed in re.findall(pattern, TEXT):
        hits = [h for h in resolve_bare(name) if inspect.isroutine(h)]
        if hits:
            assert len(hits) == 1, f"README.md: `{name}` could be any of {hits}"
            yield name, hits[0], code_spans(listed)


def test_inline_options_are_taken() -> None:
    checked = []
    for span, func, mentioned in [*inline_calls(), *inline_option_lists()]:
        sig = signature(func)
        unknown = [n for n in mentioned if n not in sig.parameters]
        assert not unknown, f"README.md: `{span}` names {unknown}, not in {qualname(func)}{sig}"
        checked.append((qualname(func), mentioned))
    # get_vocab, get_vocab_size, WordCounts.prune, Tokenizer.from_file,
    # encode_batch_numpy and encode_batch_flat today.
    assert len(checked) >= 6, checked


# ----- 4. the command line ---------------------------------------------------------------


def cli_lines() -> Iterator[list[str]]:
    """The `wpiece ...` commands of the ```bash blocks and of inline code
    (`wpiece stats`), as argument lists."""
    lines = [ln for b in fenced_blocks("bash") for ln in b.replace("\\\n", " ").splitlines()]
    lines += re.findall(r"`(wpiece [a-z][^`]*)`", TEXT)
    for line in lines:
        words = shlex.split(line, comments=True)
        if words[:1] == ["wpiece"]:
            yield words[1:]


def help_text(command: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "wpiece", command, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"README.md: `wpiece {command}`: {done.stderr}"
    return done.stdout


def test_cli_flags_are_in_help() -> None:
    flags: dict[str, set[str]] = {}
    for words in cli_lines():
        command, *rest = words
        flags.setdefault(command, set()).update(
            w.split("=", 1)[0] for w in rest if w.startswith("-") and w != "-"
        )
    assert {"train", "encode", "decode", "stats"} <= set(flags), flags
    assert sum(map(len, flags.values())) >= 12, flags
    missing = {}
    for command, used in flags.items():
        offered = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", help_text(command)))
        if used - offered:
            missing[command] = sorted(used - offered)
    assert not missing, "README.md shows flags these commands do not take"
