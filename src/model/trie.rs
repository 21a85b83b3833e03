//! A byte trie for longest-prefix lookups without allocating candidates.

/// Marks a state that ends no token, and a free cell.
const NONE: u32 = u32::MAX;

/// One state of the double array: the transition on byte `b` from state `s`
/// leads to cell `cells[s].base + b`, valid when that cell's `check` is `s`.
#[derive(Clone, Copy, Debug)]
struct Cell {
    base: u32,
    check: u32,
    token: u32,
}

const NIL: usize = usize::MAX;

/// The free cells of the array under construction, as a sorted doubly linked list.
#[derive(Default)]
struct FreeList {
    head: usize,
    tail: usize,
    next: Vec<usize>,
    prev: Vec<usize>,
}

impl FreeList {
    /// Appends `n` free cells to `cells` and to the list.
    fn grow(&mut self, cells: &mut Vec<Cell>, n: usize, free: Cell) {
        if self.next.is_empty() {
            self.head = NIL;
            self.tail = NIL;
        }
        let old = cells.len();
        cells.resize(old + n, free);
        for i in old..old + n {
            self.next.push(NIL);
            self.prev.push(self.tail);
            if self.tail == NIL {
                self.head = i;
            } else {
                self.next[self.tail] = i;
            }
            self.tail = i;
        }
    }

    /// Removes cell `i` from the list.
    fn take(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n] = p;
        }
    }
}

/// A double-array trie (Aoe, 1989): one array read per input byte, no
/// allocation and no search, which makes longest-prefix lookups cheap.
#[derive(Clone, Debug)]
pub struct Trie {
    cells: Vec<Cell>,
}

impl Trie {
    /// Builds a trie of `(key, token id)`; later duplicates of a key are ignored.
    pub fn new<'a>(entries: impl IntoIterator<Item = (&'a [u8], u32)>) -> Self {
        // 1. A plain pointer trie.
        let mut tokens: Vec<u32> = vec![NONE];
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        for (key, id) in entries {
            let mut node = 0usize;
            for &b in key {
                node = match children[node].iter().find(|(eb, _)| *eb == b) {
                    Some(&(_, n)) => n as usize,
                    None => {
                        let n = tokens.len();
                        tokens.push(NONE);
                        children.push(Vec::new());
                        children[node].push((b, n as u32));
                        n
                    }
                };
            }
            if tokens[node] == NONE {
                tokens[node] = id;
            }
        }
        // 2. Place states breadth-first, each node's children at the first base
        // where all their cells are free; free cells form a sorted linked list.
        let free = Cell {
            base: 0,
            check: NONE,
            token: NONE,
        };
        let mut cells: Vec<Cell> = Vec::new();
        let mut links = FreeList::default();
        links.grow(&mut cells, 512, free);
        links.take(0);
        cells[0] = Cell {
            base: 0,
            check: 0,
            token: tokens[0],
        };
        let mut state_of = vec![0u32; tokens.len()];
        let mut queue = std::collections::VecDeque::from([0usize]);
        while let Some(node) = queue.pop_front() {
            let kids = &mut children[node];
            if kids.is_empty() {
                continue;
            }
            kids.sort_unstable();
            let first = kids[0].0 as usize;
            let mut f = links.head;
            let base = loop {
                if f == NIL {
                    let old = cells.len();
                    links.grow(&mut cells, old.max(512), free);
                    f = old;
                    continue;
                }
                if f > first {
                    let base = f - first;
                    let end = base + kids.last().map_or(0, |k| k.0 as usize);
                    if end >= cells.len() {
                        let old = cells.len();
                        links.grow(&mut cells, (end + 1 - old).max(old), free);
                    }
                    if kids
                        .iter()
                        .all(|&(b, _)| cells[base + b as usize].check == NONE)
                    {
                        break base;
                    }
                }
                f = links.next[f];
            };
            let s = state_of[node] as usize;
            cells[s].base = base as u32;
            for &(b, child) in kids.iter() {
                let t = base + b as usize;
                links.take(t);
                cells[t] = Cell {
                    base: 0,
                    check: s as u32,
                    token: tokens[child as usize],
                };
                state_of[child as usize] = t as u32;
                queue.push_back(child as usize);
            }
        }
        while cells.last().is_some_and(|c| c.check == NONE) {
            cells.pop();
        }
        Self { cells }
    }

    /// The longest key that is a prefix of `text`: `(token id, key length)`.
    #[inline]
    pub fn longest_prefix(&self, text: &[u8]) -> Option<(u32, usize)> {
        let cells = &self.cells[..];
        let mut state = 0usize;
        let mut best = None;
        for (i, &b) in text.iter().enumerate() {
            let t = cells[state].base as usize + b as usize;
            match cells.get(t) {
                Some(c) if c.check == state as u32 && t != 0 => {
                    state = t;
                    if c.token != NONE {
                        best = Some((c.token, i + 1));
                    }
                }
                _ => break,
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_a_naive_search_on_many_keys() {
        let keys: Vec<String> = (0..3000u32)
            .map(|i| {
                format!(
                    "{:x}{}",
                    i.wrapping_mul(2654435761) % 5000,
                    "é".repeat((i % 3) as usize)
                )
            })
            .collect();
        let t = Trie::new(keys.iter().zip(0u32..).map(|(k, i)| (k.as_bytes(), i)));
        for probe in ["a1b2é", "ffffx", "123éé", "9", "", "éé"] {
            let naive = keys
                .iter()
                .zip(0u32..)
                .filter(|(k, _)| probe.as_bytes().starts_with(k.as_bytes()))
                .max_by_key(|(k, i)| (k.len(), std::cmp::Reverse(*i)))
                .map(|(k, i)| {
                    (
                        keys.iter().position(|x| x == k).map_or(i, |p| p as u32),
                        k.len(),
                    )
                });
            assert_eq!(t.longest_prefix(probe.as_bytes()), naive, "{probe}");
        }
    }

    #[test]
    fn finds_longest_prefix() {
        let keys: Vec<(&[u8], u32)> = vec![(b"a", 0), (b"abc", 1), (b"b", 2), (b"abcd", 3)];
        let t = Trie::new(keys);
        assert_eq!(t.longest_prefix(b"abcx"), Some((1, 3)));
        assert_eq!(t.longest_prefix(b"abx"), Some((0, 1)));
        assert_eq!(t.longest_prefix(b"abcde"), Some((3, 4)));
        assert_eq!(t.longest_prefix(b"x"), None);
        assert_eq!(t.longest_prefix(b""), None);
    }
}
