//! Decodes batches of JSON messages (one object each) into Arrow record batches
//! for a target schema. A bad message is taken out again and reported with its
//! index; the good messages of the batch still decode, in order.

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use serde::{Deserialize, Serialize};

use super::columns::{Column, StructColumn};
use super::cursor::{Cursor, Token};
use super::error::{bounded_reason, DecodeError};
use super::unknown::{UnknownField, UnknownKeys};
use crate::error::{FloeError, Result};
use crate::flink_rows::FlinkRowType;

/// The only decoder configuration version this build reads.
pub const DECODER_CONFIG_VERSION: u32 = 1;

/// Decoder settings, crossing the boundary as one versioned JSON blob.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DecoderConfig {
    pub version: u32,
    /// Reject messages with fields the schema does not have (default: ignore them).
    pub strict: bool,
    /// Count the fields the schema does not have, by path and JSON kind, for
    /// [`JsonDecoder::take_unknown_fields`] (default: off; ignored when `strict`).
    pub report_unknown_fields: bool,
    /// Report unknown fields with the shapes of their values (nested fields, array elements),
    /// and int, float and decimal values that only a wider column type would hold, for schema
    /// evolution (default: off; implies `report_unknown_fields`; ignored when `strict`).
    pub describe_unknown_fields: bool,
    /// Deepest nesting of objects and arrays accepted (default 64, at most [`MAX_DEPTH_LIMIT`]).
    pub max_depth: usize,
    /// Largest message accepted, in bytes (default 16 MiB).
    pub max_message_bytes: usize,
    /// Messages are not JSON but Flink binary rows of this type, read by a
    /// [`crate::flink_rows::FlinkRowDecoder`] (the JSON settings above do not apply).
    pub flink_rows: Option<FlinkRowType>,
}

impl Default for DecoderConfig {
    fn default() -> Self {
        Self {
            version: DECODER_CONFIG_VERSION,
            strict: false,
            report_unknown_fields: false,
            describe_unknown_fields: false,
            max_depth: 64,
            max_message_bytes: 16 * 1024 * 1024,
            flink_rows: None,
        }
    }
}

impl DecoderConfig {
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        if bytes.is_empty() {
            return Ok(Self::default());
        }
        let config: Self = serde_json::from_slice(bytes)
            .map_err(|e| FloeError::invalid_argument(format!("decoder config: {e}")))?;
        if config.version != DECODER_CONFIG_VERSION {
            return Err(FloeError::invalid_argument(format!(
                "decoder config: version {} is not supported (this library reads version {DECODER_CONFIG_VERSION})",
                config.version
            )));
        }
        if config.max_depth == 0 || config.max_message_bytes == 0 {
            return Err(FloeError::invalid_argument(
                "decoder config: max_depth and max_message_bytes must be > 0",
            ));
        }
        if config.max_depth > MAX_DEPTH_LIMIT {
            return Err(FloeError::invalid_argument(format!(
                "decoder config: max_depth {} is above {MAX_DEPTH_LIMIT}, the deepest nesting the decoder \
                 reads on a caller's stack",
                config.max_depth
            )));
        }
        Ok(config)
    }
}

/// The largest `max_depth` a decoder takes. Nesting is parsed recursively on the calling thread's
/// stack, about 130-170 bytes a level (measured in release builds, skipping and describing unknown
/// values): 1,000 levels take some 170 KiB, well inside a Java thread's default 1 MiB (Flink's and
/// Jackson's default limit is 1,000 too). An unbounded depth could overflow the stack, which aborts
/// the process rather than failing the call.
pub const MAX_DEPTH_LIMIT: usize = 1000;

/// A message that could not be decoded: its index in the batch and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reject {
    pub index: usize,
    pub reason: String,
}

/// The result of decoding one batch of messages.
pub struct DecodedBatch {
    /// The good messages, in input order.
    pub batch: RecordBatch,
    /// The bad messages, in input order.
    pub rejects: Vec<Reject>,
    /// True when decoding stopped at the first reject (`stop_at_first_reject`).
    pub stopped: bool,
}

/// One decoder per thread; it keeps its buffers between batches.
pub struct JsonDecoder {
    schema: SchemaRef,
    root: StructColumn,
    config: DecoderConfig,
}

