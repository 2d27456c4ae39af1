//! Mapping received sets back to their payload JSON: the document of
//! each known set, written as the parse result carries it, and the
//! `serde_json::Value` of [`map_back`].

use super::compiled::{declared, group_edition, known};
use super::decode;
use crate::sets::is_known;
use serde_json::Value;
use x12kit_syntax::envelope::{Document, Group, Transaction};

/// Maps a received transaction set back to its payload JSON; `None` for sets
/// that are not declared.
pub fn map_back(doc: &Document<'_>, group: &Group<'_>, tx: &Transaction<'_>) -> Option<Value> {
    // The tree the parse result's document is written from, read as a value.
    let mut m = Mapper::default();
    for seg in doc.body(tx) {
        m.push_body(seg);
    }
    let root = map_into(&mut m, group, tx)?;
    Some(m.tree.to_value(root))
}

/// Buffers of document mapping, reused from set to set (the parse JSON
/// writer keeps one).
pub(crate) type Mapper<'a> = decode::Mapping<'a>;

/// The known sets' mapping, plugged into the parse result's writer
/// (`x12kit::json`): each set of a known type gets its `document`.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonDocuments;

impl x12kit_json::Documents for JsonDocuments {
    type Mapper<'a> = Mapper<'a>;
}

impl<'a> x12kit_json::SetMapper<'a> for Mapper<'a> {
    #[inline]
    fn maps(&self, kind: &[u8]) -> bool {
        is_known(kind)
    }

    #[inline]
    fn start_body(&mut self) {
        self.clear_body();
    }

    #[inline]
    fn push_body(&mut self, seg: x12kit_syntax::segment::Segment<'a>, clean: bool) {
        self.push_body_checked(seg, clean);
    }

    #[inline]
    fn write_document(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        out: &mut Vec<u8>,
    ) -> bool {
        write_document_with(self, doc, group, tx, true, out)
    }
}

/// Appends the mapped document of a set as compact JSON (what the parse
/// result carries as `document`), with buffers kept from the previous sets;
/// false for sets not declared.
/// `collected`: the set's body segments were already given to `m`
/// ([`Mapper::push_body`]) while writing them.
pub(crate) fn write_document_with<'a>(
    m: &mut Mapper<'a>,
    doc: &Document<'a>,
    group: &Group<'a>,
    tx: &Transaction<'a>,
    collected: bool,
    out: &mut Vec<u8>,
) -> bool {
    if !collected {
        m.clear_body();
        for seg in doc.body(tx) {
            m.push_body(seg);
        }
    }
    match map_into(m, group, tx) {
        Some(root) => {
            m.tree.write(root, out);
            true
        }
        None => false,
    }
}

/// The mapped document of one transaction set as compact JSON: the bytes
/// the parse result (`x12kit::json`) carries as that set's `document`,
/// keys in the contract's order (unlike [`map_back`], whose
/// `serde_json::Value` sorts them). `None` where the parse result has no
/// `document`: a set not declared. For a binding's per-set accessor:
/// the cost is the set's size, not the file's.
pub fn document_json<'a>(
    doc: &Document<'a>,
    group: &Group<'a>,
    tx: &Transaction<'a>,
) -> Option<Vec<u8>> {
    if !is_known(tx.kind()) || tx.is_over_cap() {
        return None;
    }
    let mut out = Vec::new();
    write_document_with(&mut Mapper::default(), doc, group, tx, false, &mut out).then_some(out)
}

