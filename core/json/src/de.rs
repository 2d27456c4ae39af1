//! Reading a typed value (an options struct, a partner profile) from a
//! JSON value, with the JSON pointer of what is wrong when it cannot be
//! read: [`from_value`].
//!
//! The pointer is the path of the value being read when the error arose:
//! the deserializer keeps the array indexes, object keys and enum variants
//! it is inside on a stack, and an error takes the pointer of the stack when
//! it is made (what `serde_path_to_error` did, without its wrapper
//! deserializer, which took 5 % of the WASM module's code); a
//! required member that is missing is named by the `missing_field` call serde makes (its name is recorded, not read back
//! from the message). Messages are serde_json's, byte for byte: this
//! module's deserializer of a `&Value` is serde_json's own, written over
//! an error type that delegates every message to `serde_json::Error` and
//! keeps the missing field's name beside it (a test compares the two on
//! random values).

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Why a value could not be read: where (a JSON pointer, `/` for the whole
/// value) and what serde_json says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The member at fault: the unknown key, the value of the wrong type or
    /// value, or the required key that is missing (under the object that
    /// lacks it).
    pub pointer: String,
    /// serde_json's message (`unknown field `x`, expected one of …`,
    /// `invalid type: …`, `missing field `x``).
    pub message: String,
}

/// Reads a `T` from `v`; [`Rejected`] names the member at fault.
pub fn from_value<T: DeserializeOwned>(v: &Value) -> Result<T, Rejected> {
    // A value read while reading another (a partner's guide inside the
    // options) has a path of its own: the outer one is put back after.
    let outer = PATH.with(|p| std::mem::take(&mut *p.borrow_mut()));
    let r = T::deserialize(ValueDe(v));
    PATH.with(|p| *p.borrow_mut() = outer);
    r.map_err(|e| {
        let mut pointer = e.pointer;
        if let Some(field) = e.missing {
            push_key(&mut pointer, field);
        }
        if pointer.is_empty() {
            pointer.push('/');
        }
        Rejected {
            pointer,
            message: e.json.to_string(),
        }
    })
}

std::thread_local! {
    /// The members the deserializer is inside, outermost first.
    static PATH: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The deserializer goes into the member `segment`.
fn enter(segment: &str) {
    PATH.with(|p| p.borrow_mut().push(segment.to_string()));
}

/// The deserializer comes out of the member it went into last.
fn leave() {
    PATH.with(|p| {
        p.borrow_mut().pop();
    });
}

/// The pointer of the member the deserializer is in.
fn here() -> String {
    PATH.with(|p| {
        let mut pointer = String::new();
        for segment in p.borrow().iter() {
            push_key(&mut pointer, segment);
        }
        pointer
    })
}

/// Appends `/key` with the pointer escapes (`~` as `~0`, `/` as `~1`).
fn push_key(pointer: &mut String, key: &str) {
    pointer.push('/');
    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
}

/// serde_json's error, and the name of the missing field when that is
/// what it says.
#[derive(Debug)]
struct DeError {
    json: serde_json::Error,
    missing: Option<&'static str>,
    /// Where it arose (the pointer of the member being read then).
    pointer: String,
}

impl From<serde_json::Error> for DeError {
    fn from(json: serde_json::Error) -> Self {
        DeError {
            json,
            missing: None,
            pointer: here(),
        }
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.json, f)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        <serde_json::Error as de::Error>::custom(msg).into()
    }

    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        <serde_json::Error as de::Error>::invalid_type(unexp, exp).into()
    }

    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        <serde_json::Error as de::Error>::invalid_value(unexp, exp).into()
    }

    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Self {
        <serde_json::Error as de::Error>::invalid_length(len, exp).into()
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        <serde_json::Error as de::Error>::unknown_variant(variant, expected).into()
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        <serde_json::Error as de::Error>::unknown_field(field, expected).into()
    }

    fn missing_field(field: &'static str) -> Self {
        DeError {
            json: <serde_json::Error as de::Error>::missing_field(field),
            missing: Some(field),
            pointer: here(),
        }
    }

    fn duplicate_field(field: &'static str) -> Self {
        <serde_json::Error as de::Error>::duplicate_field(field).into()
    }
}

