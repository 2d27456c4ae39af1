//! The compiled form of a transaction-set declaration: the standard segment
//! tree of one edition (4010/4030 or 5010) with the payload mapping attached
//! to the nodes that carry data.

/// X12 data type of an element (reference §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XType {
    /// String.
    AN,
    /// Identifier (code).
    ID,
    /// Integer with `n` implied decimal places (`N0` … `N9`).
    N(u8),
    /// Decimal number with an explicit point.
    R,
    /// Date, `CCYYMMDD` (or `YYMMDD` when the maximum length is 6).
    DT,
    /// Time, `HHMM[SS[D[D]]]`.
    TM,
}

impl NodeMap {
    /// The [`NodeMap::last`] position of `elements` (sorted by position).
    pub fn last_position(elements: &[ElDecl]) -> usize {
        elements.last().map_or(0, |e| match &e.target {
            Target::Pairs(p) => e.pos as usize + 2 * p.count as usize - 1,
            _ => e.pos as usize,
        })
    }

    /// The [`NodeMap::mapped`] bits of `elements`.
    pub fn mapped_positions(elements: &[ElDecl]) -> u128 {
        let bit = |p: usize| 1u128 << p.min(127);
        elements.iter().fold(0, |m, e| match &e.target {
            Target::Unmapped => m,
            Target::Pairs(p) => {
                (0..2 * p.count as usize).fold(m, |m, k| m | bit(e.pos as usize + k))
            }
            _ => m | bit(e.pos as usize),
        })
    }
}

impl ElDecl {
    /// True when render requires the payload to give this element (the
    /// standard's M, or the declaration's `need`).
    #[inline]
    pub fn render_required(&self) -> bool {
        self.mandatory || self.need
    }
}

impl XType {
    /// The X12 spelling (`AN`, `ID`, `N2`, `R`, `DT`, `TM`).
    pub fn name(self) -> String {
        match self {
            XType::AN => "AN".into(),
            XType::ID => "ID".into(),
            XType::N(n) => format!("N{n}"),
            XType::R => "R".into(),
            XType::DT => "DT".into(),
            XType::TM => "TM".into(),
        }
    }
}

/// JSON type of a payload field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PType {
    /// A JSON string.
    Str,
    /// A JSON integer.
    Int,
    /// An assigned identifier (an `AN` element such as PO101): mapped back
    /// as the string received; render also accepts a JSON integer, written
    /// as its decimal digits.
    StrOrInt,
    /// A JSON number.
    Num,
    /// A string `YYYY-MM-DD`.
    Date,
    /// A string `HH:MM`, `HH:MM:SS` or `HH:MM:SS.D(D)`.
    Time,
}

/// A value computed by the renderer rather than asked of the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Derive {
    /// Number of segments with this id rendered so far in the set.
    Count(String),
    /// Sum of an element of the segments with this id rendered so far.
    Sum(String, u8),
    /// Sum of the products of two elements of the segments with this id.
    SumProduct(String, u8, u8),
    /// 1-based position of the current item in its array.
    Seq,
    /// HL01: this HL's number.
    HlId,
    /// HL02: the parent HL's number.
    HlParent,
    /// HL03: the hierarchical level code.
    HlLevel,
    /// HL04: `1` when the HL has children, else `0`.
    HlChild,
    /// The interchange date (GS04).
    Date,
    /// The interchange time (GS05).
    Time,
}

/// Where an element's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Not mapped: declared for validation only.
    Unmapped,
    /// A fixed value.
    Const(String),
    /// Computed.
    Derived(Derive),
    /// A payload field, as a path relative to the current object.
    Field(Vec<String>),
    /// Qualifier/id pairs from this position on, as an array of
    /// `{qualifier, id}`, with some qualifiers promoted to named fields.
    Pairs(Box<Pairs>),
}

/// A run of qualifier/id element pairs (PO106/PO107 …).
#[derive(Debug, Clone, PartialEq)]
pub struct Pairs {
    /// Number of pairs.
    pub count: u8,
    /// Array path of the non-promoted pairs.
    pub array: Vec<String>,
    /// Qualifier code → field name, rendered first, in this order.
    pub promote: Vec<(String, String)>,
    /// Length of the qualifier.
    pub qualifier_len: (u16, u16),
    /// Length of the id.
    pub id_len: (u16, u16),
}

/// A default value for an absent field.
#[derive(Debug, Clone, PartialEq)]
pub enum Default {
    /// A literal (in payload form).
    Literal(String),
    /// A computed value.
    Derived(Derive),
}

/// One element of a segment declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct ElDecl {
    /// 1-based position.
    pub pos: u8,
    /// X12 type.
    pub xtype: XType,
    /// Minimum length.
    pub min: u16,
    /// Maximum length.
    pub max: u16,
    /// Mandatory in the standard (designator M for the edition): what the
    /// structure validation of a received set requires.
    pub mandatory: bool,
    /// Required by render although the standard does not require it (a
    /// conditional element the payload must give, e.g. PO102): `need` in
    /// the declaration. Never checked on received sets.
    pub need: bool,
    /// Value source.
    pub target: Target,
    /// JSON type of the payload field.
    pub ptype: PType,
    /// Default when the field is absent.
    pub default: Option<Default>,
    /// Allowed codes (enforced) when the list is complete.
    pub codes: Option<Vec<String>>,
    /// Known codes (documented, not enforced).
    pub known: Option<Vec<String>>,
    /// One-line description for the schema.
    pub doc: Option<String>,
}

