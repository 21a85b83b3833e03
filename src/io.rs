//! Files: reading text, atomic writes, and HF `tokenizer.json` (de)serialization.

use std::io::{Read, Write};
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::cancel::Cancel;
use crate::decode::Decoder;
use crate::encode::{UnknownPolicy, WordPieceConfig};
use crate::error::{Error, Result};
use crate::normalize::NormalizerConfig;
use crate::pretokenize::PreTokenizer;
use crate::tokenizer::{
    AddedToken, PadLength, Padding, PostProcessor, Tokenizer, Truncation, TruncationStrategy,
};
use crate::vocab::Vocab;

/// Tokenizer files larger than this are refused: no real one comes near it,
/// and reading an endless device must stop somewhere.
pub const MAX_TOKENIZER_FILE: u64 = 1 << 30;

/// Opens a regular file for reading. Folders, FIFOs, devices and sockets are
/// refused before they are opened (a FIFO without a writer would block
/// forever, `/dev/zero` never ends), and the file is opened without blocking
/// and checked again, in case it was swapped meanwhile.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, std::fs::Metadata)> {
    let check = |meta: &std::fs::Metadata| -> Result<()> {
        if meta.is_dir() {
            let e = std::io::Error::from(std::io::ErrorKind::IsADirectory);
            return Err(Error::io(path, e));
        }
        if !meta.is_file() {
            return Err(Error::Value(format!(
                "{} is not a regular file ({})",
                path.display(),
                file_kind(meta)
            )));
        }
        Ok(())
    };
    check(&std::fs::metadata(path).map_err(|e| Error::io(path, e))?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    check(&meta)?;
    Ok((file, meta))
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    let _ = meta;
    "not a file"
}