/// What serde_json says a value is, in its errors.
fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => number_unexpected(n),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn number_unexpected(n: &Number) -> Unexpected<'static> {
    if let Some(u) = n.as_u64() {
        Unexpected::Unsigned(u)
    } else if let Some(i) = n.as_i64() {
        Unexpected::Signed(i)
    } else {
        Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// A number to a visitor, as serde_json gives it: unsigned, negative or float.
fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value, DeError> {
    if let Some(u) = n.as_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.as_i64() {
        visitor.visit_i64(i)
    } else {
        visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

fn invalid_type<E: de::Expected>(v: &Value, exp: &E) -> DeError {
    de::Error::invalid_type(unexpected(v), exp)
}

/// serde_json's deserializer of a `&Value` (`impl Deserializer for &Value`),
/// with [`DeError`] as its error.
struct ValueDe<'de>(&'de Value);

fn visit_array<'de, V: Visitor<'de>>(array: &'de [Value], visitor: V) -> Result<V::Value, DeError> {
    let len = array.len();
    let mut seq = SeqDe(array.iter(), 0);
    let out = visitor.visit_seq(&mut seq)?;
    if seq.0.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in array"))
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    object: &'de Map<String, Value>,
    visitor: V,
) -> Result<V::Value, DeError> {
    let len = object.len();
    let mut map = MapDe {
        iter: object.iter(),
        value: None,
    };
    let out = visitor.visit_map(&mut map)?;
    if map.iter.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in map"))
    }
}

macro_rules! numbers {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            match self.0 {
                Value::Number(n) => visit_number(n, visitor),
                v => Err(invalid_type(v, &visitor)),
            }
        })*
    };
}

impl<'de> de::Deserializer<'de> for ValueDe<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => visit_array(a, visitor),
            Value::Object(o) => visit_object(o, visitor),
        }
    }

    numbers!(deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64);

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Object(o) => {
                let mut entries = o.iter();
                let (Some((variant, value)), None) = (entries.next(), entries.next()) else {
                    return Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    ));
                };
                visitor.visit_enum(EnumDe {
                    variant,
                    value: Some(value),
                })
            }
            Value::String(variant) => visitor.visit_enum(EnumDe {
                variant,
                value: None,
            }),
            other => Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(*b),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::String(s) => visitor.visit_borrowed_str(s),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => visit_array(a, visitor),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Array(a) => visit_array(a, visitor),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Object(o) => visit_object(o, visitor),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Array(a) => visit_array(a, visitor),
            Value::Object(o) => visit_object(o, visitor),
            v => Err(invalid_type(v, &visitor)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

struct SeqDe<'de>(std::slice::Iter<'de, Value>, usize);

impl<'de> SeqAccess<'de> for SeqDe<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(v) = self.0.next() else {
            return Ok(None);
        };
        enter(&self.1.to_string());
        self.1 += 1;
        let r = seed.deserialize(ValueDe(v)).map(Some);
        leave();
        r
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct MapDe<'de> {
    iter: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
}

impl<'de> MapAccess<'de> for MapDe<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        match self.iter.next() {
            Some((key, value)) => {
                self.value = Some((key, value));
                enter(key);
                let r = seed
                    .deserialize(BorrowedStrDeserializer::<DeError>::new(key))
                    .map(Some);
                leave();
                r
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, DeError> {
        match self.value.take() {
            Some((key, v)) => {
                enter(key);
                let r = seed.deserialize(ValueDe(v));
                leave();
                r
            }
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct EnumDe<'de> {
    variant: &'de str,
    value: Option<&'de Value>,
}

impl<'de> EnumAccess<'de> for EnumDe<'de> {
    type Error = DeError;
    type Variant = VariantDe<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantDe<'de>), DeError> {
        let variant = seed.deserialize(StrDeserializer::<DeError>::new(self.variant))?;
        Ok((variant, VariantDe(self.value, self.variant)))
    }
}

/// A variant's content, and the variant's name (for the path).
struct VariantDe<'de>(Option<&'de Value>, &'de str);

impl<'de> VariantAccess<'de> for VariantDe<'de> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        match self.0 {
            Some(v) => de::Deserialize::deserialize(ValueDe(v)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        enter(self.1);
        let r = match self.0 {
            Some(v) => seed.deserialize(ValueDe(v)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        };
        leave();
        r
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        enter(self.1);
        let r = match self.0 {
            Some(Value::Array(a)) if a.is_empty() => visitor.visit_unit(),
            Some(Value::Array(a)) => visit_array(a, visitor),
            Some(other) => Err(de::Error::invalid_type(unexpected(other), &"tuple variant")),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        };
        leave();
        r
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        enter(self.1);
        let r = match self.0 {
            Some(Value::Object(o)) => visit_object(o, visitor),
            Some(other) => Err(de::Error::invalid_type(
                unexpected(other),
                &"struct variant",
            )),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        };
        leave();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Deserialize, Default)]
    #[serde(rename_all = "camelCase", deny_unknown_fields, default)]
    struct Numbers {
        interchange: u32,
        group: u32,
        list: Vec<u8>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Delims {
        element: String,
        component: String,
        #[serde(default)]
        repetition: Option<String>,
    }

