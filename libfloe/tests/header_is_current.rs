//! The committed C header must equal what cbindgen generates from `src/ffi.rs`,
//! or the committed Java bindings may be stale.

#[test]
fn committed_header_matches_generated() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/floe.h"));
    let committed_path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/floe.h");
    let committed = std::fs::read_to_string(committed_path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/floe.h is out of date with src/ffi.rs: run `scripts/generate-bindings` \
         (it regenerates the header and the Java bindings) and commit both"
    );
}
