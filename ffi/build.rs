//! Writes `x12kit.pc` (pkg-config) beside `libx12kit.so` / `libx12kit.a` in
//! the target directory (`target/release/x12kit.pc` for a release build), so
//! that `PKG_CONFIG_PATH=target/release pkg-config --cflags --libs x12kit`
//! works straight from the build tree. scripts/install-c.sh rewrites the two
//! paths when it installs the library under a prefix.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    // OUT_DIR is <target>/<profile>/build/x12kit-ffi-<hash>/out; the
    // libraries land in <target>/<profile>.
    let Some(libdir) = out.ancestors().nth(3) else {
        return;
    };
    let include = manifest.join("..").join("include");
    let include = include.canonicalize().unwrap_or(include);
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    // What `rustc --print native-static-libs` lists for a static link.
    let private = match os.as_str() {
        "linux" => "-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc",
        "macos" => "-framework CoreFoundation -liconv -lSystem -lc -lm",
        "freebsd" => "-lexecinfo -lpthread -lgcc_s -lc -lm -lrt -lutil",
        _ => "",
    };
    let pc = format!(
        "# pkg-config file of libx12kit, written by ffi/build.rs for the build tree.\n\
         libdir={libdir}\n\
         includedir={include}\n\
         \n\
         Name: x12kit\n\
         Description: X12 EDI parsing, JSON, writing and webhook signing (C API)\n\
         Version: {version}\n\
         Libs: -L${{libdir}} -lx12kit\n\
         Libs.private: {private}\n\
         Cflags: -I${{includedir}}\n",
        libdir = display(libdir),
        include = display(&include),
        version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
    );
    // Best effort: a read-only target directory only loses the .pc file.
    let _ = std::fs::write(libdir.join("x12kit.pc"), pc);
}

fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
