//! Post-processing: BERT's `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]`.

use super::encoding::Encoding;

/// The `[CLS]` and `[SEP]` tokens (string and id) that frame the inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostProcessor {
    pub cls: (String, u32),
    pub sep: (String, u32),
}

impl PostProcessor {
    /// How many tokens framing adds to a single input or a pair.
    pub fn added_tokens(&self, is_pair: bool) -> usize {
        if is_pair {
            3
        } else {
            2
        }
    }

    /// `a` (and `b`) framed; the second sequence and its `[SEP]` get type id 1.
    pub fn frame(&self, a: Encoding, b: Option<Encoding>) -> Encoding {
        let mut out = Encoding::default();
        out.push(self.cls.1, 0, (0, 0), true);
        out.append(a);
        out.push(self.sep.1, 0, (0, 0), true);
        if let Some(b) = b {
            out.append(b);
            out.push(self.sep.1, 1, (0, 0), true);
        }
        out
    }
}

/// Without post-processing a pair is its two sequences one after the other.
pub fn concatenate(mut a: Encoding, b: Option<Encoding>) -> Encoding {
    if let Some(b) = b {
        a.append(b);
    }
    a
}
