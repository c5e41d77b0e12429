//! A byte cursor over one JSON message: just the tokens the column decoders
//! need, never allocating on the clean path. Strings are scanned 16 bytes a step (SSE2 on
//! x86_64, 8-byte words elsewhere), integers read eight digits at a time, and the keys of
//! compact JSON matched as whole `,"name":` words.

use std::borrow::Cow;

use super::error::{excerpt, DecodeError, ValueError};
use super::unchecked::find_special;

/// Kinds of JSON value, for "expected X, found Y" messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
    End,
    Invalid,
}

impl Token {
    pub fn describe(self) -> &'static str {
        match self {
            Token::Object => "object",
            Token::Array => "array",
            Token::String => "string",
            Token::Number => "number",
            Token::Bool => "boolean",
            Token::Null => "null",
            Token::End => "end of message",
            Token::Invalid => "invalid JSON",
        }
    }
}

/// Positions are byte offsets into the message. Every position a string is cut at (a quote, a
/// backslash, the end of an escape) is an ASCII byte, so a character boundary: string values
/// come out as `&str` pieces of the message without another UTF-8 check.
pub struct Cursor<'a> {
    text: &'a str,
    buf: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    /// Whether Jackson's default read limits apply ([`Self::with_jackson_limits`]).
    jackson_limits: bool,
    /// Reused for keys and values that contain escapes.
    scratch: String,
}

/// Jackson's default read limits (`StreamReadConstraints`), which Flink's `json` format meets as
/// errors: names of at most 50,000 characters, numbers of at most 1,000 and string values of at
/// most 20,000,000 (strings it skips are not checked). The cursor compares token bytes with them;
/// a token's bytes are never fewer than its UTF-16 characters, so a token within its limit in bytes
/// is within Jackson's, and one beyond it may not be (the caller then lets Jackson decide).
pub const JACKSON_MAX_NAME: usize = 50_000;
pub const JACKSON_MAX_NUMBER: usize = 1_000;
pub const JACKSON_MAX_STRING: usize = 20_000_000;

