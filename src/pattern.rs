//! The patterns of HF's `Split` and `Replace`: a string, matched
//! literally, or a `Regex`, matched by Oniguruma (the `onig` crate), the
//! engine HF matches it with, so both find the same matches.

use std::sync::Arc;

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// A non-empty string, matched literally.
    Literal(String),
    Regex(RegexPattern),
}

/// A compiled Oniguruma regex and its source (what it is saved as, and
/// what it compares by).
#[derive(Clone)]
pub struct RegexPattern {
    source: String,
    regex: Arc<onig::Regex>,
    /// The pattern as one class of chars, read once when it is compiled.
    class_run: Option<ClassRun>,
}

impl RegexPattern {
    /// Compiles `source` as HF does (Oniguruma's default syntax, Ruby's).
    pub fn new(source: &str) -> Result<Self> {
        let regex = onig::Regex::new(source)
            .map_err(|e| Error::Value(format!("invalid Regex pattern {source:?}: {e}")))?;
        let class_run = class_run_of(source, &regex);
        Ok(Self {
            source: source.to_owned(),
            regex: Arc::new(regex),
            class_run,
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether some text may hold an empty match. Without constructs that
    /// look at the text around a match, a pattern matches empty somewhere
    /// exactly when it matches the empty text. With zero-width assertions
    /// (anchors, boundaries, lookarounds) only, the pattern with each
    /// assertion made always true is asked instead: it matches empty
    /// wherever the pattern does, so if it cannot, neither can the pattern
    /// (`\b(ko)\b` cannot). Any other such construct (a back-reference,
    /// `\K`, a call, a conditional) counts as matching empty.
    pub fn may_match_empty(&self) -> bool {
        if opaque_to_scanning(&self.source) {
            return true;
        }
        if !depends_on_context(&self.source) {
            return self.regex.find("").is_some();
        }
        let relaxed = without_assertions(&self.source).and_then(|p| onig::Regex::new(&p).ok());
        relaxed.is_none_or(|r| r.find("").is_some())
    }
}

/// `source` with each zero-width assertion (an anchor, a word or text
/// segment boundary, a lookaround) replaced by an empty group, which holds
/// everywhere; None if it holds another construct that looks around a match
/// (see [`depends_on_context`]).
fn without_assertions(source: &str) -> Option<String> {
    const ALWAYS: &str = "(?:)";
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('b' | 'B' | 'A' | 'z' | 'Z' | 'G' | 'y' | 'Y') if class_depth == 0 => {
                    out.push_str(ALWAYS)
                }
                Some('K' | 'g' | 'k') => return None,
                Some(d) if d.is_ascii_digit() && class_depth == 0 => return None,
                Some(d @ ('p' | 'P')) if chars.peek() == Some(&'{') => {
                    out.push('\\');
                    out.push(d);
                    for c in chars.by_ref() {
                        out.push(c);
                        if c == '}' {
                            break;
                        }
                    }
                }
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => out.push('\\'),
            },
            '[' => {
                class_depth += 1;
                out.push(c);
            }
            ']' if class_depth > 0 => {
                class_depth -= 1;
                out.push(c);
            }
            '^' | '$' if class_depth == 0 => out.push_str(ALWAYS),
            '(' if class_depth == 0 => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('*') || rest.starts_with("?(") || rest.starts_with("?~") {
                    return None;
                }
                let lookaround = ["?=", "?!", "?<=", "?<!"]
                    .iter()
                    .any(|l| rest.starts_with(l));
                if lookaround {
                    skip_group(&mut chars)?;
                    out.push_str(ALWAYS);
                } else {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Moves `chars` past the `)` that closes the group just opened (escapes and
/// classes skipped whole); None if it is never closed.
fn skip_group(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<()> {
    let (mut depth, mut class_depth) = (1usize, 0usize);
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next()?;
            }
            '[' => class_depth += 1,
            ']' if class_depth > 0 => class_depth -= 1,
            '(' if class_depth == 0 => depth += 1,
            ')' if class_depth == 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(());
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `source` holds a `[` that opens no class, which the scanners
/// below would take for one (and so miss what follows): in a comment
/// (`(?#...)`, or extended mode's `#` to the line's end, `(?x)`), in a
/// callout's code (`(?{...})`), or in a control or meta escape (`\c[`, `\C-[`, `\M-[`). Such patterns count as
/// matching empty.
fn opaque_to_scanning(source: &str) -> bool {
    let b = source.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                if matches!(b.get(i + 1), Some(b'c' | b'C' | b'M')) {
                    return true;
                }
                i += 2;
                continue;
            }
            b'(' if b.get(i + 1) == Some(&b'?') => {
                // A comment, or a callout's code (`(?{...})`).
                if matches!(b.get(i + 2), Some(b'#' | b'{')) {
                    return true;
                }
                let options = b[i + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || **c == b'-');
                if options.clone().any(|&c| c == b'x') {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether an Oniguruma (Ruby syntax) pattern holds an anchor, a word or
/// text-segment boundary, a lookaround, `\K`, a back-reference or
/// subexpression call, a conditional, a callout or an absent operator
/// (named groups are counted too, to stay on the safe side). Classes
/// (`[...]`, nested) hold none of these, but escapes in them are counted.
fn depends_on_context(source: &str) -> bool {
    let mut chars = source.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('b' | 'B' | 'A' | 'z' | 'Z' | 'G' | 'K' | 'y' | 'Y' | 'g' | 'k') => {
                    return true
                }
                Some(d) if d.is_ascii_digit() => return true,
                // A property's name (`\p{^L}`) holds no anchor.
                Some('p' | 'P') if chars.peek() == Some(&'{') => {
                    chars.find(|&c| c == '}');
                }
                _ => {}
            },
            '[' => class_depth += 1,
            ']' if class_depth > 0 => class_depth -= 1,
            '^' | '$' if class_depth == 0 => return true,
            '(' if class_depth == 0 => {
                let next = chars.peek().copied();
                if next == Some('*') {
                    return true;
                }
                if next == Some('?') {
                    chars.next();
                    if matches!(chars.peek(), Some('=' | '!' | '<' | '(' | '~')) {
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// A pattern that matches one char of a class at a time (`C`) or each
/// maximal run of them (`C+`): `\s`, `[0-9]`, `x`, and such, alone or
/// followed by `+`. Which ASCII chars are in the class is asked of the
/// pattern itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassRun {
    /// The ASCII chars of the class, by code.
    pub ascii: [bool; 128],
    /// Matches are maximal runs of the class (`C+`), not single chars.
    pub run: bool,
}

impl RegexPattern {
    /// The pattern as a [`ClassRun`], when its source is one atom matching
    /// exactly one char (a class `[...]` without nested classes, a class
    /// escape such as `\s`, an escaped or plain literal char), alone or
    /// followed by a greedy `+`.
    pub fn class_run(&self) -> Option<ClassRun> {
        self.class_run
    }
}

/// See [`RegexPattern::class_run`]: the class's ASCII members are asked of
/// the compiled `regex` itself.
fn class_run_of(source: &str, regex: &onig::Regex) -> Option<ClassRun> {
    let atom_end = one_char_atom(source)?;
    let run = match &source[atom_end..] {
        "" => false,
        "+" => true,
        _ => return None,
    };
    let mut ascii = [false; 128];
    for b in 0u8..128 {
        let c = (b as char).to_string();
        ascii[b as usize] = regex.find(&c) == Some((0, 1));
    }
    Some(ClassRun { ascii, run })
}

/// Whether `\e` stands for one char (or one of a class of chars) wherever
/// it is: class escapes, control chars, escaped metacharacters.
fn one_char_escape(e: char) -> bool {
    matches!(
        e,
        's' | 'S' | 'd' | 'D' | 'w' | 'W' | 'h' | 'H' | 't' | 'n' | 'r' | 'f' | 'v'
    ) || ".^$|?*+()[]{}\\-/".contains(e)
}

/// Where the atom at the start of `source` ends, if it matches exactly one
/// char whatever surrounds it.
fn one_char_atom(source: &str) -> Option<usize> {
    let mut chars = source.char_indices();
    let (_, first) = chars.next()?;
    match first {
        '\\' => {
            let (i, e) = chars.next()?;
            // Not \R (a line break may be two chars), \X, \p, \x, anchors,
            // references.
            one_char_escape(e).then_some(i + e.len_utf8())
        }
        '[' => {
            let mut empty = true;
            let mut escaped = false;
            for (i, c) in chars {
                match c {
                    _ if escaped => {
                        // Only escapes that stand for chars or classes of chars.
                        if !one_char_escape(c) {
                            return None;
                        }
                        escaped = false;
                    }
                    '\\' => escaped = true,
                    // Nested classes, POSIX brackets, intersections: not read here.
                    '[' | '&' => return None,
                    ']' if !empty => return Some(i + 1),
                    ']' => return None,
                    _ => {}
                }
                empty = false;
            }
            None
        }
        c if c.is_ascii() && !".^$|?*+(){}]".contains(c) => Some(1),
        _ => None,
    }
}

impl std::fmt::Debug for RegexPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Regex({:?})", self.source)
    }
}

impl PartialEq for RegexPattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for RegexPattern {}

impl Pattern {
    /// See [`RegexPattern::class_run`]; a literal of one ASCII char is one.
    pub fn class_run(&self) -> Option<ClassRun> {
        match self {
            Pattern::Literal(p) if p.len() == 1 && p.is_ascii() => {
                let mut ascii = [false; 128];
                ascii[p.as_bytes()[0] as usize] = true;
                Some(ClassRun { ascii, run: false })
            }
            Pattern::Literal(_) => None,
            Pattern::Regex(r) => r.class_run(),
        }
    }

    /// The non-overlapping matches `(start, end)` in `text` (byte offsets),
    /// left to right; a regex may match empty strings.
    pub fn matches<'t>(&'t self, text: &'t str) -> Box<dyn Iterator<Item = (usize, usize)> + 't> {
        match self {
            Pattern::Literal(p) => Box::new(
                text.match_indices(p.as_str())
                    .map(|(at, m)| (at, at + m.len())),
            ),
            Pattern::Regex(r) => Box::new(r.regex.find_iter(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_that_may_match_empty_are_known() {
        for p in [
            "a*",
            "(?=b)",
            "(?<=a)",
            "^",
            "$",
            "\\b",
            "b|",
            "x?",
            "(a)\\1",
            "(?<n>a)\\k<n>",
            "\\Ka",
            "[a]*",
            "\\bx?\\b",
            "^$",
            "(?<=(a))\\1?",
            "\\b(?:ko|)\\b",
            "a|^",
            "(?!x)",
            "\\G",
            "\\A(?=a)",
            // A `[` that opens no class must not hide what follows it.
            "(?#[)\\bx?\\b",
            "\\c[|\\bx?\\b",
            "\\C-[|\\b",
            "(?x)#[\n\\bx?\\b",
            "(?#[)(?=a)",
            "\\M-\\C-[|(?=a)",
            "(?ix:#[\n)^",
            "(?{[})\\bx?\\b",
            "\\p{^L}?\\b",
        ] {
            assert!(RegexPattern::new(p).unwrap().may_match_empty(), "{p}");
        }
        for p in [
            "\\s+",
            "[^\\w\\s]+",
            "a+",
            "(?i)the",
            "[$^]",
            "''|``",
            "\\p{P}",
            "(?:ab)+",
            // Assertions around what must match a char.
            "\\b(ko)\\b",
            "^\\s+",
            "\\s+$",
            "(?<=a)b",
            "(?<![(]x)y(?=[)])",
            "\\Bing\\b",
            "(?<n>a)",
            "[\\b^$]",
            "\\p{^L}\\b",
            "\\b\\P{^Lu}+$",
        ] {
            assert!(!RegexPattern::new(p).unwrap().may_match_empty(), "{p}");
        }
    }

    #[test]
    fn class_runs_are_single_char_atoms_alone_or_repeated() {
        let members = |p: &str| {
            let c = RegexPattern::new(p).unwrap().class_run().unwrap();
            let chars: String = (0u8..128)
                .filter(|&b| c.ascii[b as usize])
                .map(char::from)
                .collect();
            (chars, c.run)
        };
        assert_eq!(members(r"\s+"), ("\t\n\x0b\x0c\r ".into(), true));
        assert_eq!(members(r"[0-9]"), ("0123456789".into(), false));
        assert_eq!(members(r"[,;\-]+"), (",-;".into(), true));
        assert_eq!(members(r"\."), (".".into(), false));
        assert_eq!(members("x+"), ("x".into(), true));
        assert_eq!(members(r"[^a-z\s]").0.len(), 128 - 26 - 6);
        // Anything else: more than one atom, other repetitions, groups,
        // nested classes, escapes of more than one char or of context.
        for p in [
            r"\s{2,}",
            "ab",
            "a+?",
            "a++",
            "a*",
            "(a)",
            r"[[:alpha:]]",
            r"[a&&b]",
            r"\R",
            r"\X",
            r"\p{L}",
            r"\b",
            "^a",
            r"\x41",
            ".",
            "[]a]",
            r"(a)\1",
        ] {
            assert!(RegexPattern::new(p).unwrap().class_run().is_none(), "{p}");
        }
        let comma = Pattern::Literal(",".into()).class_run().unwrap();
        assert!(comma.ascii[b',' as usize] && !comma.run);
        assert!(Pattern::Literal(",,".into()).class_run().is_none());
    }
}