    #[derive(Debug, PartialEq, Deserialize, Default)]
    enum Kind {
        #[default]
        #[serde(rename = "auto")]
        Auto,
        #[serde(rename = "997")]
        Fa997,
        Newtype(u8),
        Pair(u8, u8),
        Named {
            a: u8,
        },
    }

    #[derive(Debug, PartialEq, Deserialize, Default)]
    #[serde(rename_all = "camelCase", deny_unknown_fields, default)]
    struct Options {
        numbers: Numbers,
        date: Option<String>,
        delimiters: Option<Delims>,
        kind: Kind,
        flag: bool,
        ratio: f64,
        map: BTreeMap<String, Vec<String>>,
        pair: (u8, String),
        unit: (),
        ch: Option<char>,
    }

    fn pointer(v: Value) -> String {
        from_value::<Options>(&v).unwrap_err().pointer
    }

    #[test]
    fn pointers_name_the_member_at_fault() {
        assert_eq!(pointer(json!({"numbers": {"group": -1}})), "/numbers/group");
        assert_eq!(pointer(json!({"numbers": {"set": 1}})), "/numbers/set");
        assert_eq!(pointer(json!({"date": 20240101})), "/date");
        assert_eq!(pointer(json!({"colour": "red"})), "/colour");
        assert_eq!(pointer(json!({"a/b~c": 1})), "/a~1b~0c");
        assert_eq!(
            pointer(json!({"delimiters": {"element": "|"}})),
            "/delimiters/component"
        );
        assert_eq!(
            pointer(json!({"numbers": {"list": [1, "x"]}})),
            "/numbers/list/1"
        );
        assert_eq!(pointer(json!({"map": {"850": ["a", 2]}})), "/map/850/1");
        assert_eq!(pointer(json!({"kind": "850"})), "/kind");
        assert_eq!(
            pointer(json!({"kind": {"Named": {"b": 1}}})),
            "/kind/Named/a"
        );
        assert_eq!(pointer(json!({"kind": {"Pair": [1, "x"]}})), "/kind/Pair/1");
        assert_eq!(pointer(json!({"pair": [1, 2]})), "/pair/1");
        assert_eq!(pointer(json!([1])), "/0");
        assert_eq!(pointer(json!(5)), "/");
        assert_eq!(
            from_value::<Options>(&json!({"kind": "997", "numbers": {"list": [7]}})).unwrap(),
            Options {
                kind: Kind::Fa997,
                numbers: Numbers {
                    list: vec![7],
                    ..Numbers::default()
                },
                ..Options::default()
            }
        );
    }

    /// Messages (and results) are serde_json's for every value: random
    /// values of every shape the options can hold, right and wrong.
    #[test]
    fn messages_are_serde_jsons() {
        let leaves = [
            json!(null),
            json!(true),
            json!(0),
            json!(7),
            json!(300),
            json!(-1),
            json!(1.5),
            json!(1e300),
            json!("x"),
            json!("997"),
            json!("auto"),
            json!("ab"),
            json!([]),
            json!([1, 2]),
            json!([1, "x"]),
            json!({}),
            json!({"element": "|", "component": ":"}),
            json!({"element": "|"}),
            json!({"Newtype": 3}),
            json!({"Pair": [1, 2]}),
            json!({"Named": {"a": 1}}),
            json!({"Named": {"b": 1}}),
            json!({"Pair": 1}),
            json!({"a": 1, "b": 2}),
            json!({"850": ["a"]}),
        ];
        let keys = [
            "numbers",
            "date",
            "delimiters",
            "kind",
            "flag",
            "ratio",
            "map",
            "pair",
            "unit",
            "ch",
            "colour",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as usize
        };
        for _ in 0..20_000 {
            let mut o = serde_json::Map::new();
            for _ in 0..next() % 4 {
                let key = keys[next() % keys.len()];
                let mut value = leaves[next() % leaves.len()].clone();
                if key == "numbers" && next() % 2 == 0 {
                    let inner = ["interchange", "group", "list", "set"][next() % 4];
                    value = json!({ inner: leaves[next() % leaves.len()].clone() });
                }
                o.insert(key.to_string(), value);
            }
            let v = if next() % 20 == 0 {
                leaves[next() % leaves.len()].clone()
            } else {
                Value::Object(o)
            };
            let theirs = Options::deserialize(&v).map_err(|e| e.to_string());
            let ours = from_value::<Options>(&v).map_err(|e| e.message);
            assert_eq!(ours, theirs, "{v}");
        }
    }
}
