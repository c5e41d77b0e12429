//! A decode error for one message: what was wrong, where in the message, and at
//! which field path (filled in as the error travels up the column tree).

use std::fmt;

use arrow_schema::DataType;

use crate::error::FloeError;

/// Boxed so that `Result<(), DecodeError>` stays one word on the clean path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    message: String,
    /// Byte offset in the message.
    position: usize,
    /// Field names from the leaf up; reversed when displayed.
    path_rev: Vec<String>,
}

impl DecodeError {
    #[cold]
    pub fn new(message: impl Into<String>, position: usize) -> Self {
        Self(Box::new(Inner {
            message: message.into(),
            position,
            path_rev: Vec::new(),
        }))
    }

    /// Adds the enclosing field's name (called on the way up).
    #[cold]
    pub fn within(mut self, field: &str) -> Self {
        self.0.path_rev.push(field.to_string());
        self
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    pub fn position(&self) -> usize {
        self.0.position
    }

    /// The field path, e.g. `bid.price`, `tags[3]` (a list's element 3) or `attrs{"k1"}.n` (a
    /// map's value of key `k1`); empty at the top level.
    pub fn path(&self) -> String {
        let mut path = String::new();
        for part in self.0.path_rev.iter().rev() {
            if !path.is_empty() && !part.starts_with(['[', '{']) {
                path.push('.');
            }
            path.push_str(part);
        }
        path
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            write!(f, "{} (at byte {})", self.0.message, self.0.position)
        } else {
            write!(
                f,
                "field '{path}': {} (at byte {})",
                self.0.message, self.0.position
            )
        }
    }
}

/// Why a value's text does not convert to its column's type (a number, a date, an escape).
/// The parsers return it without a position; [`ValueError::at`] turns it into the message's
/// [`DecodeError`] -- the one place that happens. The texts are the reject reasons callers see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    NotADecimal {
        text: String,
    },
    DecimalTooPrecise {
        text: String,
        precision: u8,
        scale: i8,
    },
    DecimalOutOfRange {
        text: String,
        precision: u8,
        scale: i8,
    },
    NotANumber {
        text: String,
    },
    FloatOutOfRange {
        text: String,
        type_name: &'static str,
    },
    NotAUuid {
        text: String,
        reason: &'static str,
    },
    /// Fewer than `count` digits where a date or time needs them.
    Digits {
        count: usize,
        part: &'static str,
    },
    /// A missing `-` or `:` in a date or time.
    Separator {
        byte: u8,
        place: &'static str,
    },
    /// Text left over after a complete date, time or offset.
    TrailingText {
        after: &'static str,
    },
    OutOfRange {
        what: &'static str,
    },
    NoSuchMonth {
        month: u32,
    },
    NoSuchDay {
        year: i64,
        month: u32,
        day: u32,
    },
    NoSuchTime {
        hour: u32,
        minute: u32,
        second: u32,
    },
    FractionDigits,
    FractionTooFine {
        digits: String,
        keep: usize,
    },
    DateTimeSeparator,
    ZoneRequired,
    ZoneForbidden,
    BackslashAtEnd,
    UnknownEscape(u8),
    /// A bad `\u` escape, and what is wrong with it when that is more than "bad".
    UnicodeEscape(Option<&'static str>),
    /// A string value that does not parse as `expected` (a date, a time, a timestamp).
    InvalidText {
        expected: &'static str,
        text: String,
        reason: Box<ValueError>,
    },
}

