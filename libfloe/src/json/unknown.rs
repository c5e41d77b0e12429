//! Fields a message has and the schema lacks, and values too wide for their column. By default
//! the decoder skips unknown fields; it can refuse them (strict mode), report them (each struct
//! column counts, per unknown name, how often it came and which JSON kinds its values had), or
//! describe them for schema evolution: then each unknown value's shape is inferred too (the
//! fields of its objects, the element of its arrays, recursively), and int, float and decimal
//! columns report values that only a wider type Iceberg allows would hold. The counting runs only
//! on the paths that skip an unknown value or reject a too-wide one, so a decoder that meets
//! none pays nothing.

use std::cell::Cell;

use serde::Serialize;

use super::cursor::{Cursor, Token};
use super::error::DecodeError;

/// What a struct column does with a key the schema lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownKeys {
    Skip,
    Reject,
    /// Count them by name and JSON kind.
    Report,
    /// Count them with their inferred shapes, and report values needing a wider column type.
    Describe,
}

impl UnknownKeys {
    fn counts(self) -> bool {
        matches!(self, Self::Report | Self::Describe)
    }
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

/// Distinct unknown names one struct column (or one described object) keeps; beyond, further
/// new names are not counted (a message stream with unbounded keys would otherwise grow this
/// without end).
pub const MAX_NAMES_PER_STRUCT: usize = 256;

/// The inferred type of an unknown field's values, merged over every value met: `null` alone
/// (or an empty array's element) says nothing yet; an integer met with a float is a float; two
/// objects merge their fields; otherwise the first kind met stays (values of another kind will
/// not fit the column made for it, and are rejected as such).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    Null,
    Boolean,
    Integer,
    Float,
    String,
    Object(Vec<ShapeField>),
    Array(Box<Shape>),
}

/// One field of an object's [`Shape`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShapeField {
    pub name: String,
    pub shape: Shape,
}

impl Shape {
    fn kind(&self) -> u8 {
        match self {
            Shape::Null => NULL,
            Shape::Boolean => BOOLEAN,
            Shape::Integer => INTEGER,
            Shape::Float => FLOAT,
            Shape::String => STRING,
            Shape::Object(_) => OBJECT,
            Shape::Array(_) => ARRAY,
        }
    }

    fn merge(&mut self, other: Shape) {
        match (&mut *self, other) {
            (Shape::Null, other) => *self = other,
            (Shape::Integer, Shape::Float) => *self = Shape::Float,
            (Shape::Object(fields), Shape::Object(more)) => {
                for field in more {
                    merge_field(fields, field.name, field.shape);
                }
            }
            (Shape::Array(element), Shape::Array(more)) => element.merge(*more),
            _ => {}
        }
    }

    /// Reads the value at the cursor (checking that it is valid JSON) and infers its shape.
    /// Nesting is bounded by the cursor's depth limit.
    fn of(cur: &mut Cursor) -> Result<Shape, DecodeError> {
        Ok(match cur.peek() {
            Token::Number => {
                let number = cur.parse_number("a number")?;
                if number.text.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                    Shape::Float
                } else {
                    Shape::Integer
                }
            }
            Token::Object => {
                cur.begin_object()?;
                let mut fields = Vec::new();
                let mut first = true;
                while let Some(key) = cur.next_key(first)? {
                    first = false;
                    let name = key.to_owned();
                    let shape = Shape::of(cur)?;
                    merge_field(&mut fields, name, shape);
                }
                Shape::Object(fields)
            }
            Token::Array => {
                cur.begin_array()?;
                let mut element = Shape::Null;
                let mut first = true;
                while cur.next_element(first)? {
                    first = false;
                    element.merge(Shape::of(cur)?);
                }
                Shape::Array(Box::new(element))
            }
            token => {
                cur.skip_value()?;
                match token {
                    Token::String => Shape::String,
                    Token::Bool => Shape::Boolean,
                    _ => Shape::Null,
                }
            }
        })
    }
}

fn merge_field(fields: &mut Vec<ShapeField>, name: String, shape: Shape) {
    if let Some(field) = fields.iter_mut().find(|f| f.name == name) {
        field.shape.merge(shape);
    } else if fields.len() < MAX_NAMES_PER_STRUCT {
        fields.push(ShapeField { name, shape });
    }
}