/// Reads a UTF-8 text file of at most `MAX_TOKENIZER_FILE` bytes; errors
/// name the file (and the byte offset for bad UTF-8).
pub fn read_text(path: &Path) -> Result<String> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > MAX_TOKENIZER_FILE {
        return Err(Error::Value(format!(
            "{} has {} bytes; tokenizer files of more than {MAX_TOKENIZER_FILE} are refused",
            path.display(),
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    // One byte past the limit tells a file that grew since it was checked.
    file.take(MAX_TOKENIZER_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_TOKENIZER_FILE {
        return Err(Error::Value(format!(
            "{} grew past {MAX_TOKENIZER_FILE} bytes while it was read",
            path.display()
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::Value(format!(
            "{}: invalid UTF-8 at byte offset {}",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Reads to the end, growing the buffer fallibly: a `.gz` that unpacks to
/// more than memory holds is a `MemoryError`, not an abort. Polls `cancel`.
fn read_to_end_fallibly(
    mut reader: impl std::io::Read,
    path: &Path,
    cancel: &Cancel,
) -> Result<Vec<u8>> {
    const BLOCK: usize = 4 << 20;
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        cancel.check()?;
        bytes.try_reserve(BLOCK).map_err(|_| {
            Error::Memory(format!(
                "{}: cannot hold its contents in memory ({} bytes read so far)",
                path.display(),
                bytes.len()
            ))
        })?;
        let n = (&mut reader)
            .take(BLOCK as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(bytes);
        }
    }
}

/// Where a write to `path` lands: `path` itself, or, for a symlink, the file
/// it points to (the link stays a link). An empty path is refused.
fn write_target(path: &Path) -> Result<std::path::PathBuf> {
    if path.as_os_str().is_empty() {
        return Err(Error::Value("the output path is empty".into()));
    }
    if path.is_symlink() {
        return std::fs::canonicalize(path).map_err(|e| {
            Error::Value(format!(
                "{} is a symbolic link that leads nowhere ({e})",
                path.display()
            ))
        });
    }
    if path.is_dir() {
        let e = std::io::Error::from(std::io::ErrorKind::IsADirectory);
        return Err(Error::io(path, e));
    }
    Ok(path.to_path_buf())
}

/// A temporary name beside `target`, unique in this process.
fn temp_beside(target: &Path) -> Result<std::path::PathBuf> {
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| Error::Value(format!("not a file path: {}", target.display())))?;
    let serial = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(dir.join(format!(
        ".{}.{}-{serial}.tmp",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// Writes `data` to a new temporary file beside `target`, synced to disk, with
/// the mode of the file it will replace (if any). Removed again on failure.
fn stage(target: &Path, data: &[u8]) -> Result<std::path::PathBuf> {
    let tmp = temp_beside(target)?;
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(data)?;
        if let Ok(old) = std::fs::metadata(target) {
            f.set_permissions(old.permissions())?;
        }
        f.sync_all()
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(target, e));
    }
    Ok(tmp)
}

/// Writes `data` to a temporary file beside `path`, then renames it over
/// `path`, so readers never see a half-written file. A symlink is written
/// through (its target is replaced), the mode of a replaced file is kept.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    let target = write_target(path)?;
    let tmp = stage(&target, data)?;
    if let Err(e) = std::fs::rename(&tmp, &target) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Replaces a set of files in folder `dir` (made if missing): every new file
/// is written and synced under a temporary name first, so a failure (a full
/// disk) leaves the old set untouched. Then they are renamed into place in
/// the given order, and the files of `stale` (the old set's files the new one
/// lacks) are removed. Put the file readers look for first last, and remove
/// stale ones after: a reader that looks for it sees the old set until the
/// new one is whole.
pub fn write_set_atomic(dir: &Path, files: &[(String, Vec<u8>)], stale: &[String]) -> Result<()> {
    if dir.as_os_str().is_empty() {
        return Err(Error::Value("the output folder is empty".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut staged: Vec<(std::path::PathBuf, std::path::PathBuf)> = Vec::new();
    for (name, data) in files {
        let target = write_target(&dir.join(name)).and_then(|t| Ok((stage(&t, data)?, t)));
        match target {
            Ok(pair) => staged.push(pair),
            Err(e) => {
                for (tmp, _) in &staged {
                    let _ = std::fs::remove_file(tmp);
                }
                return Err(e);
            }
        }
    }
    for (k, (tmp, target)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            for (tmp, _) in &staged[k..] {
                let _ = std::fs::remove_file(tmp);
            }
            return Err(Error::io(target, e));
        }
    }
    for name in stale {
        match std::fs::remove_file(dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(&dir.join(name), e))
            }
            _ => {}
        }
    }
    Ok(())
}

fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported(what.into())
}

fn bad(what: impl Into<String>) -> Error {
    Error::Value(format!("invalid tokenizer.json: {}", what.into()))
}

fn get_bool(obj: &Map<String, Value>, key: &str, default: bool) -> Result<bool> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(bad(format!("{key} should be a boolean, got {v}"))),
    }
}

fn get_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(bad(format!("{key} should be a string, got {v}"))),
    }
}

fn get_u64(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(format!("{key} should be a non-negative integer, got {v}"))),
    }
}

/// An id or type id: HF keeps these as u32, so a larger value is an error, not wrapped.
fn as_u32(v: &Value, what: &str) -> Result<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            bad(format!(
                "{what} should be an integer from 0 to 2^32-1, got {v}"
            ))
        })
}

fn get_u32(obj: &Map<String, Value>, key: &str) -> Result<Option<u32>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => as_u32(v, key).map(Some),
    }
}

/// `truncation` / `padding`: null (off) or an object.
fn settings_object<'a>(
    root: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>> {
    match root.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(v) => Err(bad(format!("{key} should be an object or null, got {v}"))),
    }
}

fn component<'a>(
    root: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<(&'a str, &'a Map<String, Value>)>> {
    match root.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => {
            let ty = get_str(o, "type")?.ok_or_else(|| bad(format!("{key} has no type")))?;
            Ok(Some((ty, o)))
        }
        Some(v) => Err(bad(format!("{key} should be an object, got {v}"))),
    }
}