/// A parsed number's text.
pub struct NumberText<'a> {
    pub text: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// A cursor over one message, which is valid UTF-8 by its type (the decoder checks it).
    pub fn new(text: &'a str, max_depth: usize) -> Self {
        Self {
            text,
            buf: text.as_bytes(),
            pos: 0,
            depth: 0,
            max_depth,
            jackson_limits: false,
            scratch: String::new(),
        }
    }

    /// A cursor that refuses names, numbers and string values longer than Jackson reads
    /// ([`JACKSON_MAX_NAME`] and the others), as an error like any other.
    pub fn with_jackson_limits(mut self) -> Self {
        self.jackson_limits = true;
        self
    }

    fn check_jackson_limit(
        &self,
        what: &str,
        bytes: usize,
        limit: usize,
        at: usize,
    ) -> Result<(), DecodeError> {
        if self.jackson_limits && bytes > limit {
            return Err(DecodeError::new(
                format!("{what} of {bytes} bytes: longer than Jackson reads ({limit})"),
                at,
            ));
        }
        Ok(())
    }

    /// Steps over a UTF-8 byte order mark at the start, as Jackson does (positions stay those of
    /// the message's bytes).
    pub fn skip_byte_order_mark(&mut self) {
        if self.pos == 0 && self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn error(&self, message: impl Into<String>) -> DecodeError {
        DecodeError::new(message, self.pos)
    }

    #[inline]
    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.buf.get(self.pos) {
            if is_ws(b) {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The kind of the next value, after whitespace; consumes nothing else.
    #[inline]
    pub fn peek(&mut self) -> Token {
        self.skip_ws();
        match self.buf.get(self.pos) {
            None => Token::End,
            Some(b'{') => Token::Object,
            Some(b'[') => Token::Array,
            Some(b'"') => Token::String,
            Some(b'-' | b'0'..=b'9') => Token::Number,
            Some(b't' | b'f') => Token::Bool,
            Some(b'n') => Token::Null,
            Some(_) => Token::Invalid,
        }
    }

    /// An error for a value of the wrong kind, or for malformed JSON at this spot.
    pub fn unexpected(&mut self, expected: &str) -> DecodeError {
        match self.peek() {
            Token::Invalid => self.error(format!(
                "invalid JSON: unexpected character {}",
                describe_byte(self.buf[self.pos])
            )),
            Token::End => self.error(format!("truncated message: expected {expected}")),
            // The kind says it all; quoting a whole object would bury the message.
            found @ (Token::Object | Token::Array) => {
                self.error(format!("expected {expected}, found {}", found.describe()))
            }
            found => {
                let token = &self.buf[self.pos..self.token_end(found)];
                self.error(format!(
                    "expected {expected}, found {} {}",
                    found.describe(),
                    excerpt(token, found == Token::String)
                ))
            }
        }
    }

    /// Where the scalar token at the cursor ends (exclusive), without consuming it: after the
    /// closing quote of a string (escapes skipped), after a number's or a literal's last
    /// character, or at the end of the message if it is cut short.
    fn token_end(&self, token: Token) -> usize {
        let buf = self.buf;
        let mut i = self.pos + 1;
        match token {
            Token::String => {
                while i < buf.len() {
                    match buf[i] {
                        b'"' => return i + 1,
                        b'\\' => i += 2,
                        _ => i += 1,
                    }
                }
                buf.len()
            }
            Token::Number => {
                while i < buf.len()
                    && matches!(buf[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                i
            }
            _ => {
                while i < buf.len() && buf[i].is_ascii_alphabetic() {
                    i += 1;
                }
                i
            }
        }
    }

    #[inline]
    fn consume(&mut self, byte: u8, expected: &str) -> Result<(), DecodeError> {
        self.skip_ws();
        if self.buf.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else if self.pos >= self.buf.len() {
            Err(self.error(format!("truncated message: expected {expected}")))
        } else {
            Err(self.error(format!(
                "invalid JSON: expected {expected}, found {}",
                describe_byte(self.buf[self.pos])
            )))
        }
    }

    /// Consumes `null` if it is next.
    #[inline]
    pub fn take_null(&mut self) -> Result<bool, DecodeError> {
        if self.peek() == Token::Null {
            self.literal(b"null")?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), DecodeError> {
        if self.buf[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else if word.starts_with(&self.buf[self.pos..]) {
            Err(self.error("truncated message inside a literal"))
        } else {
            Err(self.error("invalid JSON: bad literal"))
        }
    }

    pub fn parse_bool(&mut self) -> Result<bool, DecodeError> {
        match self.peek() {
            Token::Bool if self.buf[self.pos] == b't' => self.literal(b"true").map(|_| true),
            Token::Bool => self.literal(b"false").map(|_| false),
            _ => Err(self.unexpected("boolean")),
        }
    }

    // ---- objects and arrays ----

    fn enter(&mut self) -> Result<(), DecodeError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.error(format!(
                "nesting deeper than the limit of {}",
                self.max_depth
            )));
        }
        Ok(())
    }

    /// Consumes `{`; then call [`Self::next_key`] until it returns `None`.
    pub fn begin_object(&mut self) -> Result<(), DecodeError> {
        if self.peek() != Token::Object {
            return Err(self.unexpected("object"));
        }
        self.pos += 1;
        self.enter()
    }

    /// The next key of an object (escapes decoded), consuming it and its `:`;
    /// `None` at the closing `}`. `first` is true for the first call on an object.
    pub fn next_key(&mut self, first: bool) -> Result<Option<&str>, DecodeError> {
        self.skip_ws();
        match self.buf.get(self.pos) {
            Some(b'}') => {
                self.pos += 1;
                self.depth -= 1;
                return Ok(None);
            }
            Some(b',') if !first => {
                self.pos += 1;
                self.skip_ws();
            }
            None => return Err(self.error("truncated message: expected a key or '}'")),
            Some(&b) if !first => {
                return Err(self.error(format!(
                    "invalid JSON: expected ',' or '}}' after a value, found {}",
                    describe_byte(b)
                )))
            }
            _ => {}
        }
        if self.buf.get(self.pos) != Some(&b'"') {
            return Err(match self.buf.get(self.pos) {
                None => self.error("truncated message: expected a key"),
                Some(&b) => self.error(format!(
                    "invalid JSON: expected a quoted key, found {}",
                    describe_byte(b)
                )),
            });
        }
        let (start, end, escaped) = self.scan_string()?;
        self.check_jackson_limit("a name", end - start, JACKSON_MAX_NAME, start)?;
        self.consume(b':', "':' after a key")?;
        let text = self.text;
        if escaped {
            self.scratch.clear();
            unescape_into(&text[start..end], &mut self.scratch).map_err(|e| e.at(start))?;
            Ok(Some(&self.scratch))
        } else {
            Ok(Some(&text[start..end]))
        }
    }

    /// Consumes `[`; then call [`Self::next_element`] until it returns false.
    pub fn begin_array(&mut self) -> Result<(), DecodeError> {
        if self.peek() != Token::Array {
            return Err(self.unexpected("array"));
        }
        self.pos += 1;
        self.enter()
    }

    /// True if another element follows (the cursor is then at it); false at `]`.
    pub fn next_element(&mut self, first: bool) -> Result<bool, DecodeError> {
        self.skip_ws();
        match self.buf.get(self.pos) {
            Some(b']') => {
                self.pos += 1;
                self.depth -= 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.pos += 1;
                Ok(true)
            }
            None => Err(self.error("truncated message: expected a value or ']'")),
            Some(&b) if !first => Err(self.error(format!(
                "invalid JSON: expected ',' or ']' after a value, found {}",
                describe_byte(b)
            ))),
            _ => Ok(true),
        }
    }

    /// After the top-level value: only whitespace may follow.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        self.skip_ws();
        if self.pos < self.buf.len() {
            return Err(self.error("invalid JSON: unexpected data after the top-level object"));
        }
        Ok(())
    }

    // ---- strings ----

    /// At a `"`: finds the closing quote. Returns content bounds and whether it has escapes.
    #[inline]
    fn scan_string(&mut self) -> Result<(usize, usize, bool), DecodeError> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            let Some(at) = find_special(self.buf, i) else {
                self.pos = self.buf.len();
                return Err(self.error("truncated message inside a string"));
            };
            match self.buf[at] {
                b'"' => {
                    self.pos = at + 1;
                    return Ok((start, at, escaped));
                }
                b'\\' => {
                    escaped = true;
                    i = at + 2; // skip the escaped character; \u digits are checked later
                    if i > self.buf.len() {
                        self.pos = self.buf.len();
                        return Err(self.error("truncated message inside a string"));
                    }
                }
                _ => {
                    return Err(DecodeError::new(
                        "invalid JSON: unescaped control character in a string",
                        at,
                    ))
                }
            }
        }
    }

    /// Appends the string value's decoded bytes to `out`, in one pass: the runs between
    /// escapes are copied as the scan finds them.
    #[inline]
    pub fn parse_string_into(&mut self, out: &mut String) -> Result<(), DecodeError> {
        if self.peek() != Token::String {
            return Err(self.unexpected("string"));
        }
        let (text, buf) = (self.text, self.buf);
        let start = self.pos + 1;
        let mut copied = start; // everything before this is in `out` already
        let mut i = start;
        loop {
            let Some(at) = find_special(buf, i) else {
                self.pos = buf.len();
                return Err(self.error("truncated message inside a string"));
            };
            match buf[at] {
                b'"' => {
                    out.push_str(&text[copied..at]);
                    self.pos = at + 1;
                    return Ok(());
                }
                b'\\' => {
                    out.push_str(&text[copied..at]);
                    if at + 1 >= buf.len() {
                        self.pos = buf.len();
                        return Err(self.error("truncated message inside a string"));
                    }
                    i = match unescape_one(buf, at, out) {
                        Ok(next) => next,
                        // A bad escape in a string that never closes: the message is cut short.
                        Err(_) if !buf[at + 2..].contains(&b'"') => {
                            self.pos = buf.len();
                            return Err(self.error("truncated message inside a string"));
                        }
                        Err(e) => return Err(e.at(start)),
                    };
                    copied = i;
                }
                _ => {
                    return Err(DecodeError::new(
                        "invalid JSON: unescaped control character in a string",
                        at,
                    ))
                }
            }
        }
    }

    /// The string value's decoded bytes (borrowed unless it had escapes).
    pub fn parse_str(&mut self, expected: &str) -> Result<Cow<'a, [u8]>, DecodeError> {
        let (start, raw, escaped) = self.raw_string(expected)?;
        if escaped {
            let mut out = String::with_capacity(raw.len());
            unescape_into(raw, &mut out).map_err(|e| e.at(start))?;
            Ok(Cow::Owned(out.into_bytes()))
        } else {
            Ok(Cow::Borrowed(raw.as_bytes()))
        }
    }

    /// The string token's text between its quotes, escapes not decoded: `(start, text, escaped)`.
    fn raw_string(&mut self, expected: &str) -> Result<(usize, &'a str, bool), DecodeError> {
        if self.peek() != Token::String {
            return Err(self.unexpected(expected));
        }
        let (start, end, escaped) = self.scan_string()?;
        self.check_jackson_limit("a string", end - start, JACKSON_MAX_STRING, start)?;
        Ok((start, &self.text[start..end], escaped))
    }

    /// [`Self::parse_str`] without an allocation: a string with escapes is unescaped into
    /// `scratch` (cleared first), and the bytes returned are there.
    pub fn parse_str_using<'s>(
        &mut self,
        expected: &str,
        scratch: &'s mut String,
    ) -> Result<&'s [u8], DecodeError>
    where
        'a: 's,
    {
        let (start, raw, escaped) = self.raw_string(expected)?;
        if escaped {
            scratch.clear();
            unescape_into(raw, scratch).map_err(|e| e.at(start))?;
            Ok(scratch.as_bytes())
        } else {
            Ok(raw.as_bytes())
        }
    }

    // ---- numbers ----

    /// A JSON number's text, checked against the JSON grammar.
    pub fn parse_number(&mut self, expected: &str) -> Result<NumberText<'a>, DecodeError> {
        if self.peek() != Token::Number {
            return Err(self.unexpected(expected));
        }
        let buf = self.buf;
        let start = self.pos;
        let mut i = start;
        if buf[i] == b'-' {
            i += 1;
        }
        let int_start = i;
        while i < buf.len() && buf[i].is_ascii_digit() {
            i += 1;
        }
        let int_digits = i - int_start;
        if int_digits == 0 || (int_digits > 1 && buf[int_start] == b'0') {
            self.pos = i;
            return Err(self.error("invalid JSON number"));
        }
        if i < buf.len() && buf[i] == b'.' {
            i += 1;
            let frac_start = i;
            while i < buf.len() && buf[i].is_ascii_digit() {
                i += 1;
            }
            if i == frac_start {
                self.pos = i;
                return Err(self.error("invalid JSON number: no digits after '.'"));
            }
        }
        if i < buf.len() && (buf[i] == b'e' || buf[i] == b'E') {
            i += 1;
            if i < buf.len() && (buf[i] == b'+' || buf[i] == b'-') {
                i += 1;
            }
            let exp_start = i;
            while i < buf.len() && buf[i].is_ascii_digit() {
                i += 1;
            }
            if i == exp_start {
                self.pos = i;
                return Err(self.error("invalid JSON number: no digits in the exponent"));
            }
        }
        self.check_jackson_limit("a number", i - start, JACKSON_MAX_NUMBER, start)?;
        self.pos = i;
        Ok(NumberText {
            text: &buf[start..i],
        })
    }

    /// An integer within `[min, max]`; fractions and exponents are rejected.
    #[inline]
    pub fn parse_integer(
        &mut self,
        type_name: &str,
        min: i64,
        max: i64,
    ) -> Result<i64, DecodeError> {
        self.skip_ws();
        let start = self.pos;
        let buf = self.buf;
        let negative = buf.get(start) == Some(&b'-');
        let digits_start = start + negative as usize;
        // The common case, a plain integer of up to 16 digits, is read eight digits at a time.
        let (digits, value) = match leading_digits(buf, digits_start) {
            Some((digits, magnitude)) => {
                let magnitude = magnitude as i64; // below 10^16
                (digits, Some(if negative { -magnitude } else { magnitude }))
            }
            None => digit_run(buf, digits_start, negative),
        };
        let i = digits_start + digits;
        let plain = digits > 0
            && !(digits > 1 && buf[digits_start] == b'0')
            && !matches!(buf.get(i), Some(b'.' | b'e' | b'E'));
        if !plain {
            // Not a plain integer: let the full grammar say what it is.
            let number = self.parse_number(type_name)?;
            return Err(DecodeError::new(
                format!(
                    "expected {type_name}, found non-integer number {}",
                    excerpt(number.text, false)
                ),
                start,
            ));
        }
        self.pos = i;
        match value {
            Some(v) if v >= min && v <= max => Ok(v),
            _ => Err(DecodeError::new(
                format!(
                    "number {} is out of range for {type_name}",
                    excerpt(&buf[start..i], false)
                ),
                start,
            )),
        }
    }

    /// The fastest path, for compact JSON: if the bytes at the cursor are exactly `pattern`
    /// (a key written as `,"name":`, or `"name":` for an object's first key), consumes them
    /// and returns true. Otherwise consumes nothing (try [`Self::try_key`]).
    #[inline]
    pub fn try_compact_key(&mut self, pattern: &[u8]) -> bool {
        let end = self.pos + pattern.len();
        match self.buf.get(self.pos..end) {
            Some(next) if same_short(next, pattern) => {
                self.pos = end;
                true
            }
            _ => false,
        }
    }

    /// Fast path for object keys that arrive in schema order: if the next key is
    /// exactly `"name"` (no escapes), consumes it and its `:` and returns true.
    /// Otherwise consumes nothing (call [`Self::next_key`]).
    #[inline]
    pub fn try_key(&mut self, name: &[u8], first: bool) -> bool {
        let buf = self.buf;
        let mut i = self.pos;
        while i < buf.len() && is_ws(buf[i]) {
            i += 1;
        }
        if !first {
            if buf.get(i) != Some(&b',') {
                return false;
            }
            i += 1;
            while i < buf.len() && is_ws(buf[i]) {
                i += 1;
            }
        }
        let end = i + 1 + name.len();
        if buf.get(i) != Some(&b'"')
            || !buf.get(i + 1..end).is_some_and(|key| same_short(key, name))
            || buf.get(end) != Some(&b'"')
        {
            return false;
        }
        i = end + 1;
        while i < buf.len() && is_ws(buf[i]) {
            i += 1;
        }
        if buf.get(i) != Some(&b':') {
            return false;
        }
        self.pos = i + 1;
        true
    }

    /// Skips one value of any kind (unknown fields), still checking it is valid JSON.
    pub fn skip_value(&mut self) -> Result<(), DecodeError> {
        match self.peek() {
            Token::Object => {
                self.begin_object()?;
                let mut first = true;
                while self.next_key(first)?.is_some() {
                    first = false;
                    self.skip_value()?;
                }
                Ok(())
            }
            Token::Array => {
                self.begin_array()?;
                let mut first = true;
                while self.next_element(first)? {
                    first = false;
                    self.skip_value()?;
                }
                Ok(())
            }
            Token::String => {
                let (start, end, escaped) = self.scan_string()?;
                if escaped {
                    self.scratch.clear();
                    let text = self.text;
                    unescape_into(&text[start..end], &mut self.scratch).map_err(|e| e.at(start))?;
                }
                Ok(())
            }
            Token::Number => self.parse_number("number").map(|_| ()),
            Token::Bool => self.parse_bool().map(|_| ()),
            Token::Null => self.literal(b"null"),
            Token::End | Token::Invalid => Err(self.unexpected("a value")),
        }
    }
}

