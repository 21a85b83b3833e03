//! Likelihood score: which unit a pair's merge would make. The gain of
//! merging (x, y) depends on the count of z, the string x + y (y without
//! its prefix), when z is a unit already: a pair learns z when it is made,
//! if z is a unit then, else when z becomes one. Strings are hashed by
//! their parts (`string_hash.rs`), never built: pairs are made by the
//! million.

use super::pairs::NO_UNIT;
use super::state::{State, AMBIGUOUS};
use super::string_hash::StrHash;

impl State<'_> {
    /// The new unit `id` is hashed for the lookups below (whole, and
    /// without the prefix, as the right unit of a pair), and the pairs
    /// already met that make it learn it.
    pub(super) fn unit_made(&mut self, id: u32) {
        let s = self.strings[id as usize].as_str();
        let prefix = self.config.continuing_subword_prefix.as_str();
        let whole = StrHash::of(s.as_bytes());
        let bare = s
            .strip_prefix(prefix)
            .map_or(whole, |rest| StrHash::of(rest.as_bytes()));
        self.unit_by_hash
            .entry(whole.hash)
            .and_modify(|u| *u = AMBIGUOUS)
            .or_insert(id);
        debug_assert_eq!(self.unit_hashes.len(), id as usize);
        self.unit_hashes.push(whole);
        self.bare_hashes.push(bare);
        if !self.pairs.states.is_empty() {
            self.find_makers(id);
        }
    }

    /// The unit whose string hashes to `hash`, if there may be one: the
    /// unit of that hash (unchecked: a different string of the same hash is
    /// caught by `makes_string`), or when units share the hash, the one
    /// named `string()`.
    fn unit_of_hash(&self, hash: u64, string: impl FnOnce() -> String) -> Option<u32> {
        match self.unit_by_hash.get(&hash) {
            None => None,
            Some(&AMBIGUOUS) => self.ids.get(&string()).copied(),
            Some(&unit) => Some(unit),
        }
    }

    /// A new pair learns the unit its merge would make, if it is one now.
    pub(super) fn resolve_makes(&mut self, pair: u32) {
        let s = &self.pairs.states[pair as usize];
        let (left, right) = (s.left, s.right);
        let hash = self.unit_hashes[left as usize]
            .then(self.bare_hashes[right as usize])
            .hash;
        let unit = self
            .unit_of_hash(hash, || self.merged_string(left, right))
            .filter(|&u| self.makes_string(pair, &self.strings[u as usize]));
        if let Some(unit) = unit {
            self.learn_makes(pair, unit);
        }
    }

    /// The pairs met before unit `id` existed whose merge makes its string
    /// learn it. Such a pair's left unit is a head of the string and its
    /// right unit the rest with the prefix put back (or, a right unit
    /// without the prefix, the rest): each cut of the string is looked up,
    /// with every head's and rest's hash from one pass over the string.
    /// (Pairs used to wait in a table by the hash of their merged string:
    /// millions were put there, few were ever taken out.)
    fn find_makers(&mut self, id: u32) {
        let made = self.strings[id as usize].clone();
        let bytes = made.as_bytes();
        let prefix = self.config.continuing_subword_prefix.as_str();
        let prefix_hash = StrHash::of(prefix.as_bytes());
        // rests[k]: the hash of made[k..].
        let mut rests = vec![StrHash::EMPTY; bytes.len() + 1];
        for k in (0..bytes.len()).rev() {
            rests[k] = rests[k + 1].prepend(bytes[k]);
        }
        let mut head = StrHash::EMPTY;
        for cut in 1..bytes.len() {
            head = head.push(bytes[cut - 1]);
            if !made.is_char_boundary(cut) {
                continue;
            }
            let Some(left) = self.unit_of_hash(head.hash, || made[..cut].to_string()) else {
                continue;
            };
            let rest = &made[cut..];
            let with_prefix = prefix_hash.then(rests[cut]).hash;
            let bare = !prefix.is_empty() && !rest.starts_with(prefix);
            let rights = [
                self.unit_of_hash(with_prefix, || format!("{prefix}{rest}")),
                bare.then(|| self.unit_of_hash(rests[cut].hash, || rest.to_string()))
                    .flatten(),
            ];
            for right in rights.into_iter().flatten() {
                let Some(pair) = self.pairs.id(left, right) else {
                    continue;
                };
                if self.pairs.states[pair as usize].makes == NO_UNIT
                    && self.makes_string(pair, &made)
                {
                    self.learn_makes(pair, id);
                }
            }
        }
    }

    fn learn_makes(&mut self, pair: u32, unit: u32) {
        self.pairs.states[pair as usize].makes = unit;
        let u = unit as usize;
        if self.makers.len() <= u {
            self.makers.resize(u + 1, Vec::new());
        }
        self.makers[u].push(pair);
    }

    /// Whether merging `pair` makes the string `s`.
    pub(super) fn makes_string(&self, pair: u32, s: &str) -> bool {
        let p = &self.pairs.states[pair as usize];
        let (left, right) = self.merged_parts(p.left, p.right);
        s.len() == left.len() + right.len() && s.starts_with(left) && s.ends_with(right)
    }
}
