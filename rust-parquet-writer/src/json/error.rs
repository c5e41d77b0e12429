//! A decode error for one message: what was wrong, where in the message, and at
//! which field path (filled in as the error travels up the column tree).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
    /// Byte offset in the message.
    pub position: usize,
    /// Field names from the leaf up; reversed when displayed.
    path_rev: Vec<String>,
}

impl DecodeError {
    pub fn new(message: impl Into<String>, position: usize) -> Self {
        Self {
            message: message.into(),
            position,
            path_rev: Vec::new(),
        }
    }

    /// Adds the enclosing field's name (called on the way up).
    pub fn within(mut self, field: &str) -> Self {
        self.path_rev.push(field.to_string());
        self
    }

    /// The field path, e.g. `bid.price` or `tags[]`; empty at the top level.
    pub fn path(&self) -> String {
        let parts: Vec<&str> = self.path_rev.iter().rev().map(String::as_str).collect();
        parts.join(".").replace(".[]", "[]")
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            write!(f, "{} (at byte {})", self.message, self.position)
        } else {
            write!(
                f,
                "field '{path}': {} (at byte {})",
                self.message, self.position
            )
        }
    }
}
