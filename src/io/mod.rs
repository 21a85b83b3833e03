//! Files: the one reader of documents (`documents`), and reading and
//! writing whole files safely (`files`: regular files only, atomic writes),
//! and text checked and cut into lines on every thread (`parallel_text`).

mod documents;
mod files;
mod parallel_text;

pub use documents::{
    open_documents, read_bytes, read_documents, read_file_blocks, DocSource, DocumentReader,
    Documents, FileBytes,
};
pub use files::{open_regular, read_text, write_atomic, write_set_atomic, MAX_TOKENIZER_FILE};
