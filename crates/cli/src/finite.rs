//! Every JSON document the CLI writes is checked to hold only finite numbers first: serde_json writes NaN and ±∞ as
//! `null`, which would pass a failed computation off as a missing value with exit status 0.
//!
//! [`first_non_finite`] walks the value with a serializer that writes nothing and stops at the first `f32`/`f64`
//! that is not finite, returning its path (`$.envs[3].summary.max_penetration`).

use std::fmt::{self, Display};

use serde::Serialize;

use crate::error::CliError;
use serde::ser::{self, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple};
use serde::ser::{SerializeTupleStruct, SerializeTupleVariant};

/// The path of the first non-finite number in `value`, or `None` when every number is finite (or when `value`'s
/// own `Serialize` fails, which the JSON writer then reports).
pub fn first_non_finite<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    let mut finder = Finder { path: Vec::new() };
    match value.serialize(&mut finder) {
        Err(Stop::NonFinite(path)) => Some(path),
        Ok(()) | Err(Stop::Other) => None,
    }
}

/// Errors with [`CliError::NonFinite`] naming `what` and the path when `value` holds a non-finite number.
pub fn ensure<T: Serialize + ?Sized>(value: &T, what: &str) -> Result<(), CliError> {
    match first_non_finite(value) {
        Some(path) => Err(CliError::NonFinite { what: what.to_string(), path }),
        None => Ok(()),
    }
}

#[derive(Debug)]
enum Segment {
    Index(usize),
    Key(String),
}

struct Finder {
    path: Vec<Segment>,
}

impl Finder {
    fn stop(&self) -> Stop {
        let mut s = String::from("$");
        for seg in &self.path {
            match seg {
                Segment::Index(i) => s.push_str(&format!("[{i}]")),
                Segment::Key(k) => s.push_str(&format!(".{k}")),
            }
        }
        Stop::NonFinite(s)
    }

    fn float(&self, finite: bool) -> Result<(), Stop> {
        if finite { Ok(()) } else { Err(self.stop()) }
    }

    fn keyed<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Stop> {
        self.path.push(Segment::Key(key));
        value.serialize(&mut *self)?;
        self.path.pop();
        Ok(())
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        value.serialize(&mut *self)?;
        if let Some(Segment::Index(i)) = self.path.last_mut() {
            *i += 1;
        }
        Ok(())
    }

    fn open(&mut self) -> &mut Self {
        self.path.push(Segment::Index(0));
        self
    }

    fn close(&mut self) -> Result<(), Stop> {
        self.path.pop();
        Ok(())
    }
}

#[derive(Debug)]
enum Stop {
    NonFinite(String),
    Other,
}

impl Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::NonFinite(path) => write!(f, "non-finite number at {path}"),
            Stop::Other => f.write_str("serialization failed"),
        }
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: Display>(_msg: T) -> Self {
        Stop::Other
    }
}

macro_rules! ignore {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, _v: $t) -> Result<(), Stop> {
            Ok(())
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Finder {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = &'a mut Finder;
    type SerializeTuple = &'a mut Finder;
    type SerializeTupleStruct = &'a mut Finder;
    type SerializeTupleVariant = &'a mut Finder;
    type SerializeMap = &'a mut Finder;
    type SerializeStruct = &'a mut Finder;
    type SerializeStructVariant = &'a mut Finder;

    ignore!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_char: char,
        serialize_str: &str, serialize_bytes: &[u8], serialize_unit_struct: &'static str);

    fn serialize_f32(self, v: f32) -> Result<(), Stop> {
        self.float(v.is_finite())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Stop> {
        self.float(v.is_finite())
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.keyed(variant.to_string(), value)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Stop> {
        Ok(self.open())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Stop> {
        Ok(self.open())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self.open())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Stop> {
        self.path.push(Segment::Key(variant.to_string()));
        Ok(self.open())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Stop> {
        self.path.push(Segment::Key(variant.to_string()));
        Ok(self)
    }
}

macro_rules! sequence {
    ($($tr:ident :: $method:ident),*) => {$(
        impl $tr for &mut Finder {
            type Ok = ();
            type Error = Stop;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                self.element(value)
            }
            fn end(self) -> Result<(), Stop> {
                self.close()
            }
        }
    )*};
}
sequence!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl SerializeTupleVariant for &mut Finder {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.element(value)
    }
    fn end(self) -> Result<(), Stop> {
        self.path.pop();
        self.close()
    }
}

impl SerializeMap for &mut Finder {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        let key = serde_json::to_string(key).map_err(|_| Stop::Other)?;
        self.path.push(Segment::Key(key.trim_matches('"').to_string()));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        value.serialize(&mut **self)?;
        self.path.pop();
        Ok(())
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

/// Struct fields, of a struct or a struct variant (`$pops`: the variant's name segment to drop at the end).
macro_rules! fields {
    ($($tr:ident, $pops:expr);*) => {$(
        impl $tr for &mut Finder {
            type Ok = ();
            type Error = Stop;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Stop> {
                self.keyed(key.to_string(), value)
            }
            fn end(self) -> Result<(), Stop> {
                let n = self.path.len();
                self.path.truncate(n - $pops);
                Ok(())
            }
        }
    )*};
}
fields!(SerializeStruct, 0; SerializeStructVariant, 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Inner {
        x: f64,
        v: Vec<[f64; 3]>,
    }

    #[derive(Serialize)]
    struct Outer {
        name: &'static str,
        inner: Option<Inner>,
        map: std::collections::BTreeMap<String, f32>,
    }

    #[test]
    fn finds_the_path_of_the_first_non_finite_number() {
        let mut map = std::collections::BTreeMap::new();
        map.insert("a".to_string(), 1.0f32);
        let ok = Outer { name: "x", inner: Some(Inner { x: 1.0, v: vec![[0.0; 3]; 2] }), map: map.clone() };
        assert_eq!(first_non_finite(&ok), None);
        let bad =
            Outer { name: "x", inner: Some(Inner { x: 1.0, v: vec![[0.0; 3], [0.0, f64::NAN, 0.0]] }), map };
        assert_eq!(first_non_finite(&bad).as_deref(), Some("$.inner.v[1][1]"));
        let mut map = std::collections::BTreeMap::new();
        map.insert("b".to_string(), f32::INFINITY);
        let bad = Outer { name: "x", inner: None, map };
        assert_eq!(first_non_finite(&bad).as_deref(), Some("$.map.b"));
        assert_eq!(first_non_finite(&[1.0, f64::NEG_INFINITY]).as_deref(), Some("$[1]"));
    }

    /// The JSON writers refuse the document and write nothing.
    #[test]
    fn a_non_finite_summary_is_an_error_and_nothing_is_written() {
        #[derive(Serialize)]
        struct Summary {
            steps: u64,
            max_penetration: f64,
        }
        let mut out = Vec::new();
        let err =
            crate::query::write_json(&mut out, &Summary { steps: 3, max_penetration: f64::NAN }).unwrap_err();
        assert!(matches!(&err, CliError::NonFinite { path, .. } if path == "$.max_penetration"), "{err}");
        assert!(err.to_string().contains("not written"), "{err}");
        assert!(out.is_empty());
        crate::query::write_json(&mut out, &Summary { steps: 3, max_penetration: 0.1 }).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "{\"steps\":3,\"max_penetration\":0.1}\n");
    }
}
