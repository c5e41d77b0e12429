//! Generates the C header of libfloe's ABI with cbindgen into OUT_DIR.
//! `tests/header_is_current.rs` fails when the committed `include/floe.h` differs;
//! `FLOE_BLESS_HEADER=1 cargo build` rewrites the committed copy.

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src/ffi.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=FLOE_BLESS_HEADER");

    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let header = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi.rs"))
        .generate()
        .expect("cbindgen generates the floe header");

    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("floe.h");
    header.write_to_file(&out);
    if env::var_os("FLOE_BLESS_HEADER").is_some_and(|v| v == "1") {
        header.write_to_file(crate_dir.join("include/floe.h"));
    }
}
