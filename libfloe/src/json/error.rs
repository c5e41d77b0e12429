//! A decode error for one message: what was wrong, where in the message, and at
//! which field path (filled in as the error travels up the column tree).

use std::fmt;

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

    /// The field path, e.g. `bid.price` or `tags[]`; empty at the top level.
    pub fn path(&self) -> String {
        let parts: Vec<&str> = self.0.path_rev.iter().rev().map(String::as_str).collect();
        parts.join(".").replace(".[]", "[]").replace(".{}", "{}")
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

/// Longest part of a token that an error message quotes, in bytes.
const EXCERPT_MAX_BYTES: usize = 40;

/// A token of the message as an error quotes it: as written (invalid UTF-8 replaced), cut at a
/// character boundary after [`EXCERPT_MAX_BYTES`] with `...` -- before a closing quote for a
/// string token (`quoted`), so the excerpt still reads as one string.
pub fn excerpt(token: &[u8], quoted: bool) -> String {
    if token.len() <= EXCERPT_MAX_BYTES {
        return String::from_utf8_lossy(token).into_owned();
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
        format!("{text}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
