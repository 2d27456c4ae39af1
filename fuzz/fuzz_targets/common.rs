//! Shared by the fuzz targets (included with `#[path]`, not a target itself).

/// The chunk sizes, cycled through, for feeding a stream: picked by the low
/// two bits of a byte of the input.
pub fn chunk_sizes(pick: u8) -> &'static [usize] {
    match pick % 4 {
        0 => &[1],
        1 => &[2, 1, 3],
        2 => &[7, 64],
        _ => &[4096],
    }
}
