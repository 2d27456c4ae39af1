//! What acknowledgement to build and how (a leaf of `ack`).

use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::time::DateTime;

/// Which acknowledgement to build (JSON: `"auto"`, `"ta1"`, `"997"`, `"999"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
pub enum AckKind {
    /// Only a TA1 per interchange.
    #[serde(rename = "ta1")]
    Ta1,
    /// A 997 per functional group (whatever its version).
    #[serde(rename = "997")]
    Fa997,
    /// A 999 per functional group (whatever its version).
    #[serde(rename = "999")]
    Fa999,
    /// 997 for groups before 005010, 999 from 005010, plus a TA1 when the
    /// interchange asks for one (ISA14 = 1) or was not accepted cleanly.
    #[default]
    #[serde(rename = "auto")]
    Auto,
}

/// How to build acknowledgements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckOptions {
    /// TA1, 997, 999 or automatic.
    pub kind: AckKind,
    /// ISA13 of the first acknowledgement interchange (then +1 per interchange).
    pub interchange_control_number: u64,
    /// GS06 of the first acknowledgement group (then +1 per group).
    pub group_control_number: u64,
    /// ST02 of the first 997 / 999 (then +1 per set; written with at least 4 digits).
    pub set_control_number: u64,
    /// Write AK2 / IK5 only for sets that are not accepted without errors.
    pub errors_only: bool,
    /// Delimiters of the acknowledgement; `None`: those of the received interchange.
    pub delimiters: Option<Delimiters>,
    /// Date and time of the acknowledgement (ISA09/ISA10, GS04/GS05). The core
    /// reads no clock: pass the current time (`x12kit::ops::acknowledge` does;
    /// `None` writes the received interchange's own date and time).
    pub timestamp: Option<DateTime>,
    /// What follows each segment terminator (CR / LF only); `None`: a line
    /// feed, or nothing when a line break is one of the delimiters.
    pub line_break: Option<String>,
}

impl Default for AckOptions {
    fn default() -> Self {
        AckOptions {
            kind: AckKind::Auto,
            interchange_control_number: 1,
            group_control_number: 1,
            set_control_number: 1,
            errors_only: false,
            delimiters: None,
            timestamp: None,
            line_break: None,
        }
    }
}
