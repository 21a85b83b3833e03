//! Fitting a vocabulary to the encoder it is used with. Merges build a
//! vocabulary for the segmentation training keeps, but text is encoded by
//! greedy longest match first (MaxMatch), which no merge criterion sees.
//! So: train past the wanted size, then remove tokens, round by round, those
//! whose loss costs the fewest tokens when the training words are encoded
//! by longest match (in the spirit of unigram pruning, with the real
//! encoder).
//!
//! The objective is Σ count(w) × |MaxMatch(w)| over the training words, at
//! the wanted size. The cost of a token is exact for the vocabulary of its
//! round: each word that uses it is encoded again without it, and the cost
//! is the words' count times the tokens that adds (negative when greedy
//! matching does better without it). Every round removes the cheapest fifth
//! of what is left to remove (at least a 32nd of the first surplus), ties
//! going to the later token, and recomputes every cost: on 20 MB of text a
//! tenth (and a 64th) took 1.6x the time for 0.02-0.07% fewer held-out
//! tokens, a fortieth no fewer. Costs are computed
//! per token, each on its own, so the result is the same at any thread
//! count. The special tokens and the alphabet are never removed.
//!
//! Then one round of growth: the pruned vocabulary encodes the training
//! words, the most frequent pairs of adjacent tokens in those encodings
//! (a twentieth of the size; ties to the lower ids) are joined into new
//! tokens (not ones the pruning removed), and the pruning runs again on the
//! vocabulary with them. The result is kept only if its objective is
//! lower. Merges never propose what longest match would use next; this
//! does. Held-out tokens per word (benches/bench_quality.py's split,
//! frequency score): multi 47 MB at 30k 1.3916 against 1.3875 with it, en
//! 10 MB at 8k 1.1578 against 1.1568. Measured while pruned tokens could
//! still be joined again (1.3872 and 1.1567 then): a second round 1.3870;
//! a tenth, a fifth or two fifths of the size offered no better than a
//! twentieth at en 8k; the growth's pruning at least a quarter of its
//! surplus a round took 12.8 s at multi 30k against 17.7 s with a 32nd
//! (1.3872 tokens per word against 1.3871), 10.9 s with one round (1.3889).

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::longest_match::LongestMatch;
use crate::cancel::Cancel;
use crate::error::Result;

/// A fitted vocabulary: the tokens kept (in their order) and those removed,
/// each with the cost it had when it went.
#[derive(Debug)]
pub struct Fitted {
    pub vocab: Vec<String>,
    pub removed: Vec<(String, i64)>,
    /// Σ count × tokens over the training words, each encoded by longest
    /// match with `vocab` (a word longer than the encoder takes: one token).
    pub tokens: u64,
}

/// The words to fit to: each once, with its count.
pub struct FitWords<'a> {
    pub words: &'a [&'a str],
    pub counts: &'a [u64],
    /// Longer words encode as one unknown token whatever the vocabulary.
    pub max_chars: usize,
}

/// The vocabulary being fitted: how longest match reads all its tokens, and
/// which are still in.
struct Matcher {
    all: LongestMatch,
    alive: Vec<bool>,
    /// Bytes each token covers at a word's start, and after it (0 for a
    /// token that cannot continue a word).
    start_len: Vec<u32>,
    continuation_len: Vec<u32>,
}

impl Matcher {
    fn new(tokens: &[String], prefix: &str) -> Result<Self> {
        let continuation = |t: &String| t.strip_prefix(prefix).map_or(0, |rest| rest.len() as u32);
        Ok(Self {
            all: LongestMatch::new(tokens, prefix)?,
            alive: vec![true; tokens.len()],
            start_len: tokens.iter().map(|t| t.len() as u32).collect(),
            continuation_len: tokens.iter().map(continuation).collect(),
        })
    }

    /// The bytes token `id` covers: at a word's start its whole string, after
    /// it the string without the continuation prefix.
    fn piece_len(&self, id: u32, at_start: bool) -> usize {
        let id = id as usize;
        if at_start {
            self.start_len[id] as usize
        } else {
            self.continuation_len[id] as usize
        }
    }