/// Matches and maps a set whose body is collected in `m`; the root object
/// of `m.tree`.
fn map_into(m: &mut Mapper<'_>, group: &Group<'_>, tx: &Transaction<'_>) -> Option<u32> {
    // The GS as received, and its element separator, decide the edition.
    let (gs, sep) = group
        .gs
        .as_ref()
        .map_or((&[][..], 0), |gs| (gs.raw(), gs.delimiters().element));
    let edition = match &m.edition {
        Some((raw, e)) if raw.split_last() == Some((&sep, gs)) => *e,
        _ => {
            let e = group_edition(group);
            let mut key = gs.to_vec();
            key.push(sep);
            m.edition = Some((key, e));
            e
        }
    };
    // Sets of one type follow each other: the last one's declaration is kept.
    let kind = tx.kind();
    let d = match &m.declared {
        Some((k, e, d)) if *e == edition && k.as_slice() == kind => *d,
        _ => {
            let d = declared(kind, edition)?;
            m.declared = Some((kind.to_vec(), edition, d));
            d
        }
    };
    let end = tx.se.as_ref().map_or((0, 0), |s| (s.index(), s.offset()));
    Some(m.map(d, tx.st.index(), end, &known))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maps every set of an input three ways: with one mapper reused for all
    /// sets (as the parse JSON does), with a fresh one, and with one that
    /// writes every member as a node of its own (no runs of one-key fields,
    /// the reference); all give the same bytes, which read back as
    /// [`map_back`]'s value. Returns how many documents were mapped.
    fn check(input: &[u8]) -> usize {
        let doc = x12kit_syntax::parse(input);
        let mut reused_mapper = Mapper::default();
        let mut mapped = 0;
        for i in &doc.interchanges {
            for g in &i.groups {
                for t in &g.transactions {
                    let mut reused = Vec::new();
                    let a = write_document_with(&mut reused_mapper, &doc, g, t, false, &mut reused);
                    let mut fresh = Vec::new();
                    let b =
                        write_document_with(&mut Mapper::default(), &doc, g, t, false, &mut fresh);
                    let mut reference = Mapper::default();
                    reference.tree.no_runs = true;
                    let mut nodes = Vec::new();
                    let c = write_document_with(&mut reference, &doc, g, t, false, &mut nodes);
                    assert_eq!((a, b), (c, c));
                    assert_eq!(
                        String::from_utf8_lossy(&reused),
                        String::from_utf8_lossy(&nodes)
                    );
                    assert_eq!(fresh, nodes);
                    if c {
                        let parsed: Value = serde_json::from_slice(&nodes).expect("JSON");
                        assert_eq!(Some(parsed), map_back(&doc, g, t));
                        mapped += 1;
                    }
                }
            }
        }
        mapped
    }

    #[test]
    fn runs_are_written_as_the_nodes_are() {
        // Text that needs escaping or is not UTF-8, numbers on every path
        // (direct, exponent, too long), promoted and plain qualifier pairs,
        // a repeated single field, sets of both editions in one input.
        let mut x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO \"1\"\\x**20230101~CUR*BY*USD~REF*DP*\t715~REF*IA*".to_vec();
        x12.extend_from_slice(b"caf\xC3\xA9 bad\xFF~PER*BD*A\x01B~ITD*01*3*2.50**030**60~DTM*002*20230229~DTM*010*230101~N1*ST*DC \"4\"*92*4367~N1*ST*DUP~N1*BT*BILL~N3*1 MAIN~N4*RENO*NV*89502~");
        x12.extend_from_slice(b"PO1*1*251*EA*224.38**VP*SKU1*UP*0588*VP*SKU2*BP*B1*IN*X~PID*F****RED~PO1*002*0.0000001*EA*123456789012345678**SK*S~PO1*x*-0*CA*-.5~PO1*4*1E5*PK*99999999999999999~CTT*4~SE*19*0001~GE*1*1~");
        x12.extend_from_slice(b"GS*IN*S*R*20230101*1200*2*X*005010~ST*810*0002~BIG*20230101*INV-1*20230101*PO-1~IT1*1*2*EA*9.99**VP*SKU~TDS*1998~CTT*1~SE*6*0002~GE*1*2~IEA*2*000000001~");
        assert_eq!(check(&x12), 2);
    }

    /// Every golden render and vector input, as committed and re-delimited
    /// (`x12kit_syntax::testing::VARIANTS`): the inputs that always run.
    #[test]
    fn runs_are_written_as_the_nodes_are_on_goldens_and_vectors() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
        let mut mapped = 0;
        for dir in ["golden", "vectors/inputs"] {
            for e in std::fs::read_dir(root.join(dir)).expect("committed inputs") {
                let p = e.expect("an entry").path();
                if !p.is_file() || p.extension().is_some_and(|x| x == "json") {
                    continue;
                }
                let input = std::fs::read(&p).expect("readable");
                mapped += check(&input);
                for (to, rep, lb) in x12kit_syntax::testing::VARIANTS {
                    if let Some(v) = x12kit_syntax::testing::redelimit(&input, to, rep, lb) {
                        mapped += check(&v);
                    }
                }
            }
        }
        assert!(
            mapped >= 6 * 2 * crate::sets::TYPES.len(),
            "{mapped} documents"
        );
    }
}
