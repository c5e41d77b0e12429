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
