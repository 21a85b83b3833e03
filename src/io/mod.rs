//! Files: the one reader of documents (`documents` for whole files,
//! `stream` block by block), parts of a file by
//! byte range (`byte_range`), and reading and
//! writing whole files safely (`files`: regular files only, atomic writes),
//! text checked and cut into lines on every thread (`parallel_text`),
//! the next block of a stream read while this one is worked on
//! (`read_ahead`), and a large file cut into pieces of lines that threads
//! read on their own (`line_pieces`).

mod byte_range;
mod documents;
mod files;
mod line_pieces;
mod parallel_text;
mod read_ahead;
mod stream;

pub use byte_range::ByteRange;
pub use documents::{read_bytes, read_documents, DocSource, Documents, FileBytes};
pub use files::{
    open_regular, read_text, write_atomic, write_atomic_watched, write_set_atomic, KeepGoing,
    Staged, MAX_TOKENIZER_FILE,
};
pub use line_pieces::{LinePieces, Plan};
pub use stream::{
    open_documents, open_documents_range, read_file_blocks, DocBlock, DocumentReader,
};
