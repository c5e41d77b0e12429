//! What several benches share.

use floe::json::{Outcome, RowTapeDecoder};

/// Every message onto a row tape (or a binary row, in binary-row mode), one after another, as
/// `floe-json` decodes them; the outputs' total length, so that the work is not optimized away.
/// Panics on a fallback.
pub fn decode_rows(rows: &mut RowTapeDecoder, messages: &[Vec<u8>]) -> usize {
    let mut tape_bytes = 0;
    for message in messages {
        assert_eq!(rows.decode(message), Outcome::Row);
        tape_bytes += rows.output().len();
    }
    tape_bytes
}