/// One report entry: a field the schema lacks, or a column whose values needed a wider type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnknownField {
    /// Where: `a.b`, `list[]`, `map{}` as in decode errors.
    pub path: String,
    /// An unknown field's own key, as the message had it (the path joins keys with `.`, and a
    /// key may hold a `.` itself), when described. Absent for a too-narrow column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The JSON kinds its values had.
    pub kinds: Vec<&'static str>,
    /// How many values came (or were too wide) since the last report.
    pub count: u64,
    /// An unknown field's parent struct, by field id (none at the top level or without ids).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<i32>,
    /// An unknown field's inferred shape (when described).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// A too-narrow column's field id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_id: Option<i32>,
    /// The type a too-narrow column needs: `long`, `double` or `decimal(P,S)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widen_to: Option<String>,
}

fn kind_names(kinds: u8) -> Vec<&'static str> {
    KIND_NAMES
        .iter()
        .filter(|(bit, _)| kinds & bit != 0)
        .map(|(_, n)| *n)
        .collect()
}

#[derive(Debug)]
struct Entry {
    name: Box<str>,
    kinds: u8,
    count: u64,
    shape: Option<Shape>,
}

/// One struct column's counts.
#[derive(Debug)]
pub struct UnknownLog {
    entries: Vec<Entry>,
    describe: bool,
    parent_id: Option<i32>,
}

impl UnknownLog {
    /// A log when `mode` counts unknown fields; `parent_id` is the struct's own field id.
    pub fn for_mode(mode: UnknownKeys, parent_id: Option<i32>) -> Option<Self> {
        mode.counts().then(|| Self {
            entries: Vec::new(),
            describe: mode == UnknownKeys::Describe,
            parent_id,
        })
    }

    fn record(&mut self, name: &str, kind: u8, shape: Option<Shape>) {
        if let Some(entry) = self.entries.iter_mut().find(|e| &*e.name == name) {
            entry.kinds |= kind;
            entry.count += 1;
            if let (Some(known), Some(shape)) = (entry.shape.as_mut(), shape) {
                known.merge(shape);
            }
        } else if self.entries.len() < MAX_NAMES_PER_STRUCT {
            self.entries.push(Entry {
                name: name.into(),
                kinds: kind,
                count: 1,
                shape,
            });
        }
    }

    /// Moves the counts into `out`, naming each field under the struct's `path`.
    pub fn drain_into(&mut self, path: &str, out: &mut Vec<UnknownField>) {
        for entry in self.entries.drain(..) {
            out.push(UnknownField {
                path: if path.is_empty() {
                    entry.name.to_string()
                } else {
                    format!("{path}.{}", entry.name)
                },
                name: self.describe.then(|| entry.name.to_string()),
                kinds: kind_names(entry.kinds),
                count: entry.count,
                parent_id: self.parent_id,
                shape: entry.shape,
                field_id: None,
                widen_to: None,
            });
        }
    }

    /// Skips the value at the cursor (still checking that it is valid JSON) and counts it
    /// under `name` with its kind (and shape, when described); a number is an integer unless it
    /// has a fraction or exponent.
    pub fn skip_and_record(&mut self, name: &str, cur: &mut Cursor) -> Result<(), DecodeError> {
        if self.describe {
            let shape = Shape::of(cur)?;
            self.record(name, shape.kind(), Some(shape));
            return Ok(());
        }
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
        self.record(name, kind, None);
        Ok(())
    }
}

/// A numeric column's count of values it rejected that a wider type would hold (the rows are
/// still rejected: the caller widens the column and decodes them again).
#[derive(Debug)]
pub struct WideningLog {
    path: Box<str>,
    field_id: Option<i32>,
    kind: &'static str,
    count: Cell<u64>,
    /// For decimals: the largest precision needed so far.
    precision: Cell<u8>,
}

impl WideningLog {
    pub fn new(path: &str, field_id: Option<i32>, kind: &'static str) -> Self {
        Self {
            path: path.into(),
            field_id,
            kind,
            count: Cell::new(0),
            precision: Cell::new(0),
        }
    }

    pub fn record(&self) {
        self.count.set(self.count.get() + 1);
    }

    pub fn record_precision(&self, precision: u8) {
        self.record();
        self.precision.set(self.precision.get().max(precision));
    }

    /// Moves the count into `out` as a column needing `widen_to` (a decimal's type is built
    /// from the largest precision needed and `scale`).
    pub fn drain_into(&self, widen_to: &str, scale: Option<i8>, out: &mut Vec<UnknownField>) {
        let count = self.count.replace(0);
        if count == 0 {
            return;
        }
        let precision = self.precision.replace(0);
        out.push(UnknownField {
            path: self.path.to_string(),
            name: None,
            kinds: vec![self.kind],
            count,
            parent_id: None,
            shape: None,
            field_id: self.field_id,
            widen_to: Some(match scale {
                Some(scale) => format!("decimal({precision},{scale})"),
                None => widen_to.to_string(),
            }),
        });
    }
}