fn special_pair(v: Option<&Value>, what: &str) -> Result<(String, u32)> {
    match v {
        Some(Value::Array(a)) if a.len() == 2 => {
            let name = a[0]
                .as_str()
                .ok_or_else(|| bad(format!("{what} token name")))?;
            Ok((name.to_owned(), as_u32(&a[1], &format!("{what} token id"))?))
        }
        _ => Err(bad(format!("{what} should be [token, id]"))),
    }
}

/// Reads the BERT shape out of a `TemplateProcessing`; anything else is unsupported.
fn template_post_processor(o: &Map<String, Value>) -> Result<PostProcessor> {
    let not_bert = || {
        unsupported(
            "TemplateProcessing other than `[CLS] $A [SEP]` / `[CLS] $A [SEP] $B:1 [SEP]:1`",
        )
    };
    let piece = |v: &Value| -> Option<(bool, String, u64)> {
        if let Some(s) = v.get("SpecialToken") {
            return Some((
                true,
                s.get("id")?.as_str()?.to_owned(),
                s.get("type_id")?.as_u64()?,
            ));
        }
        let s = v.get("Sequence")?;
        Some((
            false,
            s.get("id")?.as_str()?.to_owned(),
            s.get("type_id")?.as_u64()?,
        ))
    };
    let seq = |key: &str| -> Option<Vec<(bool, String, u64)>> {
        o.get(key)?.as_array()?.iter().map(piece).collect()
    };
    let single = seq("single").ok_or_else(not_bert)?;
    let pair = seq("pair").ok_or_else(not_bert)?;
    if single.len() != 3 || pair.len() != 5 {
        return Err(not_bert());
    }
    let (cls, sep) = (&single[0].1, &single[2].1);
    let expect_single = [
        (true, cls.clone(), 0),
        (false, "A".into(), 0),
        (true, sep.clone(), 0),
    ];
    let expect_pair = [
        (true, cls.clone(), 0),
        (false, "A".into(), 0),
        (true, sep.clone(), 0),
        (false, "B".into(), 1),
        (true, sep.clone(), 1),
    ];
    if single != expect_single || pair != expect_pair {
        return Err(not_bert());
    }
    let specials = o
        .get("special_tokens")
        .and_then(Value::as_object)
        .ok_or_else(not_bert)?;
    let id_of = |name: &str| -> Result<u32> {
        let special = specials
            .get(name)
            .and_then(Value::as_object)
            .ok_or_else(|| bad(format!("special token {name} is not defined")))?;
        let ids = special
            .get("ids")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(format!("special token {name} has no ids")))?;
        // HF emits `tokens` as the strings of the ids: honoured only when it is the name.
        let tokens = special.get("tokens").and_then(Value::as_array);
        if tokens.is_some_and(|t| t.len() != 1 || t[0].as_str() != Some(name)) {
            return Err(unsupported(format!(
                "special token {name} whose tokens are not [{name:?}]"
            )));
        }
        match ids.as_slice() {
            [id] => as_u32(id, &format!("id of special token {name}")),
            _ => Err(unsupported(format!(
                "special token {name} with several ids"
            ))),
        }
    };
    Ok(PostProcessor {
        cls: (cls.clone(), id_of(cls)?),
        sep: (sep.clone(), id_of(sep)?),
    })
}