impl ValueError {
    /// The reject for this error at byte `position` of the message.
    #[cold]
    pub fn at(self, position: usize) -> DecodeError {
        DecodeError::new(self.to_string(), position)
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotADecimal { text } => write!(f, "{text} is not a valid decimal number"),
            Self::DecimalTooPrecise {
                text,
                precision,
                scale,
            } => write!(
                f,
                "{text} has more fraction digits than decimal({precision},{scale}) allows"
            ),
            Self::DecimalOutOfRange {
                text,
                precision,
                scale,
            } => write!(f, "{text} is out of range for decimal({precision},{scale})"),
            Self::NotANumber { text } => write!(f, "{text} is not a valid number"),
            Self::FloatOutOfRange { text, type_name } => {
                write!(f, "number {text} is out of range for {type_name}")
            }
            Self::NotAUuid { text, reason } => write!(f, "'{text}' is not a UUID ({reason})"),
            Self::Digits { count, part } => write!(f, "expected {count} digits for the {part}"),
            Self::Separator { byte, place } => write!(f, "expected '{}' {place}", *byte as char),
            Self::TrailingText { after } => write!(f, "unexpected characters after {after}"),
            Self::OutOfRange { what } => write!(f, "{what} out of range"),
            Self::NoSuchMonth { month } => write!(f, "month {month} is not in 1..12"),
            Self::NoSuchDay { year, month, day } => {
                write!(f, "day {day} does not exist in {year:04}-{month:02}")
            }
            Self::NoSuchTime {
                hour,
                minute,
                second,
            } => write!(
                f,
                "time {hour:02}:{minute:02}:{second:02} is not a valid time of day"
            ),
            Self::FractionDigits => f.write_str("a fraction of a second needs 1 to 9 digits"),
            Self::FractionTooFine { digits, keep } => write!(
                f,
                "fraction .{digits} is finer than the column's precision ({keep} digits)"
            ),
            Self::DateTimeSeparator => {
                f.write_str("expected 'T' or ' ' between the date and the time")
            }
            Self::ZoneRequired => f.write_str("a timestamp with time zone needs 'Z' or an offset"),
            Self::ZoneForbidden => {
                f.write_str("a timestamp without time zone must not carry 'Z' or an offset")
            }
            Self::BackslashAtEnd => f.write_str("invalid JSON: a string ends with a backslash"),
            Self::UnknownEscape(byte) => {
                write!(f, "invalid JSON: unknown escape '\\{}'", *byte as char)
            }
            Self::UnicodeEscape(None) => f.write_str("invalid \\u escape"),
            Self::UnicodeEscape(Some(reason)) => write!(f, "invalid \\u escape: {reason}"),
            Self::InvalidText {
                expected,
                text,
                reason,
            } => write!(f, "invalid {expected} \"{text}\": {reason}"),
        }
    }
}

/// Why no decoder can be built for a target field. [`JsonDecoder::new`](super::JsonDecoder::new)
/// reports it as an `InvalidArgument` through the one conversion below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaError {
    Unsupported { path: String, data_type: DataType },
    UuidWidth { path: String },
    MapEntriesNotStruct { path: String },
    MapKeysNotUtf8 { path: String },
    BadWriteDefault { path: String, reason: String },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported { path, data_type } => write!(
                f,
                "field '{path}': Arrow type {data_type} is not supported by the JSON decoder"
            ),
            Self::UuidWidth { path } => {
                write!(
                    f,
                    "field '{path}': arrow.uuid must be fixed_size_binary(16)"
                )
            }
            Self::MapEntriesNotStruct { path } => {
                write!(f, "field '{path}': map entries must be a struct")
            }
            Self::MapKeysNotUtf8 { path } => write!(
                f,
                "field '{path}': only maps with utf8 keys can be decoded from JSON objects"
            ),
            Self::BadWriteDefault { path, reason } => write!(
                f,
                "field '{path}': its write default ({}) does not decode: {reason}",
                super::columns::WRITE_DEFAULT_KEY
            ),
        }
    }
}

impl From<SchemaError> for FloeError {
    fn from(e: SchemaError) -> Self {
        FloeError::invalid_argument(e.to_string())
    }
}

/// Longest reason a reject carries, in bytes: reasons travel into dead-letter headers, exceptions
/// and logs, and one too large for a Kafka record would stop a sink at the bad record.
pub const REASON_MAX_BYTES: usize = 1024;

/// `reason`, cut at a character boundary after [`REASON_MAX_BYTES`] and marked so. The decoder's
/// reasons quote [`excerpt`]s and are far shorter; this bounds any that is not.
pub fn bounded_reason(mut reason: String) -> String {
    if reason.len() <= REASON_MAX_BYTES {
        return reason;
    }
    let all = reason.len();
    let mut cut = REASON_MAX_BYTES;
    while !reason.is_char_boundary(cut) {
        cut -= 1;
    }
    reason.truncate(cut);
    reason.push_str(&format!("... (a reason of {all} bytes, cut)"));
    reason
}