/// How occurrences of a node bind to the payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Bind {
    /// Path of the object or array, relative to the current object.
    pub path: Vec<String>,
    /// True: each occurrence is one array item; false: one object.
    pub array: bool,
    /// Occurrences whose start segment has this element value (which is then fixed).
    pub when: Option<(u8, String)>,
}

/// Levels of an HL hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct HlLevel {
    /// HL03 code.
    pub code: String,
    /// Path of the level's object (array for repeating levels).
    pub path: Vec<String>,
    /// Repeating (array) or single (object).
    pub array: bool,
    /// Parent level codes (empty: a top level).
    pub under: Vec<String>,
    /// Children of this level are placed in its container, not inside it.
    pub flat: bool,
}

/// The mapping attached to a node.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeMap {
    /// Bindings tried in order; empty: the node's fields merge into the current object.
    pub binds: Vec<Bind>,
    /// Render even when no field of the node is present.
    pub always: bool,
    /// Element declarations (segments only).
    pub elements: Vec<ElDecl>,
    /// Syntax rules (segments only).
    pub(crate) rules: Vec<super::syntax::Rule>,
    /// HL levels this node is rendered for (empty: every level).
    pub levels: Vec<String>,
    /// The hierarchy of an HL loop.
    pub hier: Vec<HlLevel>,
    /// Bit `n` set: the element at position `n` is mapped (a field, a
    /// constant, a derived value or a qualifier/id pair), so map-back keeps
    /// its value ([`NodeMap::mapped_positions`]).
    pub mapped: u128,
    /// The last position an element declaration reads (the second element
    /// of its last qualifier/id pair for pairs), so that mapping splits a
    /// segment only that far ([`NodeMap::last_position`]).
    pub last: usize,
    /// The elements as map-back reads them ([`Plan`]).
    pub(crate) plan: Plan,
}

/// A segment's element declarations compiled for map-back: the fields with
/// a one-key path (most of them) by position, with their key's filter bit
/// computed once, so that mapping a segment visits only the positions that
/// have data and a declaration, in position order, without reading the
/// declarations. Positions above 32 are left out: map-back splits at most
/// 32 elements, so an element declared there never has data to map.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Plan {
    /// Bit `p - 1`: position `p` has a field with a one-key path (below
    /// [`Plan::prefix`]), in [`Plan::fields`] at `at[p - 1]`.
    pub fast: u32,
    /// Bit `p - 1`: position `p` has another mapped declaration (a
    /// constant, qualifier/id pairs, a field with a longer path), in
    /// [`NodeMap::elements`] at `at[p - 1]`.
    pub slow: u32,
    /// Per position - 1: where its declaration is (see `fast`, `slow`).
    pub at: [u8; 32],
    /// The fields with a one-key path.
    pub fields: Vec<FastField>,
    /// Union of the fields' filter bits ([`FastField::bit`]).
    pub bits: u64,
    /// The path of the object the fields go into, below the current one
    /// (empty: the current one), when every field of the segment shares
    /// it; [`FastField::key`] is then the last name of each path.
    pub prefix: Vec<String>,
    /// The fields may be written straight to JSON text, one run per
    /// segment, instead of one tree node each: their keys are distinct,
    /// need no escaping, and are never the name of an object or array of
    /// the declaration, nor a field the segment's pairs promote (set by
    /// the compiled declaration's last step, `decode::seal`; false until
    /// then).
    pub frag: bool,
}

/// What a plan maps at a position (see [`Plan::positions`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mapped<'p> {
    /// A field with a one-key path.
    Field(&'p FastField),
    /// Another declaration: its index in [`NodeMap::elements`].
    Element(usize),
}

impl Plan {
    /// The positions of `visit` (bit `p - 1` for position `p`), lowest
    /// first, each with its bit number and what the plan maps there.
    #[inline(always)]
    pub(crate) fn positions(&self, mut visit: u32) -> impl Iterator<Item = (usize, Mapped<'_>)> {
        std::iter::from_fn(move || {
            if visit == 0 {
                return None;
            }
            let k = visit.trailing_zeros() as usize;
            visit &= visit - 1;
            let at = self.at[k] as usize;
            Some((
                k,
                if self.fast & (1 << k) != 0 {
                    Mapped::Field(&self.fields[at])
                } else {
                    Mapped::Element(at)
                },
            ))
        })
    }
}

/// A field with a one-key path, as map-back writes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FastField {
    /// The key (the path's only name).
    pub key: String,
    /// The key's filter bit in the mapped tree.
    pub bit: u64,
    /// The member name as JSON, `"key":` (for a key that needs no escaping).
    pub head: Box<[u8]>,
    /// JSON type.
    pub ptype: PType,
    /// X12 type.
    pub xtype: XType,
}

