//! Files: the one reader of documents (`documents`), parts of a file by
//! byte range (`byte_range`), and reading and
//! writing whole files safely (`files`: regular files only, atomic writes),
//! and text checked and cut into lines on every thread (`parallel_text`).

mod byte_range;
mod documents;
mod files;
mod parallel_text;

pub use byte_range::ByteRange;
pub use documents::{
    open_documents, open_documents_range, read_bytes, read_documents, read_file_blocks, DocSource,
    DocumentReader, Documents, FileBytes,
};
pub use files::{open_regular, read_text, write_atomic, write_set_atomic, MAX_TOKENIZER_FILE};
