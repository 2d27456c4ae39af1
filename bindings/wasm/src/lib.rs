//! WASM package x12kit-wasm (wasm-bindgen) (under construction).
