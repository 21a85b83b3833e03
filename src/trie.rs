//! A byte trie for longest-prefix lookups without allocating candidates.

/// Marks a node that ends no token.
const NO_TOKEN: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Node {
    token: u32,
    first_edge: u32,
    n_edges: u32,
}

/// Flattened trie: children of a node are a sorted run of `edges`; the root's
/// children also sit in a direct 256-entry table because every lookup starts there.
#[derive(Clone, Debug)]
pub struct Trie {
    nodes: Vec<Node>,
    edge_bytes: Vec<u8>,
    edge_targets: Vec<u32>,
    root_table: Box<[u32; 256]>,
}

impl Trie {
    /// Builds a trie of `(key, token id)`; later duplicates of a key are ignored.
    pub fn new<'a>(entries: impl IntoIterator<Item = (&'a [u8], u32)>) -> Self {
        // Build with per-node child lists, then flatten breadth-first.
        let mut tokens: Vec<u32> = vec![NO_TOKEN];
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        for (key, id) in entries {
            let mut node = 0usize;
            for &b in key {
                let next = match children[node].iter().find(|(eb, _)| *eb == b) {
                    Some(&(_, n)) => n as usize,
                    None => {
                        let n = tokens.len();
                        tokens.push(NO_TOKEN);
                        children.push(Vec::new());
                        children[node].push((b, n as u32));
                        n
                    }
                };
                node = next;
            }
            if tokens[node] == NO_TOKEN {
                tokens[node] = id;
            }
        }
        let mut nodes = Vec::with_capacity(tokens.len());
        let mut edge_bytes = Vec::new();
        let mut edge_targets = Vec::new();
        for (token, kids) in tokens.iter().zip(children.iter_mut()) {
            kids.sort_unstable();
            nodes.push(Node {
                token: *token,
                first_edge: edge_bytes.len() as u32,
                n_edges: kids.len() as u32,
            });
            for &(b, t) in kids.iter() {
                edge_bytes.push(b);
                edge_targets.push(t);
            }
        }
        let mut root_table = Box::new([0u32; 256]);
        for &(b, t) in &children[0] {
            root_table[b as usize] = t;
        }
        Self {
            nodes,
            edge_bytes,
            edge_targets,
            root_table,
        }
    }

    #[inline]
    fn child(&self, node: u32, b: u8) -> u32 {
        if node == 0 {
            return self.root_table[b as usize];
        }
        let n = &self.nodes[node as usize];
        let lo = n.first_edge as usize;
        let hi = lo + n.n_edges as usize;
        let bytes = &self.edge_bytes[lo..hi];
        let found = if bytes.len() <= 8 {
            bytes.iter().position(|&x| x == b)
        } else {
            bytes.binary_search(&b).ok()
        };
        match found {
            Some(i) => self.edge_targets[lo + i],
            None => 0,
        }
    }

    /// The longest key that is a prefix of `text`: `(token id, key length)`.
    #[inline]
    pub fn longest_prefix(&self, text: &[u8]) -> Option<(u32, usize)> {
        let mut node = 0u32;
        let mut best = None;
        for (i, &b) in text.iter().enumerate() {
            node = self.child(node, b);
            if node == 0 {
                break;
            }
            let token = self.nodes[node as usize].token;
            if token != NO_TOKEN {
                best = Some((token, i + 1));
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