/// Parses an HF `tokenizer.json`. Components we cannot reproduce exactly are
/// rejected with `Error::Unsupported`, never approximated.
pub fn tokenizer_from_json(text: &str) -> Result<Tokenizer> {
    let root: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let root = root
        .as_object()
        .ok_or_else(|| bad("top level should be an object"))?;

    let model = root
        .get("model")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no model"))?;
    match get_str(model, "type")? {
        Some("WordPiece") => {}
        Some(other) => return Err(unsupported(format!("model type {other} (only WordPiece)"))),
        None => return Err(bad("model has no type")),
    }
    let vocab_map = model
        .get("vocab")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("model has no vocab"))?;
    let mut pairs = Vec::with_capacity(vocab_map.len());
    for (token, id) in vocab_map {
        let id = id
            .as_u64()
            .ok_or_else(|| bad(format!("id of {token:?} should be a non-negative integer")))?;
        pairs.push((token.clone(), id));
    }
    let vocab = Vocab::from_pairs(pairs)?;
    let model_config = WordPieceConfig {
        unk_token: get_str(model, "unk_token")?.unwrap_or("[UNK]").to_owned(),
        continuing_subword_prefix: get_str(model, "continuing_subword_prefix")?
            .unwrap_or("##")
            .to_owned(),
        max_input_chars_per_word: get_u64(model, "max_input_chars_per_word")?.unwrap_or(100)
            as usize,
        unknown: UnknownPolicy::Word,
        end_of_word_suffix: String::new(),
    };

    let normalizer = match component(root, "normalizer")? {
        None => None,
        Some(("BertNormalizer", o)) => Some(NormalizerConfig {
            clean_text: get_bool(o, "clean_text", true)?,
            handle_chinese_chars: get_bool(o, "handle_chinese_chars", true)?,
            strip_accents: match o.get("strip_accents") {
                None | Some(Value::Null) => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(v) => {
                    return Err(bad(format!(
                        "strip_accents should be a boolean or null, got {v}"
                    )))
                }
            },
            lowercase: get_bool(o, "lowercase", true)?,
        }),
        Some((other, _)) => {
            return Err(unsupported(format!(
                "normalizer {other} (only BertNormalizer)"
            )))
        }
    };

    let pre_tokenizer = match component(root, "pre_tokenizer")? {
        Some(("BertPreTokenizer", _)) => PreTokenizer::Bert,
        Some(("WhitespaceSplit", _)) => PreTokenizer::Whitespace,
        Some((other, _)) => {
            return Err(unsupported(format!(
                "pre-tokenizer {other} (only BertPreTokenizer and WhitespaceSplit)"
            )))
        }
        None => return Err(unsupported("a tokenizer without pre-tokenizer")),
    };

    let post_processor = match component(root, "post_processor")? {
        None => None,
        Some(("BertProcessing", o)) => Some(PostProcessor {
            sep: special_pair(o.get("sep"), "sep")?,
            cls: special_pair(o.get("cls"), "cls")?,
        }),
        Some(("TemplateProcessing", o)) => Some(template_post_processor(o)?),
        Some((other, _)) => {
            return Err(unsupported(format!(
                "post-processor {other} (only BertProcessing and BERT-shaped TemplateProcessing)"
            )))
        }
    };

    let decoder = match component(root, "decoder")? {
        Some(("WordPiece", o)) => Decoder {
            prefix: get_str(o, "prefix")?.unwrap_or("##").to_owned(),
            cleanup: get_bool(o, "cleanup", true)?,
            suffix: String::new(),
        },
        Some((other, _)) => return Err(unsupported(format!("decoder {other} (only WordPiece)"))),
        None => return Err(unsupported("a tokenizer without decoder")),
    };

    let mut added = Vec::new();
    if let Some(list) = root.get("added_tokens") {
        let list = list
            .as_array()
            .ok_or_else(|| bad("added_tokens should be a list"))?;
        for t in list {
            let o = t
                .as_object()
                .ok_or_else(|| bad("added token should be an object"))?;
            let content =
                get_str(o, "content")?.ok_or_else(|| bad("added token without content"))?;
            let id = get_u32(o, "id")?.ok_or_else(|| bad("added token without id"))?;
            for flag in ["lstrip", "rstrip", "single_word", "normalized"] {
                if get_bool(o, flag, false)? {
                    return Err(unsupported(format!(
                        "added token {content:?} with {flag}=true"
                    )));
                }
            }
            added.push(AddedToken {
                content: content.to_owned(),
                id,
                special: get_bool(o, "special", false)?,
            });
        }
    }

    let mut tok = Tokenizer::new(
        vocab,
        model_config,
        normalizer,
        pre_tokenizer,
        added,
        post_processor,
        decoder,
    )?;

    if let Some(o) = settings_object(root, "truncation")? {
        if get_u64(o, "stride")?.unwrap_or(0) != 0 {
            return Err(unsupported("truncation with stride"));
        }
        if get_str(o, "direction")?.unwrap_or("Right") != "Right" {
            return Err(unsupported("truncation from the left"));
        }
        let strategy = get_str(o, "strategy")?.unwrap_or("LongestFirst");
        tok.truncation = Some(Truncation {
            max_length: get_u64(o, "max_length")?
                .ok_or_else(|| bad("truncation without max_length"))?
                as usize,
            strategy: TruncationStrategy::from_name(strategy)
                .ok_or_else(|| bad(format!("truncation strategy {strategy}")))?,
        });
    }
    if let Some(o) = settings_object(root, "padding")? {
        if get_str(o, "direction")?.unwrap_or("Right") != "Right" {
            return Err(unsupported("padding on the left"));
        }
        let length = match o.get("strategy") {
            Some(Value::String(s)) if s == "BatchLongest" => PadLength::Longest,
            Some(Value::Object(f)) if f.contains_key("Fixed") => PadLength::Fixed(
                f["Fixed"]
                    .as_u64()
                    .ok_or_else(|| bad("padding Fixed length"))? as usize,
            ),
            other => return Err(bad(format!("padding strategy {other:?}"))),
        };
        tok.padding = Some(Padding {
            length,
            pad_to_multiple_of: get_u64(o, "pad_to_multiple_of")?.map(|n| n as usize),
            pad_id: get_u32(o, "pad_id")?.unwrap_or(0),
            pad_type_id: get_u32(o, "pad_type_id")?.unwrap_or(0),
            pad_token: get_str(o, "pad_token")?.unwrap_or("[PAD]").to_owned(),
        });
    }
    Ok(tok)
}

