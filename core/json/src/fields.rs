//! The names of the envelope segments' elements in the JSON contract
//! (`header` and `trailer` objects), and their keys as the writer copies
//! them (a leaf).

/// Names of ISA01..ISA16 in the JSON `header` of an interchange.
pub const ISA_FIELDS: [&str; 16] = [
    "authorizationQualifier",
    "authorizationInfo",
    "securityQualifier",
    "securityInfo",
    "senderQualifier",
    "senderId",
    "receiverQualifier",
    "receiverId",
    "date",
    "time",
    "standardsId",
    "version",
    "controlNumber",
    "ackRequested",
    "usage",
    "componentSeparator",
];
/// Names of GS01..GS08.
pub const GS_FIELDS: [&str; 8] = [
    "functionalId",
    "senderCode",
    "receiverCode",
    "date",
    "time",
    "controlNumber",
    "agency",
    "version",
];
/// Names of ST01..ST03 (at the transaction's top level).
pub const ST_FIELDS: [&str; 3] = ["type", "controlNumber", "implementationReference"];
/// Names of SE01..SE02.
pub const SE_FIELDS: [&str; 2] = ["segmentCount", "controlNumber"];
/// Names of GE01..GE02.
pub const GE_FIELDS: [&str; 2] = ["transactionCount", "controlNumber"];
/// Names of IEA01..IEA02.
pub const IEA_FIELDS: [&str; 2] = ["groupCount", "controlNumber"];

/// A member name as the writer puts it before a value, `"name":"`, in a
/// block of 32 bytes that is copied whole (two 16-byte moves) and then
/// counted for `len` bytes.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    pub(crate) bytes: [u8; 32],
    pub(crate) len: usize,
}

/// The names of an envelope segment's elements, and their [`Key`]s.
pub(crate) struct Fields {
    pub(crate) names: &'static [&'static str],
    pub(crate) keys: &'static [Key],
}

/// The keys of `names`, built at compile time (a name longer than 28 bytes
/// fails the build).
const fn keys<const N: usize>(names: &[&str; N]) -> [Key; N] {
    let mut out = [Key {
        bytes: [0; 32],
        len: 0,
    }; N];
    let mut k = 0;
    while k < N {
        let name = names[k].as_bytes();
        assert!(name.len() + 4 <= 32, "field name too long for a Key");
        let key = &mut out[k];
        key.bytes[0] = b'"';
        let mut i = 0;
        while i < name.len() {
            key.bytes[1 + i] = name[i];
            i += 1;
        }
        key.bytes[1 + i] = b'"';
        key.bytes[2 + i] = b':';
        key.bytes[3 + i] = b'"';
        key.len = name.len() + 4;
        k += 1;
    }
    out
}

/// The [`Fields`] of each envelope segment, named like it.
macro_rules! fields {
    ($($segment:ident: $names:ident),*) => {
        $(pub(crate) const $segment: Fields = Fields {
            names: &$names,
            keys: &keys(&$names),
        };)*
    };
}

fields!(ISA: ISA_FIELDS, GS: GS_FIELDS, ST: ST_FIELDS, SE: SE_FIELDS, GE: GE_FIELDS, IEA: IEA_FIELDS);