    /// How many more tokens longest match gives `word` without `u` than
    /// `seg`, its encoding with every token still in; None if some position
    /// has no token then (the word would be unknown). Longest match reads a
    /// word left to right and remembers nothing but where it is, so the two
    /// encodings part only where `seg` uses `u`, and agree again from the
    /// first boundary they share: only those stretches are encoded again.
    fn tokens_added_without(&self, word: &[u8], seg: &[u32], u: u32) -> Option<i64> {
        let (mut delta, mut j, mut at) = (0i64, 0usize, 0usize);
        loop {
            while j < seg.len() && seg[j] != u {
                at += self.piece_len(seg[j], j == 0);
                j += 1;
            }
            if j == seg.len() {
                return Some(delta);
            }
            // From `at`, the start of seg[j] = u, until a boundary of `seg`.
            let (mut pos, mut new, mut k, mut old_at) = (at, 0i64, j, at);
            loop {
                let mut best = 0;
                self.all.each(word, pos, |id, len| {
                    if id != u && self.alive[id as usize] {
                        best = len;
                    }
                });
                if best == 0 {
                    return None;
                }
                pos += best;
                new += 1;
                while old_at < pos {
                    old_at += self.piece_len(seg[k], k == 0);
                    k += 1;
                }
                if old_at == pos {
                    break;
                }
            }
            delta += new - (k - j) as i64;
            (j, at) = (k, old_at);
        }
    }

    /// The tokens longest match gives `word` (the alphabet always covers a
    /// training word, so it never fails while only merged tokens go).
    fn encode(&self, word: &[u8], out: &mut Vec<u32>) -> bool {
        let mut at = 0;
        while at < word.len() {
            let mut best = None;
            self.all.each(word, at, |id, len| {
                if self.alive[id as usize] {
                    best = Some((id, len));
                }
            });
            let Some((id, len)) = best else {
                return false;
            };
            out.push(id);
            at += len;
        }
        true
    }
}

/// One token in this many of the size is offered by the growth round.
const GROWTH_SHARE: usize = 20;

/// Removes tokens of `tokens` (the first `keep` never) until `target` are
/// left, then grows and prunes once more, as the module explains. Tokens
/// joined by the growth come last; `removed` holds those of `tokens` that
/// went, each with its cost when it went.
pub fn fit_to_longest_match(
    words: &FitWords<'_>,
    tokens: Vec<String>,
    keep: usize,
    target: usize,
    prefix: &str,
    cancel: &Cancel,
) -> Result<Fitted> {
    // The words longest match can encode: the others cost nothing to change.
    let fitted: Vec<usize> = (0..words.words.len())
        .filter(|&w| words.counts[w] > 0 && words.words[w].chars().count() <= words.max_chars)
        .collect();
    let fit = Fit {
        words,
        fitted,
        keep,
        target: target.max(keep),
        prefix,
        cancel,
    };
    // Words longest match cannot take encode as one unknown token each.
    let unknown: u128 = (0..words.words.len())
        .filter(|&w| words.counts[w] > 0 && words.words[w].chars().count() > words.max_chars)
        .map(|w| u128::from(words.counts[w]))
        .sum();
    let total = |objective: u128| u64::try_from(objective + unknown).unwrap_or(u64::MAX);
    let (mut first, objective) = fit.prune(tokens, 32)?;
    first.tokens = total(objective);
    let offered = fit.joined_pairs(&first.vocab, &first.removed, target.div_ceil(GROWTH_SHARE))?;
    if offered.is_empty() {
        return Ok(first);
    }
    let before: FxHashSet<&str> = first.vocab.iter().map(String::as_str).collect();
    let mut tokens = first.vocab.clone();
    tokens.extend(offered);
    let (second, grown_objective) = fit.prune(tokens, 4)?;
    // Kept only if better at the same size.
    if grown_objective >= objective || second.vocab.len() != first.vocab.len() {
        return Ok(first);
    }
    // Joined tokens are new (none was pruned before), so each token of
    // `tokens` went at most once.
    let removed = first
        .removed
        .iter()
        .chain(
            second
                .removed
                .iter()
                .filter(|(t, _)| before.contains(t.as_str())),
        )
        .cloned()
        .collect();
    Ok(Fitted {
        vocab: second.vocab,
        removed,
        tokens: total(grown_objective),
    })
}

/// One fit's words and settings, for its pruning and growth.
struct Fit<'a> {
    words: &'a FitWords<'a>,
    /// The words that count: seen, and not too long to encode.
    fitted: Vec<usize>,
    /// The first `keep` tokens are never removed.
    keep: usize,
    /// At least `keep`.
    target: usize,
    prefix: &'a str,
    cancel: &'a Cancel,
}

