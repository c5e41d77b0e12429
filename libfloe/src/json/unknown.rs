//! Fields a message has and the schema lacks. By default the decoder skips them; it can refuse
//! them (strict mode) or report them: each struct column then counts, per unknown name, how
//! often it came and which JSON kinds its values had, until the counts are taken. The counting
//! runs only on the path that skips an unknown value, so a decoder that meets none pays nothing.

use serde::Serialize;

use super::cursor::{Cursor, Token};
use super::error::DecodeError;

/// What a struct column does with a key the schema lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownKeys {
    Skip,
    Reject,
    Report,
}

const OBJECT: u8 = 1;
const ARRAY: u8 = 1 << 1;
const STRING: u8 = 1 << 2;
const INTEGER: u8 = 1 << 3;
const FLOAT: u8 = 1 << 4;
const BOOLEAN: u8 = 1 << 5;
const NULL: u8 = 1 << 6;
const KIND_NAMES: [(u8, &str); 7] = [
    (OBJECT, "object"),
    (ARRAY, "array"),
    (STRING, "string"),
    (INTEGER, "integer"),
    (FLOAT, "float"),
    (BOOLEAN, "boolean"),
    (NULL, "null"),
];

/// Distinct unknown names one struct column keeps; beyond, further new names are not counted
/// (a message stream with unbounded keys would otherwise grow this without end).
pub const MAX_NAMES_PER_STRUCT: usize = 256;

/// One unknown field as reported: its path (`a.b`, `list[]`, `map{}` as in decode errors), the
/// JSON kinds its values had, and how many values came since the last report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnknownField {
    pub path: String,
    pub kinds: Vec<&'static str>,
    pub count: u64,
}

/// One struct column's counts.
#[derive(Debug, Default)]
pub struct UnknownLog {
    entries: Vec<(Box<str>, u8, u64)>,
}

impl UnknownLog {
    fn record(&mut self, name: &str, kind: u8) {
        if let Some(entry) = self.entries.iter_mut().find(|e| &*e.0 == name) {
            entry.1 |= kind;
            entry.2 += 1;
        } else if self.entries.len() < MAX_NAMES_PER_STRUCT {
            self.entries.push((name.into(), kind, 1));
        }
    }

    /// Moves the counts into `out`, naming each field under the struct's `path`.
    pub fn drain_into(&mut self, path: &str, out: &mut Vec<UnknownField>) {
        for (name, kinds, count) in self.entries.drain(..) {
            out.push(UnknownField {
                path: if path.is_empty() {
                    name.into()
                } else {
                    format!("{path}.{name}")
                },
                kinds: KIND_NAMES
                    .iter()
                    .filter(|(bit, _)| kinds & bit != 0)
                    .map(|(_, n)| *n)
                    .collect(),
                count,
            });
        }
    }

    /// Skips the value at the cursor (still checking that it is valid JSON) and counts it
    /// under `name` with its kind; a number is an integer unless it has a fraction or exponent.
    pub fn skip_and_record(&mut self, name: &str, cur: &mut Cursor) -> Result<(), DecodeError> {
        let kind = match cur.peek() {
            Token::Number => {
                let number = cur.parse_number("a number")?;
                if number.text.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                    FLOAT
                } else {
                    INTEGER
                }
            }
            token => {
                cur.skip_value()?;
                match token {
                    Token::Object => OBJECT,
                    Token::Array => ARRAY,
                    Token::String => STRING,
                    Token::Bool => BOOLEAN,
                    _ => NULL,
                }
            }
        };
        self.record(name, kind);
        Ok(())
    }
}