impl JsonDecoder {
    pub fn new(schema: SchemaRef, config: DecoderConfig) -> Result<Self> {
        let unknown = if config.strict {
            UnknownKeys::Reject
        } else if config.describe_unknown_fields {
            UnknownKeys::Describe
        } else if config.report_unknown_fields {
            UnknownKeys::Report
        } else {
            UnknownKeys::Skip
        };
        let root = StructColumn::new(schema.fields().clone(), "", None, unknown)?;
        Ok(Self {
            schema,
            root,
            config,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The fields the schema lacks met since the last call (with `report_unknown_fields`;
    /// always empty without), and forgets them. Messages later rejected count too.
    pub fn take_unknown_fields(&mut self) -> Vec<UnknownField> {
        let mut out = Vec::new();
        self.root.take_unknown(&mut out);
        out
    }

    /// Decodes every message. With `stop_at_first_reject`, stops at the first bad
    /// one (the returned batch then holds the good messages before it).
    pub fn decode<'m>(
        &mut self,
        messages: impl IntoIterator<Item = &'m [u8]>,
        stop_at_first_reject: bool,
    ) -> Result<DecodedBatch> {
        let messages = messages.into_iter().map(Message::Bytes);
        self.decode_all(messages, stop_at_first_reject)
    }

    /// [`Self::decode`] for messages that lie back to back in `span` and cover it exactly, as a
    /// packed `MessageBatch` hands them over: their UTF-8 is checked in one pass over `span`
    /// instead of message by message. Messages that do not tile `span`, or a span that is not
    /// valid UTF-8, are checked one by one as usual (so a bad message is still named).
    pub fn decode_packed(
        &mut self,
        span: &[u8],
        messages: &[&[u8]],
        stop_at_first_reject: bool,
    ) -> Result<DecodedBatch> {
        match packed_texts(span, messages) {
            Some(texts) => {
                self.decode_all(texts.into_iter().map(Message::Text), stop_at_first_reject)
            }
            None => {
                let messages = messages.iter().map(|m| Message::Bytes(m));
                self.decode_all(messages, stop_at_first_reject)
            }
        }
    }

    fn decode_all<'m>(
        &mut self,
        messages: impl Iterator<Item = Message<'m>>,
        stop_at_first_reject: bool,
    ) -> Result<DecodedBatch> {
        // Leftovers of a batch interrupted by a panic must not leak into this one.
        self.root.truncate(0);
        let mut rows = 0;
        let mut rejects = Vec::new();
        let mut stopped = false;
        for (index, message) in messages.enumerate() {
            match self.decode_one(message) {
                Ok(()) => rows += 1,
                Err(e) => {
                    self.root.truncate(rows);
                    rejects.push(Reject {
                        index,
                        reason: bounded_reason(e.to_string()),
                    });
                    if stop_at_first_reject {
                        stopped = true;
                        break;
                    }
                }
            }
        }
        let columns = self.root.finish_columns()?;
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        Ok(DecodedBatch {
            batch,
            rejects,
            stopped,
        })
    }

    /// The cursor, and so the columns, only ever see a message as `&str`: checked UTF-8.
    fn decode_one(&mut self, message: Message) -> std::result::Result<(), DecodeError> {
        let len = match message {
            Message::Text(text) => text.len(),
            Message::Bytes(bytes) => bytes.len(),
        };
        if len > self.config.max_message_bytes {
            return Err(DecodeError::new(
                format!(
                    "message of {len} bytes exceeds the limit of {} bytes",
                    self.config.max_message_bytes
                ),
                0,
            ));
        }
        let text = match message {
            Message::Text(text) => text,
            Message::Bytes(bytes) => simdutf8::basic::from_utf8(bytes).map_err(|_| {
                let at = simdutf8::compat::from_utf8(bytes)
                    .err()
                    .map_or(0, |e| e.valid_up_to());
                DecodeError::new("invalid UTF-8", at)
            })?,
        };
        let mut cur = Cursor::new(text, self.config.max_depth);
        cur.skip_byte_order_mark();
        match cur.peek() {
            Token::Object => {}
            Token::End => {
                // blank is not empty: a line of spaces read as "empty" (helper-89)
                let reason = if text.trim_start_matches('\u{feff}').is_empty() {
                    "empty message"
                } else {
                    "blank message (whitespace only)"
                };
                return Err(DecodeError::new(reason, 0));
            }
            Token::Invalid => return Err(cur.unexpected("an object")),
            other => {
                if matches!(other, Token::Null | Token::Bool) {
                    // Its first byte only says which literal it could be: `nope` is not `null`.
                    let at = cur.pos();
                    cur.skip_value()?;
                    return Err(DecodeError::new(
                        format!("message is a JSON {}, expected an object", other.describe()),
                        at,
                    ));
                }
                return Err(DecodeError::new(
                    format!("message is a JSON {}, expected an object", other.describe()),
                    cur.pos(),
                ));
            }
        }
        self.root.decode(&mut cur)?;
        cur.finish()
    }
}

/// A message on its way to [`JsonDecoder::decode_one`]: already known to be UTF-8, or not yet.
#[derive(Clone, Copy)]
enum Message<'m> {
    Text(&'m str),
    Bytes(&'m [u8]),
}

/// The messages as pieces of `span` checked for UTF-8 in one pass, when they follow each other
/// without gaps from its first byte to its last and each starts on a character boundary: the
/// pieces of a valid text cut at character boundaries are valid. `None` when they do not tile
/// `span` that way or `span` is not valid UTF-8 (the caller then checks them one by one, so a
/// bad message is still named).
fn packed_texts<'m>(span: &'m [u8], messages: &[&'m [u8]]) -> Option<Vec<&'m str>> {
    let base = span.as_ptr() as usize;
    let mut next = 0;
    let mut ranges = Vec::with_capacity(messages.len());
    for message in messages {
        if (message.as_ptr() as usize).checked_sub(base) != Some(next) {
            return None;
        }
        ranges.push(next..next + message.len());
        next += message.len();
    }
    if next != span.len() {
        return None;
    }
    let text = simdutf8::basic::from_utf8(span).ok()?;
    // `get` is None for a range that does not start and end on character boundaries.
    ranges.into_iter().map(|range| text.get(range)).collect()
}
