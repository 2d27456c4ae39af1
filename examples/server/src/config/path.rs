//! Paths of the configuration.

use std::path::{Path, PathBuf};

/// `path` made absolute against the working directory (the store keeps folders absolute,
/// so that every process finds them wherever it was started).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