/// A node of the segment tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Segment id (for a loop: the id of its first segment).
    pub id: String,
    /// The id packed into an integer ([`id_key`]), for fast matching.
    pub key: u32,
    /// Mandatory in the standard.
    pub mandatory: bool,
    /// Maximum use (loop repeats); `u32::MAX` for unbounded.
    pub max: u32,
    /// Children of a loop (the first is the loop's start segment); `None` for a segment.
    pub children: Option<Vec<Node>>,
    /// Payload mapping, when the node carries data.
    pub map: Option<NodeMap>,
}

/// A segment id (2–3 bytes) packed into an integer; longer ids never match a node.
#[inline]
pub fn id_key(id: &[u8]) -> u32 {
    match id {
        [a, b] => u32::from_be_bytes([0, 0, *a, *b]),
        [a, b, c] => u32::from_be_bytes([0, *a, *b, *c]),
        _ => u32::MAX,
    }
}

impl Node {
    /// True for a loop.
    pub fn is_loop(&self) -> bool {
        self.children.is_some()
    }
}

/// Edition of a declaration: which structure and lengths apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edition {
    /// 004010 (004030 for 753/754).
    Base,
    /// 005010.
    V5010,
}

/// A compiled transaction set declaration for one edition.
#[derive(Debug, Clone)]
pub struct SetDecl {
    /// Transaction set id, e.g. `850`.
    pub code: String,
    /// Functional identifier (GS01).
    pub functional_id: String,
    /// Earliest version, e.g. `004010`.
    pub since: String,
    /// Name, e.g. `Purchase Order`.
    pub name: String,
    /// The edition compiled.
    pub edition: Edition,
    /// The body between ST and SE.
    pub body: Vec<Node>,
}

/// The X12 dictionary the declarations use (`sets/dictionary.x12d`):
/// segment names, the data element at each described position, and the
/// data elements' numbers, types, lengths, names and code meanings.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    /// Segments, in file order.
    pub segments: Vec<DictSegment>,
    /// Data elements (and composites), in file order.
    pub elements: Vec<DictElement>,
}

/// A segment of the dictionary.
#[derive(Debug, Clone)]
pub struct DictSegment {
    /// Segment id (`BEG`).
    pub id: String,
    /// Name (`Beginning Segment for Purchase Order`).
    pub name: String,
    /// Name in 005010 when it differs (`N1`: `Party Identification`).
    pub name_5010: Option<String>,
    /// The positions described.
    pub positions: Vec<DictPosition>,
}

/// One position of a dictionary segment.
#[derive(Debug, Clone)]
pub struct DictPosition {
    /// 1-based position.
    pub pos: u8,
    /// Element number in the base edition (`None`: no element there).
    pub base: Option<String>,
    /// Element number in 005010 (`None`: no element there).
    pub v5010: Option<String>,
    /// Mandatory (used for segments no declaration describes: envelopes
    /// and acknowledgments).
    pub mandatory: bool,
}

/// A data element (or composite) of the dictionary.
#[derive(Debug, Clone)]
pub struct DictElement {
    /// Data element number (`353`, `I01`, `C030`).
    pub number: String,
    /// X12 type (`ID`, `AN`, `N0`, `R`, `DT`, `TM`; `C` for a composite).
    pub xtype: String,
    /// Lengths in the base edition (`(0, 0)` for a composite).
    pub len: (u16, u16),
    /// Lengths in 005010.
    pub len_5010: (u16, u16),
    /// Name (`Transaction Set Purpose Code`).
    pub name: String,
    /// Code → meaning, for the codes x12kit knows.
    pub codes: Vec<(String, String)>,
}

impl Dictionary {
    /// The segment with this id.
    pub fn segment(&self, id: &str) -> Option<&DictSegment> {
        self.segments.iter().find(|s| s.id == id)
    }

    /// The data element with this number.
    pub fn element(&self, number: &str) -> Option<&DictElement> {
        self.elements.iter().find(|e| e.number == number)
    }
}

impl DictSegment {
    /// The name in an edition.
    pub fn name(&self, ed: Edition) -> &str {
        match (ed, &self.name_5010) {
            (Edition::V5010, Some(n)) => n,
            _ => &self.name,
        }
    }

    /// The element number at a position in an edition.
    pub fn number_at(&self, pos: u8, ed: Edition) -> Option<&str> {
        let p = self.positions.iter().find(|p| p.pos == pos)?;
        match ed {
            Edition::Base => p.base.as_deref(),
            Edition::V5010 => p.v5010.as_deref(),
        }
    }
}

impl DictElement {
    /// Lengths in an edition.
    pub fn lengths(&self, ed: Edition) -> (u16, u16) {
        match ed {
            Edition::Base => self.len,
            Edition::V5010 => self.len_5010,
        }
    }

    /// The meaning of a code, when x12kit knows it.
    pub fn meaning(&self, code: &str) -> Option<&str> {
        self.codes
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, m)| m.as_str())
    }
}