impl Fit<'_> {
    /// The `n` most frequent pairs of adjacent tokens in the longest-match
    /// encodings of the words by `vocab` (count-weighted; ties to the lower
    /// ids), each joined into one token, none already in `vocab` nor `pruned`
    /// (the pruning judged those: a joined token is new to the fit).
    fn joined_pairs(
        &self,
        vocab: &[String],
        pruned: &[(String, i64)],
        n: usize,
    ) -> Result<Vec<String>> {
        let (words, prefix, cancel) = (self.words, self.prefix, self.cancel);
        let matcher = Matcher::new(vocab, prefix)?;
        let mut pairs: FxHashMap<(u32, u32), u128> = FxHashMap::default();
        let mut seg = Vec::new();
        for (k, &w) in self.fitted.iter().enumerate() {
            if k % 4096 == 0 {
                cancel.check()?;
            }
            seg.clear();
            if !matcher.encode(words.words[w].as_bytes(), &mut seg) {
                continue;
            }
            let count = u128::from(words.counts[w]);
            for p in seg.windows(2) {
                *pairs.entry((p[0], p[1])).or_default() += count;
            }
        }
        let mut ranked: Vec<((u32, u32), u128)> = pairs.into_iter().collect();
        ranked.sort_unstable_by_key(|&(pair, count)| (std::cmp::Reverse(count), pair));
        let known: FxHashSet<&str> = vocab
            .iter()
            .chain(pruned.iter().map(|(t, _)| t))
            .map(String::as_str)
            .collect();
        let mut joined: Vec<String> = Vec::new();
        let mut seen: FxHashSet<String> = FxHashSet::default();
        for ((a, b), _) in ranked {
            if joined.len() >= n {
                break;
            }
            let right = &vocab[b as usize];
            let token = format!(
                "{}{}",
                vocab[a as usize],
                right.strip_prefix(prefix).unwrap_or(right)
            );
            if !known.contains(token.as_str()) && seen.insert(token.clone()) {
                joined.push(token);
            }
        }
        Ok(joined)
    }

    /// Removes tokens of `tokens` (the first `keep` never) until `target` are
    /// left, as the module explains, each round at least `1 / least_share` of
    /// the first surplus; with the objective it reached.
    fn prune(&self, tokens: Vec<String>, least_share: usize) -> Result<(Fitted, u128)> {
        let (words, fitted) = (self.words, &self.fitted);
        let (keep, target, prefix, cancel) = (self.keep, self.target, self.prefix, self.cancel);
        let mut matcher = Matcher::new(&tokens, prefix)?;
        let mut segs: Vec<Vec<u32>> = Vec::with_capacity(fitted.len());
        let mut buf = Vec::new();
        let mut encodable = Vec::with_capacity(fitted.len());
        for (k, &w) in fitted.iter().enumerate() {
            if k % 4096 == 0 {
                cancel.check()?;
            }
            buf.clear();
            if matcher.encode(words.words[w].as_bytes(), &mut buf) {
                segs.push(buf.clone());
                encodable.push(w);
            }
        }
        let mut alive_count = tokens.len();
        let first_surplus = alive_count.saturating_sub(target);
        let mut removed = Vec::new();
        while alive_count > target {
            cancel.report(removed.len(), alive_count)?;
            let users = users_of(&segs, tokens.len());
            let candidates: Vec<u32> = (keep..tokens.len())
                .filter(|&u| matcher.alive[u])
                .map(|u| u as u32)
                .collect();
            let costs: Vec<i64> = candidates
                .par_iter()
                .map(|&u| {
                    if cancel.check().is_err() {
                        return 0;
                    }
                    cost(&matcher, words, &encodable, &segs, &users[u as usize], u)
                })
                .collect();
            cancel.check()?;
            let surplus = alive_count - target;
            let step = surplus
                .div_ceil(5)
                .max(first_surplus.div_ceil(least_share))
                .min(surplus);
            let mut order: Vec<usize> = (0..candidates.len()).collect();
            // Cheapest first; of equal costs the later token goes first.
            order.sort_unstable_by_key(|&k| (costs[k], std::cmp::Reverse(candidates[k])));
            if order.is_empty() {
                break;
            }
            let mut affected: Vec<u32> = Vec::new();
            for &k in order.iter().take(step) {
                let u = candidates[k];
                matcher.alive[u as usize] = false;
                removed.push((tokens[u as usize].clone(), costs[k]));
                affected.extend_from_slice(&users[u as usize]);
            }
            alive_count -= step.min(order.len());
            affected.sort_unstable();
            affected.dedup();
            for &s in &affected {
                let seg = &mut segs[s as usize];
                seg.clear();
                let ok = matcher.encode(words.words[encodable[s as usize]].as_bytes(), seg);
                debug_assert!(ok, "the alphabet covers every training word");
            }
        }
        let objective = segs
            .iter()
            .zip(&encodable)
            .map(|(seg, &w)| seg.len() as u128 * u128::from(words.counts[w]))
            .sum();
        let vocab = tokens
            .into_iter()
            .zip(&matcher.alive)
            .filter_map(|(t, &alive)| alive.then_some(t))
            .collect();
        let fitted = Fitted {
            vocab,
            removed,
            tokens: 0, // set by the caller, which knows the words left out
        };
        Ok((fitted, objective))
    }
}