/// `a == b` for byte strings as short as field names, without a call into libc's memcmp
/// (which costs more than the compare for a handful of bytes): two overlapping words, of four
/// bytes for 4 to 8 bytes and of eight for 8 to 16, a byte loop below that.
#[inline]
fn same_short(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"));
    match n {
        0..4 => (0..n).all(|i| a[i] == b[i]),
        4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// The ASCII digits at `buf[at..]`, eight bytes at a time (SWAR): their count and value, if
/// there are at most 16 of them and the 8-byte loads stay inside `buf`; `None` sends the caller
/// to [`digit_run`] (longer numbers, or the last bytes of a message).
#[inline]
fn leading_digits(buf: &[u8], at: usize) -> Option<(usize, u64)> {
    let (n, first) = eight_digits(buf, at)?;
    if n < 8 {
        return Some((n, first));
    }
    let (m, second) = eight_digits(buf, at + 8)?;
    if m == 8 {
        return None; // 17 digits or more: beyond what two words hold without overflow
    }
    Some((8 + m, first * POWERS_OF_TEN[m] + second))
}

const POWERS_OF_TEN: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// How many of the (up to) eight bytes at `buf[at..]` are leading ASCII digits, and their value.
#[inline]
fn eight_digits(buf: &[u8], at: usize) -> Option<(usize, u64)> {
    let bytes: [u8; 8] = buf.get(at..at + 8)?.try_into().ok()?;
    let word = u64::from_le_bytes(bytes);
    // Each byte minus '0': digits become 0..=9. A byte below '0' wraps (high bit set) and one
    // above '9' reaches the high bit once 0x76 is added; borrows and carries only run toward
    // later bytes, so the first non-digit is always flagged correctly.
    let values = word.wrapping_sub(0x3030_3030_3030_3030);
    let non_digits = (values | values.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let n = (non_digits.trailing_zeros() / 8) as usize;
    if n == 0 {
        return Some((0, 0));
    }
    // Shift the n digits to the top: the emptied low bytes are leading zeros. Then fold digit
    // pairs, pairs of pairs and halves (the first byte is the most significant digit).
    let mut v = values << (8 * (8 - n));
    v = (v * 10 + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    v = (v * 100 + (v >> 16)) & 0x0000_ffff_0000_ffff;
    v = (v * 10_000 + (v >> 32)) & 0x0000_0000_ffff_ffff;
    Some((n, v))
}

/// The digits at `buf[at..]` one at a time, accumulated toward the sign (so `i64::MIN` fits):
/// their count, and their signed value unless it overflows an i64.
fn digit_run(buf: &[u8], at: usize, negative: bool) -> (usize, Option<i64>) {
    let mut value: Option<i64> = Some(0);
    let mut i = at;
    while let Some(&d) = buf.get(i) {
        if !d.is_ascii_digit() {
            break;
        }
        let digit = (d - b'0') as i64;
        value = value.and_then(|v| v.checked_mul(10)).and_then(|v| {
            if negative {
                v.checked_sub(digit)
            } else {
                v.checked_add(digit)
            }
        });
        i += 1;
    }
    (i - at, value)
}

#[inline]
fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\n' || b == b'\r' || b == b'\t'
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// Decodes JSON escapes in a string body (quotes excluded), appending it to `out`.
pub fn unescape_into(raw: &str, out: &mut String) -> Result<(), ValueError> {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let Some(off) = memchr::memchr(b'\\', &bytes[i..]) else {
            out.push_str(&raw[i..]);
            break;
        };
        out.push_str(&raw[i..i + off]);
        i = unescape_one(bytes, i + off, out)?;
    }
    Ok(())
}

/// Decodes the escape starting with the backslash at `raw[at]`, appending its UTF-8 to `out`;
/// returns the index just after it.
/// (All of an escape is ASCII, so the index returned is a character boundary.)
fn unescape_one(raw: &[u8], at: usize, out: &mut String) -> Result<usize, ValueError> {
    let esc = *raw.get(at + 1).ok_or(ValueError::BackslashAtEnd)?;
    let mut i = at + 2;
    match esc {
        b'"' => out.push('"'),
        b'\\' => out.push('\\'),
        b'/' => out.push('/'),
        b'b' => out.push('\u{8}'),
        b'f' => out.push('\u{c}'),
        b'n' => out.push('\n'),
        b'r' => out.push('\r'),
        b't' => out.push('\t'),
        b'u' => {
            let high = hex4(raw, i)?;
            i += 4;
            let unpaired =
                ValueError::UnicodeEscape(Some("a high surrogate without its low surrogate"));
            let code = if (0xD800..0xDC00).contains(&high) {
                if raw.get(i) != Some(&b'\\') || raw.get(i + 1) != Some(&b'u') {
                    return Err(unpaired);
                }
                let low = hex4(raw, i + 2)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return Err(unpaired);
                }
                i += 6;
                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..0xE000).contains(&high) {
                return Err(ValueError::UnicodeEscape(Some("a lone low surrogate")));
            } else {
                high
            };
            out.push(char::from_u32(code).ok_or(ValueError::UnicodeEscape(None))?);
        }
        other => return Err(ValueError::UnknownEscape(other)),
    }
    Ok(i)
}

fn hex4(raw: &[u8], at: usize) -> Result<u32, ValueError> {
    let digits = raw
        .get(at..at + 4)
        .ok_or(ValueError::UnicodeEscape(Some("fewer than 4 hex digits")))?;
    let mut value = 0u32;
    for &d in digits {
        let v = (d as char)
            .to_digit(16)
            .ok_or(ValueError::UnicodeEscape(Some("not a hex digit")))?;
        value = value * 16 + v;
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of the error for expecting an int64 where `json` is.
    fn found(json: &str) -> String {
        let mut cur = Cursor::new(json, 64);
        cur.parse_integer("int64", i64::MIN, i64::MAX)
            .unwrap_err()
            .message()
            .to_string()
    }

    #[test]
    fn integers_of_every_length_read_as_rust_reads_them() {
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1d);
        let mut texts: Vec<String> = vec![
            "0".into(),
            "-0".into(),
            i64::MAX.to_string(),
            i64::MIN.to_string(),
            "9223372036854775808".into(),
            "-9223372036854775809".into(),
            "99999999999999999999".into(),
            "9999999999999999".into(),
            "10000000000000000".into(),
        ];
        for digits in 1..=19 {
            for _ in 0..200 {
                let mut t: String = (0..digits)
                    .map(|i| {
                        let d = (rng.next() % 10) as u8;
                        // no leading zero (JSON forbids it): the first digit is 1..=9
                        (b'0' + if i == 0 { d % 9 + 1 } else { d }) as char
                    })
                    .collect();
                if rng.next().is_multiple_of(2) {
                    t.insert(0, '-');
                }
                texts.push(t);
            }
        }
        // What follows a number in a message, including nothing (the 8-byte loads fall back).
        for text in &texts {
            for after in ["", ",", "}", " ,\"b\":12345678901}", "]]]]]]]]]]]]]]]]]"] {
                let json = format!("{text}{after}");
                let mut cur = Cursor::new(&json, 64);
                let got = cur.parse_integer("int64", i64::MIN, i64::MAX);
                match text.parse::<i64>() {
                    Ok(want) => {
                        assert_eq!(got.ok(), Some(want), "{json}");
                        assert_eq!(cur.pos(), text.len(), "{json}");
                    }
                    Err(_) => {
                        let message = got.expect_err(&json).message().to_string();
                        assert!(
                            message.contains("out of range for int64"),
                            "{json}: {message}"
                        );
                    }
                }
                let mut cur = Cursor::new(&json, 64);
                let narrow = cur.parse_integer("int32", i32::MIN as i64, i32::MAX as i64);
                assert_eq!(
                    narrow.ok(),
                    text.parse::<i32>().ok().map(i64::from),
                    "{json}"
                );
            }
        }
    }

    #[test]
    fn integer_lookalikes_are_rejected_with_the_grammar_s_reason() {
        for (json, reason) in [
            ("012,", "invalid JSON number"),
            ("-,", "invalid JSON number"),
            ("1234567890.5,", "non-integer number 1234567890.5"),
            ("12345678e3}", "non-integer number 12345678e3"),
            (
                "123456789012345678E1}",
                "non-integer number 123456789012345678E1",
            ),
            ("00000000000000000000,", "invalid JSON number"),
        ] {
            let mut cur = Cursor::new(json, 64);
            let message = cur
                .parse_integer("int64", i64::MIN, i64::MAX)
                .unwrap_err()
                .message()
                .to_string();
            assert!(message.contains(reason), "{json}: {message}");
        }
    }

    #[test]
    fn short_compare_matches_slice_equality() {
        let words: Vec<Vec<u8>> = (0..=20)
            .flat_map(|n| {
                let base: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
                // the same bytes, then one byte changed at each position
                let mut all = vec![base.clone()];
                for at in 0..n {
                    let mut changed = base.clone();
                    changed[at] = b'#';
                    all.push(changed);
                }
                all
            })
            .collect();
        for a in &words {
            for b in &words {
                assert_eq!(same_short(a, b), a == b, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn wrong_kind_quotes_exactly_the_offending_token() {
        assert_eq!(
            found(r#""two","event_type":"view"}"#),
            r#"expected int64, found string "two""#
        );
        assert_eq!(found(r#""x"}"#), r#"expected int64, found string "x""#);
        assert_eq!(
            found(r#""say \"hi\"","n":1}"#),
            r#"expected int64, found string "say \"hi\"""#
        );
        assert_eq!(found("true,\"n\":1}"), "expected int64, found boolean true");
        assert_eq!(found("null]"), "expected int64, found null null");
        assert_eq!(found(r#"{"a":1},"b":2}"#), "expected int64, found object");
        assert_eq!(found("[1,2],\"b\":2}"), "expected int64, found array");
        let mut cur = Cursor::new("12.5e3,\"b\":true}", 64);
        let message = cur.parse_bool().unwrap_err().message().to_string();
        assert_eq!(message, "expected boolean, found number 12.5e3");
    }

    #[test]
    fn long_and_unterminated_strings_are_cut() {
        let long = format!("\"{}\",\"b\":1}}", "z".repeat(200));
        assert_eq!(
            found(&long),
            format!("expected int64, found string \"{}...\"", "z".repeat(39))
        );
        assert_eq!(found("\"cut"), "expected int64, found string \"cut");
    }
}