/// Longest part of a token that an error message quotes, in bytes.
const EXCERPT_MAX_BYTES: usize = 40;

/// A token of the message as an error quotes it: as written (invalid UTF-8 replaced), cut at a
/// character boundary after [`EXCERPT_MAX_BYTES`] with `...` -- before a closing quote for a
/// string token (`quoted`), so the excerpt still reads as one string.
pub fn excerpt(token: &[u8], quoted: bool) -> String {
    if token.len() <= EXCERPT_MAX_BYTES {
        let text = String::from_utf8_lossy(token);
        return if quoted {
            text.into_owned()
        } else {
            escaped(&text)
        };
    }
    let mut cut = EXCERPT_MAX_BYTES;
    while cut > 0 && (token[cut] & 0xC0) == 0x80 {
        cut -= 1; // inside a UTF-8 sequence: keep the whole character out
    }
    if quoted {
        let backslashes = token[..cut]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 1 {
            cut -= 1; // don't split an escape from the character it escapes
        }
    }
    let text = String::from_utf8_lossy(&token[..cut]);
    if quoted {
        format!("{text}...\"")
    } else {
        format!("{}...", escaped(&text))
    }
}

/// Decoded text (a key, unescaped) as it is shown in a message: control characters, quotes and
/// backslashes escaped as JSON escapes them, so that a key can neither break the message's line
/// nor send a terminal its codes, and `mp{"a\"b"}` names one key.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoded_key_is_shown_escaped() {
        // helper-80: a key's newline and terminal codes went into the message as they were
        assert_eq!(
            excerpt("x\ny\u{1b}[31m\"}".as_bytes(), false),
            "x\\ny\\u001b[31m\\\"}"
        );
        assert_eq!(excerpt(b"a\\b", false), "a\\\\b");
        assert_eq!(
            excerpt(b"\"a\\nb\"", true),
            "\"a\\nb\"",
            "a quoted token is shown as written"
        );
    }

    #[test]
    fn reasons_are_bounded_at_a_character_boundary() {
        let short = "field 'a': expected int64".to_string();
        assert_eq!(bounded_reason(short.clone()), short);
        let long = format!("field 'a': {}", "é".repeat(2 * REASON_MAX_BYTES));
        let bounded = bounded_reason(long.clone());
        assert!(bounded.len() <= REASON_MAX_BYTES + 40, "{}", bounded.len());
        assert!(bounded.ends_with(&format!("... (a reason of {} bytes, cut)", long.len())));
        assert!(long.starts_with(bounded.split("...").next().unwrap()));
    }

    #[test]
    fn short_tokens_are_quoted_whole() {
        assert_eq!(excerpt(b"\"two\"", true), "\"two\"");
        assert_eq!(excerpt(b"12.5e3", false), "12.5e3");
        assert_eq!(excerpt(b"\"cut short", true), "\"cut short");
    }

    #[test]
    fn long_tokens_are_cut_with_an_ellipsis() {
        let long = format!("\"{}\"", "a".repeat(100));
        assert_eq!(
            excerpt(long.as_bytes(), true),
            format!("\"{}...\"", "a".repeat(39))
        );
        let digits = "7".repeat(60);
        assert_eq!(
            excerpt(digits.as_bytes(), false),
            format!("{}...", "7".repeat(40))
        );
    }

    #[test]
    fn cuts_keep_characters_and_escapes_whole() {
        // "é" is two bytes: the 40-byte cut would split the one at bytes 39..41.
        let accented = format!("\"{}é{}\"", "a".repeat(38), "b".repeat(20));
        assert_eq!(
            excerpt(accented.as_bytes(), true),
            format!("\"{}...\"", "a".repeat(38))
        );
        // A backslash at byte 39 stays with the quote it escapes.
        let escaped = format!("\"{}\\\"{}\"", "a".repeat(38), "b".repeat(20));
        assert_eq!(
            excerpt(escaped.as_bytes(), true),
            format!("\"{}...\"", "a".repeat(38))
        );
    }
}