/// For each token, the words (indices into the segmentations) using it, each once.
fn users_of(segs: &[Vec<u32>], n_tokens: usize) -> Vec<Vec<u32>> {
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); n_tokens];
    for (s, seg) in segs.iter().enumerate() {
        for &t in seg {
            let list = &mut users[t as usize];
            if list.last() != Some(&(s as u32)) {
                list.push(s as u32);
            }
        }
    }
    users
}

/// What removing `u` adds to the objective: Σ count × (tokens without `u`
/// − tokens now) over the words that use it; `i64::MAX` if a word could
/// not be encoded without it.
fn cost(
    matcher: &Matcher,
    words: &FitWords<'_>,
    encodable: &[usize],
    segs: &[Vec<u32>],
    users: &[u32],
    u: u32,
) -> i64 {
    let mut total: i128 = 0;
    for &s in users {
        let w = encodable[s as usize];
        let word = words.words[w].as_bytes();
        let Some(delta) = matcher.tokens_added_without(word, &segs[s as usize], u) else {
            return i64::MAX;
        };
        total += delta as i128 * words.counts[w] as i128;
    }
    total.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit(words: &[(&str, u64)], tokens: &[&str], keep: usize, target: usize) -> Fitted {
        let (w, c): (Vec<&str>, Vec<u64>) = words.iter().copied().unzip();
        let fw = FitWords {
            words: &w,
            counts: &c,
            max_chars: 100,
        };
        let tokens = tokens.iter().map(|t| t.to_string()).collect();
        fit_to_longest_match(&fw, tokens, keep, target, "##", Cancel::never()).unwrap()
    }

    #[test]
    fn the_token_greedy_matching_needs_least_goes_first() {
        // "abc" is used by longest match and saves a token per use ("ab ##c"
        // without it); "ab" is never used while "abc" is there.
        let tokens = ["a", "##b", "##c", "ab", "abc"];
        let out = fit(&[("abc", 10)], &tokens, 3, 4);
        assert_eq!(out.vocab, ["a", "##b", "##c", "abc"]);
        assert_eq!(out.removed, [("ab".to_string(), 0)]);
    }

    #[test]
    fn a_token_that_hurts_greedy_matching_has_a_negative_cost() {
        // With "ab", "abcd" matches ab ##c ##d (3); without it a ##bcd (2).
        let tokens = ["a", "##b", "##c", "##d", "ab", "##bcd"];
        let out = fit(&[("abcd", 4), ("ab", 1)], &tokens, 4, 5);
        assert_eq!(out.removed[0], ("ab".to_string(), -4 + 1));
        // Then the growth round joins a ##bcd, the pair "abcd" is encoded
        // with, and "##bcd", unused by longest match, goes at no cost.
        assert_eq!(out.vocab, ["a", "##b", "##c", "##d", "abcd"]);
        assert_eq!(out.removed[1..], [("##bcd".to_string(), 0)]);
    }

    #[test]
    fn the_protected_tokens_stay_whatever_the_target() {
        let tokens = ["[UNK]", "a", "##b", "ab"];
        let out = fit(&[("ab", 3)], &tokens, 3, 0);
        assert_eq!(out.vocab, ["[UNK]", "a", "##b"]);
    }
}
