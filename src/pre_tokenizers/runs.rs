//! What HF's `NormalizedString::split` does: a split finds runs of text
//! flagged as delimiter or not, and a [`SplitBehavior`] says what becomes of
//! the delimiters. Every pre-tokenizer of a chain is runs plus a behavior.

/// What a split does with the delimiters it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitBehavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

impl SplitBehavior {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "Removed" | "removed" => Self::Removed,
            "Isolated" | "isolated" => Self::Isolated,
            "MergedWithPrevious" | "merged_with_previous" => Self::MergedWithPrevious,
            "MergedWithNext" | "merged_with_next" => Self::MergedWithNext,
            "Contiguous" | "contiguous" => Self::Contiguous,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Removed => "Removed",
            Self::Isolated => "Isolated",
            Self::MergedWithPrevious => "MergedWithPrevious",
            Self::MergedWithNext => "MergedWithNext",
            Self::Contiguous => "Contiguous",
        }
    }
}

/// A run of text: its byte range and whether it is a delimiter.
pub(super) type Run = (usize, usize, bool);

pub(super) fn split_by(
    piece: &str,
    pred: impl Fn(char) -> bool,
    behavior: SplitBehavior,
    runs: &mut Vec<Run>,
    out: &mut Vec<(usize, usize)>,
) {
    char_runs(piece, pred, runs);
    apply(runs, behavior, 0, out);
}

/// Each char matching `pred` is a delimiter run of its own; the text
/// between is one run.
pub(super) fn char_runs(text: &str, pred: impl Fn(char) -> bool, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut last = 0;
    for (b, c) in text.char_indices() {
        if pred(c) {
            if last < b {
                runs.push((last, b, false));
            }
            runs.push((b, b + c.len_utf8(), true));
            last = b + c.len_utf8();
        }
    }
    if last < text.len() {
        runs.push((last, text.len(), false));
    }
}

/// Turns runs into words by `behavior` (HF `NormalizedString::split`);
/// empty words are dropped.
pub(super) fn apply(
    runs: &[Run],
    behavior: SplitBehavior,
    base: usize,
    out: &mut Vec<(usize, usize)>,
) {
    let mut kept: Vec<(usize, usize, bool)> = Vec::with_capacity(runs.len());
    match behavior {
        SplitBehavior::Isolated => kept.extend(runs.iter().map(|&(s, e, _)| (s, e, false))),
        SplitBehavior::Removed => kept.extend_from_slice(runs),
        SplitBehavior::Contiguous => {
            let mut previous = false;
            for &(s, e, m) in runs {
                match kept.last_mut() {
                    Some(last) if m == previous => last.1 = e,
                    _ => kept.push((s, e, false)),
                }
                previous = m;
            }
        }
        SplitBehavior::MergedWithPrevious => {
            let mut previous = false;
            for &(s, e, m) in runs {
                match kept.last_mut() {
                    Some(last) if m && !previous => last.1 = e,
                    _ => kept.push((s, e, false)),
                }
                previous = m;
            }
        }
        SplitBehavior::MergedWithNext => {
            let mut previous = false;
            for &(s, e, m) in runs.iter().rev() {
                match kept.last_mut() {
                    Some(last) if m && !previous => last.0 = s,
                    _ => kept.push((s, e, false)),
                }
                previous = m;
            }
            kept.reverse();
        }
    }
    out.extend(
        kept.into_iter()
            .filter(|&(s, e, removed)| !removed && s < e)
            .map(|(s, e, _)| (base + s, base + e)),
    );
}