/// Serializes to HF's `tokenizer.json` format (loadable by `tokenizers`).
pub fn tokenizer_to_json(tok: &Tokenizer) -> Result<String> {
    let cfg = &tok.model.config;
    if cfg.unknown != UnknownPolicy::Word {
        return Err(unsupported(
            "tokenizer.json cannot express per-character unknowns; save as vocab.txt instead",
        ));
    }
    if !cfg.end_of_word_suffix.is_empty() {
        return Err(unsupported(
            "tokenizer.json cannot express an end-of-word suffix; save as vocab.txt instead",
        ));
    }
    let vocab: Map<String, Value> = tok
        .vocab
        .tokens()
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let added: Vec<Value> = tok
        .added_tokens
        .iter()
        .map(|t| {
            json!({"id": t.id, "content": t.content, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": t.special})
        })
        .collect();
    let normalizer = tok.normalizer.as_ref().map(|n| {
        json!({"type": "BertNormalizer", "clean_text": n.clean_text,
               "handle_chinese_chars": n.handle_chinese_chars,
               "strip_accents": n.strip_accents, "lowercase": n.lowercase})
    });
    let pre_tokenizer = match tok.pre_tokenizer {
        PreTokenizer::Bert => json!({"type": "BertPreTokenizer"}),
        PreTokenizer::Whitespace => json!({"type": "WhitespaceSplit"}),
    };
    let post = tok.post_processor.as_ref().map(
        |p| json!({"type": "BertProcessing", "sep": [p.sep.0, p.sep.1], "cls": [p.cls.0, p.cls.1]}),
    );
    let truncation = tok.truncation.as_ref().map(|t| {
        let strategy = match t.strategy {
            TruncationStrategy::LongestFirst => "LongestFirst",
            TruncationStrategy::OnlyFirst => "OnlyFirst",
            TruncationStrategy::OnlySecond => "OnlySecond",
        };
        json!({"direction": "Right", "max_length": t.max_length, "strategy": strategy, "stride": 0})
    });
    let padding = tok.padding.as_ref().map(|p| {
        let strategy = match p.length {
            PadLength::Longest => json!("BatchLongest"),
            PadLength::Fixed(n) => json!({"Fixed": n}),
        };
        json!({"strategy": strategy, "direction": "Right", "pad_to_multiple_of": p.pad_to_multiple_of,
               "pad_id": p.pad_id, "pad_type_id": p.pad_type_id, "pad_token": p.pad_token})
    });
    let root = json!({
        "version": "1.0",
        "truncation": truncation,
        "padding": padding,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post,
        "decoder": {"type": "WordPiece", "prefix": tok.decoder.prefix, "cleanup": tok.decoder.cleanup},
        "model": {"type": "WordPiece", "unk_token": cfg.unk_token,
                  "continuing_subword_prefix": cfg.continuing_subword_prefix,
                  "max_input_chars_per_word": cfg.max_input_chars_per_word, "vocab": vocab},
    });
    serde_json::to_string_pretty(&root).map_err(|e| Error::Value(e.to_string()))
}

/// Where the documents of a file are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocSource {
    /// Text split at a separator (`"\n"`: one document per line).
    Separated(String),
    /// JSON Lines; each line's string `field` is a document.
    JsonlField(String),
}

/// A file's bytes: mapped from disk (plain files) or decompressed (`.gz`).
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// The documents of a file: its bytes and, for each document, a byte range of
/// them (or, for JSON Lines, the extracted strings).
pub enum Documents {
    Ranges {
        path: std::path::PathBuf,
        bytes: FileBytes,
        ranges: Vec<(usize, usize)>,
    },
    Owned(Vec<String>),
}

impl Documents {
    /// The documents as text; the file's bytes are checked to be UTF-8 here,
    /// once, without copying them.
    pub fn as_strs(&self) -> Result<Vec<&str>> {
        match self {
            Documents::Ranges {
                path,
                bytes,
                ranges,
            } => {
                let text = utf8(path, bytes)?;
                Ok(ranges.iter().map(|&(a, b)| &text[a..b]).collect())
            }
            Documents::Owned(docs) => Ok(docs.iter().map(String::as_str).collect()),
        }
    }
}

fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        Error::Value(format!(
            "{}: invalid UTF-8 at byte offset {}",
            path.display(),
            e.valid_up_to()
        ))
    })
}

/// A file's bytes: regular files are memory-mapped if `mmap` (no copy into
/// the heap; the kernel reads ahead as we go), else read; `.gz` files are
/// decompressed into memory.
pub fn read_bytes(path: &Path, mmap: bool, cancel: &Cancel) -> Result<FileBytes> {
    let (file, meta) = open_regular(path)?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    // Empty files cannot be mapped: they are read.
    if gz || !mmap || meta.len() == 0 {
        let bytes = if gz {
            read_to_end_fallibly(flate2::read::MultiGzDecoder::new(file), path, cancel)
        } else {
            read_to_end_fallibly(std::io::BufReader::new(file), path, cancel)
        }?;
        return Ok(FileBytes::Read(bytes));
    }
    // SAFETY: the map is only read, and its bytes are checked to be UTF-8
    // before any `&str` is made of them. No check can exclude another process
    // changing the file while it is mapped: truncating it kills the process
    // (SIGBUS), rewriting it in place breaks the UTF-8 check. That is the
    // contract of every memory map; the Python API documents it and offers
    // `mmap=False`.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(FileBytes::Mapped(map))
}

/// Reads the documents of a file (plain or `.gz`; mapped if `mmap`) without
/// copying them one by one; errors name the file and, for bad UTF-8 or JSON,
/// the byte offset or line.
pub fn read_documents(
    path: &Path,
    source: &DocSource,
    mmap: bool,
    cancel: &Cancel,
) -> Result<Documents> {
    let bytes = read_bytes(path, mmap, cancel)?;
    let sep = match source {
        DocSource::Separated(sep) => sep.as_str(),
        DocSource::JsonlField(field) => {
            let text = utf8(path, &bytes)?;
            let docs = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(n, line)| {
                    let v: Value = serde_json::from_str(line).map_err(|e| {
                        Error::Value(format!("{}:{}: invalid JSON ({e})", path.display(), n + 1))
                    })?;
                    match v.get(field) {
                        Some(Value::String(s)) => Ok(s.clone()),
                        _ => Err(Error::Value(format!(
                            "{}:{}: no string field {field:?}",
                            path.display(),
                            n + 1
                        ))),
                    }
                })
                .collect::<Result<Vec<String>>>()?;
            return Ok(Documents::Owned(docs));
        }
    };
    if sep.is_empty() {
        return Err(Error::Value(
            "the document separator cannot be empty".into(),
        ));
    }
    // Ranges on bytes: the separator is valid UTF-8, so in valid UTF-8 text
    // every match lies on char boundaries.
    let mut ranges = Vec::new();
    let mut start = 0;
    for at in memchr::memmem::find_iter(&bytes, sep.as_bytes()) {
        ranges.push((start, at));
        start = at + sep.len();
    }
    if start < bytes.len() {
        ranges.push((start, bytes.len()));
    }
    if sep == "\n" {
        // As `str::lines`: a line may end in "\r\n".
        for r in &mut ranges {
            if bytes[r.0..r.1].ends_with(b"\r") {
                r.1 -= 1;
            }
        }
    } else if ranges
        .last()
        .is_some_and(|&(a, b)| std::str::from_utf8(&bytes[a..b]).is_ok_and(|t| t.trim().is_empty()))
    {
        ranges.pop();
    }
    Ok(Documents::Ranges {
        path: path.to_path_buf(),
        bytes,
        ranges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(content: &[u8], name: &str, sep: &str) -> Result<Vec<String>> {
        let dir = std::env::temp_dir().join(format!("wpiece-io-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let read = |mmap| {
            read_documents(
                &path,
                &DocSource::Separated(sep.into()),
                mmap,
                Cancel::never(),
            )
            .and_then(|d| Ok(d.as_strs()?.iter().map(|s| s.to_string()).collect()))
        };
        let got: Result<Vec<String>> = read(true);
        if let (Ok(mapped), Ok(read)) = (&got, read(false)) {
            assert_eq!(mapped, &read);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        got
    }

    #[test]
    fn mapped_files_split_like_lines() {
        assert_eq!(
            docs(b"one\r\ntwo\n\nthree", "a.txt", "\n").unwrap(),
            ["one", "two", "", "three"]
        );
        assert_eq!(docs(b"", "empty.txt", "\n").unwrap(), Vec::<String>::new());
        // A last part of only (Unicode) whitespace is no document.
        assert_eq!(
            docs("a<s>b<s>\u{a0}\n".as_bytes(), "b.txt", "<s>").unwrap(),
            ["a", "b"]
        );
        assert_eq!(
            docs("é<s>ü".as_bytes(), "c.txt", "<s>").unwrap(),
            ["é", "ü"]
        );
    }

    #[test]
    fn bad_files_give_errors_naming_them() {
        let err = docs(b"fine\n\xff\n", "bad.txt", "\n").unwrap_err();
        assert!(
            matches!(&err, Error::Value(m) if m.ends_with("bad.txt: invalid UTF-8 at byte offset 5")),
            "{err}"
        );
        let dir = std::env::temp_dir();
        let err = read_documents(
            &dir,
            &DocSource::Separated("\n".into()),
            true,
            Cancel::never(),
        )
        .err();
        assert!(matches!(err, Some(Error::IsADirectory(_))), "{err:?}");
        let missing = dir.join("wpiece-no-such-file.txt");
        let err = read_documents(
            &missing,
            &DocSource::Separated("\n".into()),
            true,
            Cancel::never(),
        )
        .err();
        assert!(matches!(err, Some(Error::NotFound(_))), "{err:?}");
    }
}
